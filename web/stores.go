package web

import (
	"context"
	"io"

	"github.com/taskd/taskd"
)

// The pages name what they use of the store by topic, each in a small
// interface; one *store.DB serves them all (server/routes.go). Every
// change to projects, tasks, comments, costs, timers, tags and files goes
// through Config.Work instead, and the webhook changes through
// Config.Hooks.

// ReadStore is what an account's pages show. Every read takes the viewer
// and finds only what the viewer may see.
type ReadStore interface {
	Project(ctx context.Context, v taskd.Viewer, id int64) (taskd.Project, error)
	Projects(ctx context.Context, v taskd.Viewer, status string) ([]taskd.Project, error)
	ProjectProgress(ctx context.Context, v taskd.Viewer) (map[int64]taskd.Progress, error)
	Task(ctx context.Context, v taskd.Viewer, id int64) (taskd.Task, error)
	Tasks(ctx context.Context, q taskd.TaskQuery) ([]taskd.Task, error)
	CountTasks(ctx context.Context, q taskd.TaskQuery) (taskd.TaskCounts, error)
	Comment(ctx context.Context, v taskd.Viewer, id int64) (taskd.Comment, error)
	Comments(ctx context.Context, v taskd.Viewer, taskID int64) ([]taskd.Comment, error)
	Cost(ctx context.Context, v taskd.Viewer, id int64) (taskd.Cost, error)
	Costs(ctx context.Context, q taskd.CostQuery) ([]taskd.Cost, error)
	CostSums(ctx context.Context, q taskd.CostQuery, group string) ([]taskd.CostGroup, error)
	TimerOf(ctx context.Context, accountID, personID int64) (taskd.Timer, error)
	File(ctx context.Context, v taskd.Viewer, id int64) (taskd.File, error)
	Files(ctx context.Context, q taskd.FileQuery) ([]taskd.File, error)
	OpenFile(ctx context.Context, f taskd.File) io.ReadCloser
	ObjectTags(ctx context.Context, v taskd.Viewer, kind string, ids []int64) (map[int64][]taskd.Tag, error)
	TagGroups(ctx context.Context, accountID int64, kind, typ, access string) ([]taskd.TagGroup, error)
	Tags(ctx context.Context, accountID int64, kind, group, typ, access string) ([]taskd.Tag, error)
	TagUse(ctx context.Context, v taskd.Viewer, kind string) (map[int64]int, error)
	CustomFields(ctx context.Context, accountID int64, of string) ([]taskd.CustomField, error)
	FieldValues(ctx context.Context, v taskd.Viewer, of string, ids []int64) (map[int64][]taskd.FieldValue, error)
	ProjectMembers(ctx context.Context, accountID, projectID int64) ([]taskd.PersonRef, error)
	Subscribers(ctx context.Context, accountID, taskID int64) ([]taskd.PersonRef, error)
	RelationReads
}

// AccountStore is what the pages read and change of accounts, their
// members and people: settings, roles, passwords, profiles, the one-time
// links of mail, and whether a person wants task notifications.
type AccountStore interface {
	taskd.AccountStore
	taskd.MemberStore
	taskd.PersonStore
	taskd.LinkStore
	SetNotify(ctx context.Context, personID int64, on bool) error
}

// AppStore keeps the OAuth applications of an account and the
// authorizations people gave them.
type AppStore interface {
	taskd.ClientStore
	taskd.GrantStore
}
