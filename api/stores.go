package api

import (
	"context"
	"time"

	"github.com/taskd/taskd"
)

// Store is what the account APIs read and change: the root's families
// of a team's work, whose implementation holds their rules (who may do
// what, the state rules, the event written with each change), and the
// reads made for the API's answers. The directory goes through
// Config.Directory and the webhooks through Config.Hooks. Every read of
// an account's work takes the viewer and finds only what the viewer may
// see.
type Store interface {
	taskd.ProjectStore
	taskd.ProjectTeamStore
	taskd.TaskStore
	taskd.CommentStore
	taskd.CostStore
	taskd.TagStore
	taskd.CustomFieldStore
	taskd.FileStore
	taskd.RelationStore

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

	// Task trees and hidden lists, for the answers.
	// TaskTrees hands over BuildTree(Tasks(q)) a few trees at a time,
	// from one snapshot, for answers written as they are read.
	TaskTrees(ctx context.Context, q taskd.TaskQuery, fn func([]taskd.Task) error) error
	// HiddenLists are who alone may see each task or comment (kind) of
	// the ids that v sees, each object's own list (extra=hidden).
	HiddenLists(ctx context.Context, v taskd.Viewer, kind string, ids []int64) (map[int64][]taskd.PersonRef, error)

	// Events.
	Events(ctx context.Context, v taskd.Viewer, since time.Time, projectID int64) ([]taskd.StoredEvent, error)
	// EachEvent hands over Events one at a time, read from a cursor.
	EachEvent(ctx context.Context, v taskd.Viewer, since time.Time, projectID int64, fn func(taskd.StoredEvent) error) error
}
