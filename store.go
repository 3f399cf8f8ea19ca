package taskd

import (
	"context"
	"strconv"
	"time"
)

// StoredEvent is an outbox entry: the event's JSON body without its id, as
// written with the change, plus the columns it is selected by.
type StoredEvent struct {
	ID        int64
	AccountID int64
	ProjectID int64
	Name      string
	Time      time.Time
	Body      []byte // JSON object, without "id"
}

// JSON returns the event object with its id as the first field.
func (e StoredEvent) JSON() []byte {
	out := make([]byte, 0, len(e.Body)+24)
	out = append(out, `{"id":"`...)
	out = strconv.AppendInt(out, e.ID, 10)
	out = append(out, '"')
	if len(e.Body) > 2 {
		out = append(out, ',')
	}
	return append(out, e.Body[1:]...)
}

// TaskQuery selects the tasks of one account that its viewer sees. Zero
// fields but Viewer do not filter.
type TaskQuery struct {
	Viewer        Viewer
	ProjectID     int64
	ParentID      int64  // only the subtasks of this task
	Status        string // active or done
	AuthorEmail   string
	AssigneeEmail string
	Text          string // case-insensitive substring of name or text
	// Filter, when set, is a parsed filter of the query language.
	Filter Query
	// TaskID, when set, keeps the task and its subtasks.
	TaskID int64
	// ActiveProjects leaves out the tasks of archived projects.
	ActiveProjects bool
	Limit          int
	// Offset skips that many tasks of the list (paging).
	Offset int
	// SubscriberID, when set, keeps the tasks the person is subscribed to.
	SubscriberID int64
	// Sort orders the list: one of the Sort constants; "" is SortID.
	Sort string
	// TagID, when set, keeps the tasks that carry the tag.
	TagID int64
	// UntaggedIn, when set, keeps the tasks without a tag of this group.
	UntaggedIn int64
	// NoDateEnd keeps the tasks without a due date.
	NoDateEnd bool
}

// The orders of a task list.
const (
	SortID       = ""         // oldest first: the API's order
	SortNewest   = "newest"   // newest first
	SortTree     = "tree"     // oldest first, each subtask after its parent
	SortDue      = "due"      // soonest due first, then those without a due date
	SortPriority = "priority" // highest priority first
	SortName     = "name"     // by name, A to Z
)

// TaskCounts counts the active and done tasks a query selects.
type TaskCounts struct{ Active, Done int }

// NewAccount is an account to create together with its owner.
type NewAccount struct {
	Slug   string
	Name   string
	APIKey []byte // sealed
	Owner  NewPerson
}

// The store is split into narrow interfaces, one per family of data, in
// the manner of fosite: each consumer names what it uses (api.Store,
// oauth.Store, web.AccountStore, webhook.Store …), and one implementation, package
// store, provides them all. A family with a single consumer is declared
// by that consumer instead (ratelimit.Store, web.SessionStore). Errors are *Error:
// KindNotFound naming the object ("project", "task", "parent", "comment",
// "member", "account" …), KindConflict for duplicates and for the state
// rules (Reason), KindInvalid and KindForbidden. Every method that changes
// a project, task or comment writes its event in the same transaction.

// AccountStore keeps accounts and their settings.
type AccountStore interface {
	CreateAccount(ctx context.Context, a NewAccount) (Account, Person, error)
	AccountBySlug(ctx context.Context, slug string) (Account, error)
	// SetAPIKey replaces the account's sealed administrative key; by is
	// the person it was shown to (0: the command line), whose change of
	// trust revokes it (TrustEnded).
	SetAPIKey(ctx context.Context, accountID int64, sealed []byte, by int64) error
	// SetAccountZone sets the time zone the account's pages show times in
	// for people who chose none (an IANA name, checked by the caller).
	SetAccountZone(ctx context.Context, accountID int64, zone string) error
	// SetAccountCurrency sets the currency the account's pages show
	// beside money (a code ParseCurrency gave).
	SetAccountCurrency(ctx context.Context, accountID int64, code string) error
}

// MemberStore keeps who belongs to an account, and with which role.
type MemberStore interface {
	AddMember(ctx context.Context, accountID int64, p NewPerson, role Role) (Person, error)
	Members(ctx context.Context, accountID int64) ([]Member, error)
	Owner(ctx context.Context, accountID int64) (Member, error)
	MemberByEmail(ctx context.Context, accountID int64, email string) (Member, error)
	Member(ctx context.Context, accountID, personID int64) (Member, error)
	Memberships(ctx context.Context, personID int64) ([]Membership, error)
	// SetRole changes a member's role to admin, user, guest or reader, if
	// by may grant it (Role.MayGrant), and ends in the same transaction
	// what the old role gave beyond the new one (TrustEnded). The owner's
	// role does not change (forbidden "role"); not found ("member") for
	// anyone else who is no member.
	SetRole(ctx context.Context, by Actor, personID int64, role Role) (TrustEnded, error)
	// RemoveMember ends a membership; the person's tasks stay, assigned
	// to nobody, and everything the membership gave them ends in the same
	// transaction (TrustEnded). The owner cannot be removed.
	RemoveMember(ctx context.Context, by Actor, personID int64) (TrustEnded, error)
}

// PasswordChange is a new password and what its change ends beside the
// person's sessions and links (each offered, ticked, on the profile).
type PasswordChange struct {
	Hash string // the new password's hash (a secret.Hasher)
	// EndGrants ends every authorization of an application the person
	// gave, in every account.
	EndGrants bool
	// EndFeed ends the secret of their calendar feed: its address stops
	// working.
	EndFeed bool
}

// PasswordEnded is what a password change ended beside sessions and links.
type PasswordEnded struct {
	Grants int  // authorizations of applications
	Feed   bool // the calendar feed's secret
}

// PersonStore keeps people: who they are, their password and profile.
type PersonStore interface {
	PersonByEmail(ctx context.Context, email string) (Person, error)
	PersonByID(ctx context.Context, id int64) (Person, error)
	// SetPassword changes a person's password hash, and ends every
	// session and every reset or e-mail link of theirs, and what the
	// change asks to end beside them; it says what ended.
	SetPassword(ctx context.Context, personID int64, c PasswordChange) (PasswordEnded, error)
	// SetProfile changes a person's names and profile.
	SetProfile(ctx context.Context, personID int64, first, last string, p Profile) (Person, error)
}

// ProjectStore keeps projects.
type ProjectStore interface {
	// Projects lists the projects the viewer sees, optionally of one
	// status.
	Projects(ctx context.Context, v Viewer, status string) ([]Project, error)
	// Project is not found ("project") unless the viewer sees it.
	Project(ctx context.Context, v Viewer, id int64) (Project, error)
	CreateProject(ctx context.Context, by Actor, in ProjectInput) (Project, error)
	UpdateProject(ctx context.Context, by Actor, id int64, in ProjectInput) (Project, error)
	SetProjectStatus(ctx context.Context, by Actor, id int64, status string) (Project, error)
	// ProjectProgress sums, per project the viewer sees that has tasks,
	// the tasks (and subtasks) the viewer sees.
	ProjectProgress(ctx context.Context, v Viewer) (map[int64]Progress, error)
}

// TaskStore keeps tasks and subtasks.
type TaskStore interface {
	Tasks(ctx context.Context, q TaskQuery) ([]Task, error)
	// CountTasks counts the tasks of the query by status, whatever its
	// Status, Limit and Offset.
	CountTasks(ctx context.Context, q TaskQuery) (TaskCounts, error)
	// ProjectVersion increases with every change to the project's tasks;
	// not found ("project") unless the viewer sees the project.
	ProjectVersion(ctx context.Context, v Viewer, projectID int64) (int64, error)
	// Task is not found ("task") unless the viewer sees it.
	Task(ctx context.Context, v Viewer, id int64) (Task, error)
	CreateTask(ctx context.Context, by Actor, projectID, parentID int64, in TaskInput) (Task, error)
	UpdateTask(ctx context.Context, by Actor, id int64, in TaskInput) (Task, error)
	CompleteTask(ctx context.Context, by Actor, id int64) (Task, error)
	ReopenTask(ctx context.Context, by Actor, id int64) (Task, error)
	DeleteTask(ctx context.Context, by Actor, id int64) error
}

// CommentStore keeps comments on tasks.
type CommentStore interface {
	// Comments lists the task's comments the viewer sees; not found
	// ("task") unless the viewer sees the task.
	Comments(ctx context.Context, v Viewer, taskID int64) ([]Comment, error)
	// Comment is not found ("comment") unless the viewer sees it.
	Comment(ctx context.Context, v Viewer, id int64) (Comment, error)
	CreateComment(ctx context.Context, by Actor, taskID int64, text string) (Comment, error)
	// PostComment creates a comment with what CommentInput holds (who
	// alone sees it, its files) in one transaction.
	PostComment(ctx context.Context, by Actor, taskID int64, in CommentInput) (Comment, error)
	UpdateComment(ctx context.Context, by Actor, id int64, text string) (Comment, error)
	DeleteComment(ctx context.Context, by Actor, id int64) error
}

// EventStore reads the outbox of events the changes wrote.
type EventStore interface {
	// Events lists every event since the time that the viewer sees,
	// oldest first, optionally of one project only.
	Events(ctx context.Context, v Viewer, since time.Time, projectID int64) ([]StoredEvent, error)
}
