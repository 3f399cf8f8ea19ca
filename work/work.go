// Package work is the one use-case layer of the changes to a team's work:
// creating, changing and deleting projects, tasks, comments, cost lines,
// timers, tags, custom fields, subscriptions and files. The account API and the pages
// both call it, translating parameters or forms into its inputs and its
// answers into JSON or pages; neither changes the store by itself.
//
// There is one service per family. Each checks what the domain decides
// (package taskd: who may do what, the rules of state) and makes the
// change in the store, in one transaction: an object and its files
// together, with its event and its notifications, whose words the domain
// writes (taskd.NoticeCreated and the others). What the actor may not see
// is not found, as in every read (taskd.Viewer).
package work

import (
	"context"
	"io"
	"time"

	"github.com/taskd/taskd"
)

// Store is what the services change: the store's writes.
type Store interface {
	CreateProject(ctx context.Context, by taskd.Actor, in taskd.ProjectInput) (taskd.Project, error)
	UpdateProject(ctx context.Context, by taskd.Actor, id int64, in taskd.ProjectInput) (taskd.Project, error)
	SetProjectStatus(ctx context.Context, by taskd.Actor, id int64, status string) (taskd.Project, error)
	SetProjectMembers(ctx context.Context, by taskd.Actor, projectID int64, emails []string, add bool) (taskd.TrustEnded, error)

	CreateTask(ctx context.Context, by taskd.Actor, projectID, parentID int64, in taskd.TaskInput) (taskd.Task, error)
	UpdateTask(ctx context.Context, by taskd.Actor, id int64, in taskd.TaskInput) (taskd.Task, error)
	CompleteTask(ctx context.Context, by taskd.Actor, id int64) (taskd.Task, error)
	ReopenTask(ctx context.Context, by taskd.Actor, id int64) (taskd.Task, error)
	DeleteTask(ctx context.Context, by taskd.Actor, id int64) error
	Subscribe(ctx context.Context, by taskd.Actor, taskID int64, email string, on bool) error
	AddRelation(ctx context.Context, by taskd.Actor, r taskd.Relation) error
	DeleteRelation(ctx context.Context, by taskd.Actor, fromID, toID int64) error
	ShiftDependents(ctx context.Context, by taskd.Actor, taskID int64, days int) ([]taskd.Task, error)

	PostComment(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CommentInput) (taskd.Comment, error)
	UpdateComment(ctx context.Context, by taskd.Actor, id int64, text string) (taskd.Comment, error)
	DeleteComment(ctx context.Context, by taskd.Actor, id int64) error

	AddCost(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CostInput) (taskd.Cost, error)
	UpdateCost(ctx context.Context, by taskd.Actor, id int64, in taskd.CostInput) (taskd.Cost, error)
	DeleteCost(ctx context.Context, by taskd.Actor, id int64) error
	SetRate(ctx context.Context, by taskd.Actor, personID int64, rate *int64) error
	StartTimer(ctx context.Context, by taskd.Actor, taskID int64, zone *time.Location) (taskd.Timer, *taskd.Cost, error)
	StopTimer(ctx context.Context, by taskd.Actor, timerID int64, comment string, zone *time.Location) (taskd.Cost, error)
	DeleteTimer(ctx context.Context, by taskd.Actor) error

	AddTagGroups(ctx context.Context, by taskd.Actor, kind, typ, access string, titles []string) ([]taskd.TagGroup, error)
	AddTags(ctx context.Context, by taskd.Actor, kind, group string, titles []string) ([]taskd.Tag, error)
	SetTags(ctx context.Context, by taskd.Actor, kind string, objectID int64, plus, minus []string) error
	RenameTagGroup(ctx context.Context, by taskd.Actor, kind, group, title string) (taskd.TagGroup, error)
	RenameTag(ctx context.Context, by taskd.Actor, kind, tag, title string) (taskd.Tag, error)
	SortTagGroups(ctx context.Context, by taskd.Actor, kind string, order []string) ([]taskd.TagGroup, error)
	SortTags(ctx context.Context, by taskd.Actor, kind, group string, order []string) ([]taskd.Tag, error)
	DeleteTag(ctx context.Context, by taskd.Actor, kind, tag string, d taskd.TagDeletion) error
	DeleteTagGroup(ctx context.Context, by taskd.Actor, kind, group string) error

	AddCustomField(ctx context.Context, by taskd.Actor, f taskd.CustomField) (taskd.CustomField, error)
	UpdateCustomField(ctx context.Context, by taskd.Actor, f taskd.CustomField) (taskd.CustomField, error)
	DeleteCustomField(ctx context.Context, by taskd.Actor, id int64) error

	CreateFile(ctx context.Context, by taskd.Actor, name, contentType string, r io.Reader, limits taskd.FileLimits) (taskd.File, error)
	AttachFiles(ctx context.Context, by taskd.Actor, ids []int64, owner string, ownerID int64) error
	DeleteFile(ctx context.Context, by taskd.Actor, id int64) error
}

// Services are the use cases, one service per family.
type Services struct {
	Projects *Projects
	Tasks    *Tasks
	Comments *Comments
	Costs    *Costs
	Tags     *Tags
	Fields   *Fields
	Files    *Files
}

// New makes the services on a store; files are kept within the limits.
func New(s Store, limits taskd.FileLimits) *Services {
	return &Services{
		Projects: &Projects{store: s},
		Tasks:    &Tasks{store: s},
		Comments: &Comments{store: s},
		Costs:    &Costs{store: s},
		Tags:     &Tags{store: s},
		Fields:   &Fields{store: s},
		Files:    &Files{store: s, limits: limits},
	}
}
