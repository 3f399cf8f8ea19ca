package importer

import (
	"context"
	"io"

	"github.com/taskd/taskd"
)

// Store is what the importer reads and changes of the destination, by
// topic: the same families of the store, and so the same use cases and
// rules, as the API and the pages change, with the import's own records
// beside them (taskd.ImportStore). Package store implements it; the
// composition root (cmd/taskd) hands it over.
type Store interface {
	MemberStore
	DirectoryStore
	WorkStore
	taskd.ImportStore
}

// MemberStore is who belongs to the destination account, and who is
// invited to it.
type MemberStore interface {
	Owner(ctx context.Context, accountID int64) (taskd.Member, error)
	Members(ctx context.Context, accountID int64) ([]taskd.Member, error)
	PersonByEmail(ctx context.Context, email string) (taskd.Person, error)
	AddMember(ctx context.Context, accountID int64, np taskd.NewPerson, role taskd.Role) (taskd.Person, error)
	Invite(ctx context.Context, in taskd.InviteInput) (taskd.Invitation, error)
	AccountInvitations(ctx context.Context, accountID int64) ([]taskd.Invitation, error)
}

// DirectoryStore is the destination's directory: teams, who is on them,
// contacts and folders (contacts are made by
// taskd.ImportStore.AddImportedContact).
type DirectoryStore interface {
	AddTeam(ctx context.Context, by taskd.Actor, title string, client bool) (taskd.Team, error)
	SetMemberTeam(ctx context.Context, by taskd.Actor, personID int64, team string) error
	AddContactFolder(ctx context.Context, by taskd.Actor, title string) (taskd.Folder, error)
	UpdateContact(ctx context.Context, by taskd.Actor, c taskd.Contact) (taskd.Contact, error)
	AddProjectFolder(ctx context.Context, by taskd.Actor, title string) (taskd.Folder, error)
}

// WorkStore is the team's work the importer makes and changes: projects
// (taskd.ProjectStore), tasks (taskd.TaskStore, who follows them and who
// sees them), dependencies, comments (taskd.CommentStore), cost lines
// (taskd.CostStore), tags (taskd.TagStore) and files (taskd.FileStore),
// each change the one its front ends make.
type WorkStore interface {
	Project(ctx context.Context, v taskd.Viewer, id int64) (taskd.Project, error)
	CreateProject(ctx context.Context, by taskd.Actor, in taskd.ProjectInput) (taskd.Project, error)
	UpdateProject(ctx context.Context, by taskd.Actor, id int64, in taskd.ProjectInput) (taskd.Project, error)
	SetProjectStatus(ctx context.Context, by taskd.Actor, id int64, status string) (taskd.Project, error)

	Task(ctx context.Context, v taskd.Viewer, id int64) (taskd.Task, error)
	CreateTask(ctx context.Context, by taskd.Actor, projectID, parentID int64, in taskd.TaskInput) (taskd.Task, error)
	UpdateTask(ctx context.Context, by taskd.Actor, id int64, in taskd.TaskInput) (taskd.Task, error)
	CompleteTask(ctx context.Context, by taskd.Actor, id int64) (taskd.Task, error)
	ReopenTask(ctx context.Context, by taskd.Actor, id int64) (taskd.Task, error)
	Subscribe(ctx context.Context, by taskd.Actor, taskID int64, email string, on bool) error
	// SetViewers replaces who alone sees a task or comment (kind "task"
	// or "comment"), by e-mail; none: all who see its project.
	SetViewers(ctx context.Context, by taskd.Actor, kind string, id int64, emails []string) error
	// AddRelation makes r.To depend on r.From (add_task_relation's use
	// case); DeleteRelation removes the relation between two tasks.
	AddRelation(ctx context.Context, by taskd.Actor, r taskd.Relation) error
	DeleteRelation(ctx context.Context, by taskd.Actor, fromID, toID int64) error

	PostComment(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CommentInput) (taskd.Comment, error)
	UpdateComment(ctx context.Context, by taskd.Actor, id int64, text string) (taskd.Comment, error)

	AddCost(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CostInput) (taskd.Cost, error)
	UpdateCost(ctx context.Context, by taskd.Actor, id int64, in taskd.CostInput) (taskd.Cost, error)

	AddTagGroups(ctx context.Context, by taskd.Actor, kind, typ, access string, titles []string) ([]taskd.TagGroup, error)
	AddTags(ctx context.Context, by taskd.Actor, kind, group string, titles []string) ([]taskd.Tag, error)
	SortTagGroups(ctx context.Context, by taskd.Actor, kind string, order []string) ([]taskd.TagGroup, error)
	SortTags(ctx context.Context, by taskd.Actor, kind, group string, order []string) ([]taskd.Tag, error)

	CreateFile(ctx context.Context, by taskd.Actor, name, contentType string, r io.Reader, limits taskd.FileLimits) (taskd.File, error)
	DeleteFile(ctx context.Context, by taskd.Actor, id int64) error
}
