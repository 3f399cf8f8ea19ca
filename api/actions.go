package api

import (
	"github.com/taskd/taskd"
)

// Scopes of the actions (DESIGN §5, spec/account-api.md §16).
const (
	projectsRead  = "projects_read"
	projectsWrite = "projects_write"
	tasksRead     = "tasks_read"
	tasksWrite    = "tasks_write"
	commentsRead  = "comments_read"
	commentsWrite = "comments_write"
	usersRead     = "users_read"
	admin         = taskd.ScopeAdministrative
	// anyScope marks an action any valid token may call (me).
	anyScope = "*"
)

// work and administrative are the permissions (taskd.Permission) the
// actions need from the caller's role.
const (
	work           = taskd.PermWork
	administrative = taskd.PermAdministrative
)

// actions returns the API's action table: for each action the scope a
// token needs, what the caller's role must allow, the parameters it accepts
// (exhaustive: anything else is refused with code 16) and what it does. It
// is the only list of actions; a token may call an action only through its
// entry here.
func actions() map[string]action {
	return map[string]action{
		"get_projects":     {projectsRead, work, []string{"filter", "extra"}, getProjects},
		"get_project":      {projectsRead, work, []string{"id_project", "extra"}, getProject},
		"post_project":     {projectsWrite, work, []string{"title", "text", "email_user_from", "email_manager", "datestart", "dateend"}, postProject},
		"update_project":   {projectsWrite, work, []string{"id_project", "title", "text", "email_manager", "datestart", "dateend"}, updateProject},
		"close_project":    {projectsWrite, work, []string{"id_project"}, projectStatus(taskd.ProjectArchive)},
		"activate_project": {projectsWrite, work, []string{"id_project"}, projectStatus(taskd.ProjectActive)},

		"get_all_tasks": {tasksRead, work, []string{"filter", "extra"}, getAllTasks},
		"get_tasks":     {tasksRead, work, []string{"id_project", "filter", "extra"}, getTasks},
		"get_task":      {tasksRead, work, []string{"id_task", "extra"}, getTask},
		"search_tasks":  {tasksRead, work, []string{"id_project", "email_user_from", "email_user_to", "status", "filter", "extra"}, searchTasks},
		"post_task": {tasksWrite, work, []string{"id_project", "id_parent", "title", "text", "email_user_from", "email_user_to",
			"priority", "datestart", "dateend"}, postTask},
		"update_task":   {tasksWrite, work, []string{"id_task", "title", "text", "email_user_to", "priority", "datestart", "dateend"}, updateTask},
		"complete_task": {tasksWrite, work, []string{"id_task"}, taskStatus(true)},
		"reopen_task":   {tasksWrite, work, []string{"id_task"}, taskStatus(false)},
		"delete_task":   {tasksWrite, work, []string{"id_task"}, deleteTask},

		"get_comments":   {commentsRead, work, []string{"id_task"}, getComments},
		"post_comment":   {commentsWrite, work, []string{"id_task", "text", "email_user_from"}, writeComment("id_task", CodeTaskInvalid, Store.CreateComment)},
		"update_comment": {commentsWrite, work, []string{"id_comment", "text"}, writeComment("id_comment", CodeCommentInvalid, Store.UpdateComment)},
		"delete_comment": {commentsWrite, work, []string{"id_comment"}, deleteComment},

		"get_users":  {usersRead, work, nil, getUsers},
		"get_events": {admin, administrative, []string{"period", "id_project"}, getEvents},

		"get_webhooks":    {admin, administrative, nil, getWebhooks},
		"add_webhook":     {admin, administrative, []string{"url", "events", "projects", "http_user", "http_pass"}, addWebhook},
		"delete_webhook":  {admin, administrative, []string{"id"}, webhookAction(WebhookService.Delete)},
		"enable_webhook":  {admin, administrative, []string{"id"}, webhookAction(WebhookService.Enable)},
		"disable_webhook": {admin, administrative, []string{"id"}, webhookAction(WebhookService.Disable)},
	}
}

func ok(data any) okBody { return okBody{Status: "ok", Data: data} }

func getUsers(c *call) (any, error) {
	members, err := c.store.Members(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	out := make([]userOut, len(members))
	for i, m := range members {
		out[i] = renderUser(m)
	}
	return ok(out), nil
}

func getEvents(c *call) (any, error) {
	period, err := c.required("period")
	if err != nil {
		return nil, err
	}
	d, err := taskd.ParsePeriod(period)
	if err != nil {
		return nil, err
	}
	pid, err := c.optID("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	if pid != 0 {
		if _, err := c.store.Project(c.ctx, c.accountID(), pid); err != nil {
			return nil, err
		}
	}
	evs, err := c.store.Events(c.ctx, c.accountID(), c.now().Add(-d), pid)
	if err != nil {
		return nil, err
	}
	return ok(renderEvents(evs)), nil
}
