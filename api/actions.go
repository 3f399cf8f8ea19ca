package api

import (
	"encoding/json"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
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
	usersWrite    = "users_write"
	contactsRead  = "contacts_read"
	contactsWrite = "contacts_write"
	tagsRead      = "tags_read"
	tagsWrite     = "tags_write"
	costsRead     = "costs_read"
	costsWrite    = "costs_write"
	filesRead     = "files_read"
	filesWrite    = "files_write"
	admin         = taskd.ScopeAdministrative
	// anyScope marks an action any valid token may call (me).
	anyScope = "*"
)

// work and administrative are the permissions (taskd.Permission) the
// actions need from the caller's role.
const (
	read           = taskd.PermRead
	work           = taskd.PermWork
	managePeople   = taskd.PermManagePeople
	administrative = taskd.PermAdministrative
)

// actions returns the API's action table: for each action the scope a
// token needs, what the caller's role must allow, the parameters it accepts
// (exhaustive: anything else is refused with code 16) and what it does. It
// is the only list of actions; a token may call an action only through its
// entry here.
func actions() map[string]action {
	return map[string]action{
		"get_projects": {projectsRead, read, []string{"filter", "extra"}, getProjects},
		"get_project":  {projectsRead, read, []string{"id_project", "extra"}, getProject},
		"post_project": {projectsWrite, work, append([]string{"title", "text", "email_user_from", "email_manager", "email_user_to", "members",
			"company", "datestart", "dateend", "extra", "tags", "max_time", "max_money", fieldsParam}, projectOptions...), postProject},
		"update_project": {projectsWrite, work, append([]string{"id_project", "title", "text", "email_manager", "email_user_to", "members",
			"company", "datestart", "dateend", "extra", "tags", "max_time", "max_money", fieldsParam}, projectOptions...), updateProject},
		"close_project":    {projectsWrite, work, []string{"id_project"}, projectStatus(taskd.ProjectArchive)},
		"activate_project": {projectsWrite, work, []string{"id_project"}, projectStatus(taskd.ProjectActive)},

		"get_all_tasks": {tasksRead, read, []string{"filter", "extra"}, getAllTasks},
		"get_tasks":     {tasksRead, read, []string{"id_project", "filter", "extra"}, getTasks},
		"get_task":      {tasksRead, read, []string{"id_task", "extra"}, getTask},
		"search_tasks":  {tasksRead, read, []string{"id_project", "id_task", "email_user_from", "email_user_to", "status", "filter", "extra"}, searchTasks},
		"post_task": {tasksWrite, work, []string{"id_project", "id_parent", "title", "text", "email_user_from", "email_user_to",
			"priority", "datestart", "dateend", "subscribe", "hidden", "tags", "max_time", "max_money", "files", fieldsParam}, postTask},
		"update_task": {tasksWrite, work, []string{"id_task", "title", "text", "email_user_to", "priority", "datestart", "dateend", "tags",
			"max_time", "max_money", fieldsParam}, updateTask},
		"complete_task": {tasksWrite, work, []string{"id_task"}, taskStatus(true)},
		"reopen_task":   {tasksWrite, work, []string{"id_task"}, taskStatus(false)},
		"delete_task":   {tasksWrite, work, []string{"id_task"}, deleteTask},
		// Task relations (issue 35; docs/api.md).
		"add_task_relation":     {tasksWrite, work, []string{"id_task_from", "id_task_to", "type", "email_user_from"}, addTaskRelation},
		"delete_task_relation":  {tasksWrite, work, []string{"id_task_from", "id_task_to", "email_user_from"}, deleteTaskRelation},
		"shift_dependent_tasks": {tasksWrite, work, []string{"id_task", "days", "email_user_from"}, shiftDependentTasks},

		"get_comments":   {commentsRead, read, []string{"id_task", "extra"}, getComments},
		"post_comment":   {commentsWrite, work, []string{"id_task", "text", "email_user_from", "hidden", "files"}, postComment},
		"update_comment": {commentsWrite, work, []string{"id_comment", "text"}, updateComment},
		"delete_comment": {commentsWrite, work, []string{"id_comment"}, deleteComment},

		"subscribe":   {tasksWrite, work, []string{"id_task", "email_user", "email_user_from"}, subscription(true)},
		"unsubscribe": {tasksWrite, work, []string{"id_task", "email_user", "email_user_from"}, subscription(false)},

		"get_project_groups": {projectsRead, read, nil, getProjectGroups},

		"get_task_custom_fields":    {tasksRead, read, nil, getCustomFields(taskd.ObjectTask)},
		"get_project_custom_fields": {projectsRead, read, nil, getCustomFields(taskd.ObjectProject)},

		"add_project_group":      {projectsWrite, work, []string{"title", "email_user_from"}, addFolder(taskd.DirectoryStore.AddProjectFolder)},
		"add_project_members":    {projectsWrite, work, []string{"id_project", "members", "email_user_from"}, projectMembers(true)},
		"delete_project_members": {projectsWrite, work, []string{"id_project", "members", "email_user_from"}, projectMembers(false)},

		"get_task_tag_groups":    {tagsRead, read, []string{"type", "access"}, getTagGroups(taskd.TagsOfTasks)},
		"get_project_tag_groups": {tagsRead, read, []string{"type", "access"}, getTagGroups(taskd.TagsOfProjects)},
		"add_task_tag_groups":    {tagsWrite, work, []string{"type", "access", "title", "email_user_from"}, addTagGroups(taskd.TagsOfTasks)},
		"add_project_tag_groups": {tagsWrite, work, []string{"type", "access", "title", "email_user_from"}, addTagGroups(taskd.TagsOfProjects)},
		"get_task_tags":          {tagsRead, read, []string{"group", "type", "access"}, getTags(taskd.TagsOfTasks)},
		"get_project_tags":       {tagsRead, read, []string{"group", "type", "access"}, getTags(taskd.TagsOfProjects)},
		"add_task_tags":          {tagsWrite, work, []string{"group", "title", "email_user_from"}, addTags(taskd.TagsOfTasks)},
		"add_project_tags":       {tagsWrite, work, []string{"group", "title", "email_user_from"}, addTags(taskd.TagsOfProjects)},
		"update_task_tags":       {tagsWrite, work, []string{"id_task", "plus", "minus", "email_user_from"}, updateTags(taskd.TagsOfTasks, "id_task", CodeTaskInvalid)},
		"update_project_tags":    {tagsWrite, work, []string{"id_project", "plus", "minus", "email_user_from"}, updateTags(taskd.TagsOfProjects, "id_project", CodeProjectInvalid)},
		// taskd's extensions: renames, order and deletions of tags (issue 33).
		"update_task_tag_group":    {tagsWrite, work, []string{"group", "title", "email_user_from"}, updateTagGroup(taskd.TagsOfTasks)},
		"update_project_tag_group": {tagsWrite, work, []string{"group", "title", "email_user_from"}, updateTagGroup(taskd.TagsOfProjects)},
		"update_task_tag":          {tagsWrite, work, []string{"tag", "title", "email_user_from"}, updateTag(taskd.TagsOfTasks)},
		"update_project_tag":       {tagsWrite, work, []string{"tag", "title", "email_user_from"}, updateTag(taskd.TagsOfProjects)},
		"sort_task_tag_groups":     {tagsWrite, work, []string{"order", "email_user_from"}, sortTagGroups(taskd.TagsOfTasks)},
		"sort_project_tag_groups":  {tagsWrite, work, []string{"order", "email_user_from"}, sortTagGroups(taskd.TagsOfProjects)},
		"sort_task_tags":           {tagsWrite, work, []string{"group", "order", "email_user_from"}, sortTags(taskd.TagsOfTasks)},
		"sort_project_tags":        {tagsWrite, work, []string{"group", "order", "email_user_from"}, sortTags(taskd.TagsOfProjects)},
		"delete_task_tag":          {tagsWrite, work, []string{"tag", "move_to", "email_user_from"}, deleteTag(taskd.TagsOfTasks)},
		"delete_project_tag":       {tagsWrite, work, []string{"tag", "move_to", "email_user_from"}, deleteTag(taskd.TagsOfProjects)},
		"delete_task_tag_group":    {tagsWrite, work, []string{"group", "email_user_from"}, deleteTagGroup(taskd.TagsOfTasks)},
		"delete_project_tag_group": {tagsWrite, work, []string{"group", "email_user_from"}, deleteTagGroup(taskd.TagsOfProjects)},

		"get_costs":       {costsRead, read, costFilters, getCosts},
		"get_costs_total": {costsRead, read, append(costFilters, "extra"), getCostsTotal},
		"add_costs":       {costsWrite, work, []string{"id_task", "time", "money", "is_rate", "comment", "date", "email_user_from"}, addCosts},
		"update_costs":    {costsWrite, work, []string{"id_costs", "time", "money", "is_rate", "comment", "date"}, updateCosts},
		"delete_costs":    {costsWrite, work, []string{"id_costs"}, deleteCosts},
		"get_timers":      {costsRead, read, nil, getTimers},
		"stop_timer":      {costsWrite, work, []string{"timer"}, stopTimer},
		"get_my_timer":    {costsRead, read, nil, getMyTimer},
		"start_my_timer":  {costsWrite, work, []string{"id_task"}, startMyTimer},
		"stop_my_timer":   {costsWrite, work, []string{"comment"}, stopMyTimer},
		"delete_my_timer": {costsWrite, work, nil, deleteMyTimer},

		"get_files": {filesRead, read, []string{"id_project", "id_task"}, getFiles},
		"download":  {filesRead, read, []string{"id_file"}, download},
		// upload_files takes files[] parts, which are not parameters.
		"upload_files": {filesWrite, work, nil, uploadFiles},

		"get_users": {usersRead, read, nil, getUsers},
		"add_user": {usersWrite, managePeople, []string{"email", "first_name", "last_name", "title", "group", "department", "role",
			"email_user_from"}, addUser},
		"get_user_groups":       {usersRead, read, nil, getUserGroups},
		"add_user_group":        {usersWrite, managePeople, []string{"title", "client", "email_user_from"}, addUserGroup},
		"get_users_schedule":    {usersRead, read, []string{"users", "datestart", "dateend"}, getUsersSchedule},
		"update_users_schedule": {usersWrite, managePeople, []string{"data", "email_user_from"}, updateUsersSchedule},

		"get_contacts": {contactsRead, read, nil, getContacts},
		"add_contact": {contactsWrite, work, []string{"email", "name", "title", "group", "phone", "phone2", "phone3", "phone4",
			"address", "address2", "email_user_from"}, addContact},
		"get_contact_groups": {contactsRead, read, nil, getContactGroups},
		"add_contact_group":  {contactsWrite, work, []string{"title", "email_user_from"}, addFolder(taskd.DirectoryStore.AddContactFolder)},

		"get_events": {admin, administrative, []string{"period", "id_project"}, getEvents},

		"get_webhooks":    {admin, administrative, nil, getWebhooks},
		"add_webhook":     {admin, administrative, []string{"url", "events", "projects", "http_user", "http_pass"}, addWebhook},
		"delete_webhook":  {admin, administrative, []string{"id"}, webhookAction(deleteWebhook)},
		"enable_webhook":  {admin, administrative, []string{"id"}, webhookAction(enableWebhook)},
		"disable_webhook": {admin, administrative, []string{"id"}, webhookAction(disableWebhook)},
	}
}

// projectOptions are the project options (spec §2.2) post_project and
// update_project take: those of logging time, the ones taskd keeps.
var projectOptions = []string{wire.OptionTimeRequire, wire.OptionTimeToday, wire.OptionTimerOnly}

// costFilters are the filters of get_costs and get_costs_total.
var costFilters = []string{"id_project", "id_task", "datestart", "dateend", "is_timer", "filter"}

// The credentials an action is limited to (spec §9): the timers of every
// person take the administrative key, and "my timer" an access token,
// whose person it is.
const (
	keyOnly    = "key"
	bearerOnly = "token"
)

var credentialOnly = map[string]string{
	"get_timers": keyOnly, "stop_timer": keyOnly,
	"get_my_timer": bearerOnly, "start_my_timer": bearerOnly, "stop_my_timer": bearerOnly, "delete_my_timer": bearerOnly,
}

// checkCredential refuses an action called with the other credential.
func (w *caller) checkCredential(name string) error {
	switch only := credentialOnly[name]; {
	case only == keyOnly && w.person != nil:
		return failf(CodeForbidden, "action", "%s takes the administrative key: it reaches every person's timers", name)
	case only == bearerOnly && w.person == nil:
		return failf(CodeForbidden, "action", "%s takes an access token: it acts on the timer of the token's user", name)
	}
	return nil
}

func ok(data any) okBody { return okBody{Status: "ok", Data: data} }

func getEvents(c *call) (any, error) {
	period, err := c.required("period")
	if err != nil {
		return nil, err
	}
	d, err := wire.ParsePeriod(period)
	if err != nil {
		return nil, err
	}
	pid, err := c.optID("id_project", CodeProjectInvalid)
	if err != nil {
		return nil, err
	}
	if pid != 0 {
		if _, err := c.store.Project(c.ctx, c.viewer(), pid); err != nil {
			return nil, err
		}
	}
	// Written as they are read (stream.go): a period of a million events
	// is never held whole.
	since := c.now().Add(-d)
	return streamBody(func(put func(any) error) error {
		return c.store.EachEvent(c.ctx, c.viewer(), since, pid, func(e taskd.StoredEvent) error {
			return put(json.RawMessage(e.JSON()))
		})
	}), nil
}
