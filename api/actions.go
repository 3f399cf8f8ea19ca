package api

import (
	"github.com/taskd/taskd"
)

// actions returns the API's action table. Parameter lists are exhaustive:
// anything else is refused with code 16.
func actions() map[string]action {
	return map[string]action{
		"get_projects":     {[]string{"filter", "extra"}, getProjects},
		"get_project":      {[]string{"id_project", "extra"}, getProject},
		"post_project":     {[]string{"title", "text", "email_user_from", "email_manager", "datestart", "dateend"}, postProject},
		"update_project":   {[]string{"id_project", "title", "text", "email_manager", "datestart", "dateend"}, updateProject},
		"close_project":    {[]string{"id_project"}, projectStatus(taskd.ProjectArchive)},
		"activate_project": {[]string{"id_project"}, projectStatus(taskd.ProjectActive)},

		"get_all_tasks": {[]string{"filter", "extra"}, getAllTasks},
		"get_tasks":     {[]string{"id_project", "filter", "extra"}, getTasks},
		"get_task":      {[]string{"id_task", "extra"}, getTask},
		"search_tasks":  {[]string{"id_project", "email_user_from", "email_user_to", "status", "filter", "extra"}, searchTasks},
		"post_task": {[]string{"id_project", "id_parent", "title", "text", "email_user_from", "email_user_to",
			"priority", "datestart", "dateend"}, postTask},
		"update_task":   {[]string{"id_task", "title", "text", "email_user_to", "priority", "datestart", "dateend"}, updateTask},
		"complete_task": {[]string{"id_task"}, taskStatus(true)},
		"reopen_task":   {[]string{"id_task"}, taskStatus(false)},
		"delete_task":   {[]string{"id_task"}, deleteTask},

		"get_comments":   {[]string{"id_task"}, getComments},
		"post_comment":   {[]string{"id_task", "text", "email_user_from"}, writeComment("id_task", taskd.CodeTaskInvalid, taskd.Store.CreateComment)},
		"update_comment": {[]string{"id_comment", "text"}, writeComment("id_comment", taskd.CodeCommentInvalid, taskd.Store.UpdateComment)},
		"delete_comment": {[]string{"id_comment"}, deleteComment},

		"get_users":  {nil, getUsers},
		"get_events": {[]string{"period", "id_project"}, getEvents},

		"get_webhooks":    {nil, getWebhooks},
		"add_webhook":     {[]string{"url", "events", "projects", "http_user", "http_pass"}, addWebhook},
		"delete_webhook":  {[]string{"id"}, webhookAction(WebhookService.Delete)},
		"enable_webhook":  {[]string{"id"}, webhookAction(WebhookService.Enable)},
		"disable_webhook": {[]string{"id"}, webhookAction(WebhookService.Disable)},
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
	pid, err := c.optID("id_project", taskd.CodeProjectInvalid)
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
