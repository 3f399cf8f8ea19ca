package api

import (
	"context"
	"io"
	"time"

	"github.com/taskd/taskd"
)

// Store is what the account APIs read; their changes go through
// Config.Work, the directory's through Config.Directory and the webhooks'
// through Config.Hooks. Every read of an account's work takes the viewer
// and finds only what the viewer may see.
type Store interface {
	// The account and its members.
	AccountBySlug(ctx context.Context, slug string) (taskd.Account, error)
	// AccountAndProjectVersion is AccountBySlug and the key's
	// ProjectVersion of one project in one query (seen false: the key
	// sees no such project).
	AccountAndProjectVersion(ctx context.Context, slug string, projectID int64) (acct taskd.Account, version int64, seen bool, err error)
	// AccountAndOwner is AccountBySlug and Owner in one query (found
	// false: no such pair, read them apart).
	AccountAndOwner(ctx context.Context, slug string) (acct taskd.Account, owner taskd.Member, found bool, err error)
	Member(ctx context.Context, accountID, personID int64) (taskd.Member, error)
	MemberByEmail(ctx context.Context, accountID int64, email string) (taskd.Member, error)
	Members(ctx context.Context, accountID int64) ([]taskd.Member, error)
	Owner(ctx context.Context, accountID int64) (taskd.Member, error)

	// Projects, tasks and comments.
	Project(ctx context.Context, v taskd.Viewer, id int64) (taskd.Project, error)
	Projects(ctx context.Context, v taskd.Viewer, status string) ([]taskd.Project, error)
	ProjectVersion(ctx context.Context, v taskd.Viewer, projectID int64) (int64, error)
	ProjectMembers(ctx context.Context, accountID, projectID int64) ([]taskd.PersonRef, error)
	ProjectSubscribers(ctx context.Context, accountID, projectID int64) (map[int64][]taskd.PersonRef, error)
	Task(ctx context.Context, v taskd.Viewer, id int64) (taskd.Task, error)
	Tasks(ctx context.Context, q taskd.TaskQuery) ([]taskd.Task, error)
	// TaskTrees hands over BuildTree(Tasks(q)) a few trees at a time,
	// from one snapshot, for answers written as they are read.
	TaskTrees(ctx context.Context, q taskd.TaskQuery, fn func([]taskd.Task) error) error
	Comments(ctx context.Context, v taskd.Viewer, taskID int64) ([]taskd.Comment, error)
	// Relations are the tasks' relations whose both tasks v sees.
	Relations(ctx context.Context, v taskd.Viewer, taskIDs []int64) (map[int64]taskd.TaskRelations, error)
	// HiddenLists are who alone may see each task or comment (kind) of
	// the ids that v sees, each object's own list (extra=hidden).
	HiddenLists(ctx context.Context, v taskd.Viewer, kind string, ids []int64) (map[int64][]taskd.PersonRef, error)

	// Costs, timers, files, tags, custom fields and events.
	Costs(ctx context.Context, q taskd.CostQuery) ([]taskd.Cost, error)
	CostSums(ctx context.Context, q taskd.CostQuery, group string) ([]taskd.CostGroup, error)
	TimerOf(ctx context.Context, accountID, personID int64) (taskd.Timer, error)
	Timers(ctx context.Context, v taskd.Viewer) ([]taskd.Timer, error)
	File(ctx context.Context, v taskd.Viewer, id int64) (taskd.File, error)
	Files(ctx context.Context, q taskd.FileQuery) ([]taskd.File, error)
	OpenFile(ctx context.Context, f taskd.File) io.ReadCloser
	ObjectTags(ctx context.Context, v taskd.Viewer, kind string, ids []int64) (map[int64][]taskd.Tag, error)
	TagGroups(ctx context.Context, accountID int64, kind, typ, access string) ([]taskd.TagGroup, error)
	Tags(ctx context.Context, accountID int64, kind, group, typ, access string) ([]taskd.Tag, error)
	CustomFields(ctx context.Context, accountID int64, of string) ([]taskd.CustomField, error)
	FieldValues(ctx context.Context, v taskd.Viewer, of string, ids []int64) (map[int64][]taskd.FieldValue, error)
	Events(ctx context.Context, v taskd.Viewer, since time.Time, projectID int64) ([]taskd.StoredEvent, error)
	// EachEvent hands over Events one at a time, read from a cursor.
	EachEvent(ctx context.Context, v taskd.Viewer, since time.Time, projectID int64, fn func(taskd.StoredEvent) error) error
}
