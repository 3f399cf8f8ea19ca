// Package storetest is the conformance suite of the store, and the one
// home of its tests: what an interface shows (a family of the root,
// taskd.AccountStore … taskd.RelationStore, or one a consumer declares,
// such as ratelimit.Store or web.SessionStore) is tested here, as a case
// through that interface, and store/*_test.go tests only what no interface
// shows (migrations, the dialect, ids, retries, resealing, backups and
// restores, private helpers, benchmarks).
//
// Every case runs against real databases, SQLite and PostgreSQL: see Run.
package storetest

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/ratelimit"
)

// Clock is a controllable clock for stores under test.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Store is every interface the store implements.
type Store interface {
	taskd.AccountStore
	taskd.MemberStore
	taskd.ProjectStore
	taskd.TaskStore
	taskd.CommentStore
	taskd.EventStore
	taskd.ClientStore
	taskd.GrantStore
	taskd.SigningKeyStore
	taskd.WebhookStore
	taskd.DeliveryStore
	taskd.InvitationStore
	taskd.MailStore
	taskd.LinkStore
	taskd.DirectoryStore
	taskd.ProjectTeamStore
	taskd.PersonStore
	taskd.NotificationStore
	taskd.HiddenStore
	taskd.TagStore
	taskd.CostStore
	taskd.FileStore
	taskd.CustomFieldStore
	taskd.RelationStore
	ratelimit.Store

	// What the API reads before a get_tasks call with the key (api.Store):
	// the account and the project's version, in one query.
	AccountAndProjectVersion(ctx context.Context, slug string, projectID int64) (acct taskd.Account, version int64, seen bool, err error)

	// The hidden lists of tasks and comments, read for extra=hidden
	// (api.Store, their only consumer), and who sees a task or a
	// comment, set whole by the import (importer.Store).
	HiddenLists(ctx context.Context, v taskd.Viewer, kind string, ids []int64) (map[int64][]taskd.PersonRef, error)
	SetViewers(ctx context.Context, by taskd.Actor, kind string, id int64, emails []string) error

	// The directory's changes that only the import makes (importer.Store,
	// their only consumer): a contact changed whole, a member's team.
	UpdateContact(ctx context.Context, by taskd.Actor, c taskd.Contact) (taskd.Contact, error)
	SetMemberTeam(ctx context.Context, by taskd.Actor, personID int64, team string) error

	// The pages' sessions: web.SessionStore, which the pages declare as
	// its only consumer.
	CreateSession(ctx context.Context, hash string, personID int64, expires time.Time) error
	SessionPerson(ctx context.Context, hash string) (taskd.Person, error)
	DeleteSession(ctx context.Context, hash string) error
}

// Fixture is a store with one account whose owner acts.
type Fixture struct {
	Store   Store
	Clock   *Clock
	Account taskd.Account
	Owner   taskd.Actor
}

// NewAccount creates a fresh account with a unique slug in s.
func NewAccount(t testing.TB, s taskd.AccountStore, prefix string) (taskd.Account, taskd.Actor) {
	t.Helper()
	slug := testaccount.UniqueSlug(prefix)
	a := testaccount.New(t, s, testaccount.Options{Slug: slug, Name: "Acme " + slug})
	return a.Account, a.Actor()
}

// NewestEventID is the id of the account's newest event, as the account
// sees it.
func NewestEventID(t testing.TB, s taskd.EventStore, accountID int64) int64 {
	t.Helper()
	evs, err := s.Events(context.Background(), taskd.AccountViewer(accountID), time.Time{}, 0)
	if err != nil || len(evs) == 0 {
		t.Fatalf("events: %v %v", evs, err)
	}
	return evs[len(evs)-1].ID
}

// Run runs the suite, every case in parallel on a fresh store: open
// returns one using the given clock.
func Run(t *testing.T, open func(t *testing.T, now func() time.Time) Store) {
	setup := func(t *testing.T) *Fixture {
		clock := NewClock(time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC))
		s := open(t, clock.Now)
		a, owner := NewAccount(t, s, "acme")
		return &Fixture{Store: s, Clock: clock, Account: a, Owner: owner}
	}
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *Fixture)
	}{
		{"Accounts", testAccounts},
		{"ProjectLifecycle", testProjects},
		{"TaskRules", testTaskRules},
		{"TaskTreeAndQueries", testTaskQueries},
		{"ThreeLevels", testThreeLevels},
		{"TaskListing", testTaskListing},
		{"ProjectProgress", testProjectProgress},
		{"ProjectVersion", testProjectVersion},
		{"Comments", testComments},
		{"Events", testEvents},
		{"TenantIsolation", testIsolation},
		{"ConcurrentWriters", testConcurrentWriters},
		{"WritesNeedWork", testWritesNeedWork},
		{"Clients", testClients},
		{"Grants", testGrants},
		{"SigningKeysAndSessions", testKeysAndSessions},
		{"Webhooks", testWebhooks},
		{"WebhookLeases", testWebhookLeases},
		{"WebhookWork", testWebhookWork},
		{"WebhookQueues", testWebhookQueues},
		{"QueuedExpiry", testQueuedExpiry},
		{"HeldEvents", testHeldEvents},
		{"Invitations", testInvitations},
		{"Links", testLinks},
		{"People", testPeople},
		{"TrustChanges", testTrustChanges},
		{"CredentialChanges", testCredentialChanges},
		{"Notifications", testNotifications},
		{"RateCounts", testRateCounts},
		{"Costs", testCosts},
		{"ProjectOptions", testProjectOptions},
		{"Schedules", testSchedules},
		{"HiddenCosts", testHiddenCosts},
		{"SeenEvents", testSeenEvents},
		{"Timers", testTimers},
		{"Budgets", testBudgets},
		{"CostTotalsExact", testCostTotalsExact},
		{"Files", testFiles},
		{"ObjectsAndTheirFilesAreOne", testObjectsAndTheirFilesAreOne},
		{"CustomFields", testCustomFields},
		{"FieldValues", testFieldValues},
		{"FieldFilters", testFieldFilters},
		{"MailOutbox", testMailOutbox},
		{"TagOrder", testTagOrder},
		{"TagRenames", testTagRenames},
		{"TagDeletions", testTagDeletions},
		{"CalendarFeeds", testCalendarFeeds},
		{"ActivityProjects", testActivityProjects},
		{"ActivityPages", testActivityPages},
		{"RelationRules", testRelationRules},
		{"RelationVisibility", testRelationVisibility},
		{"RelationsWho", testRelationsWho},
		{"ShiftDependents", testShiftDependents},
		{"ShiftKeepsTheDateRule", testShiftKeepsTheDateRule},
		{"EveryDateWriteKeepsTheRule", testEveryDateWriteKeepsTheRule},
		{"DirectoryChanges", testDirectoryChanges},
		{"NewTaskSubscribersAndEventViewers", testNewTaskSubscribersAndEventViewers},
		{"HiddenLists", testHiddenLists},
		{"SetViewers", testSetViewers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // a fresh database and clock of its own
			tc.fn(t, setup(t))
		})
	}
}

// want checks err's kind and, when field is set, the field it names.
func want(t *testing.T, err error, kind taskd.Kind, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a %s error, got success", kind)
	}
	if e := taskd.AsError(err); e.Kind != kind || (field != "" && e.Field != field) {
		t.Fatalf("want a %s error naming %q, got %v", kind, field, err)
	}
}

// wantConflict checks that err is a conflict over the rule.
func wantConflict(t *testing.T, err error, rule taskd.Reason) {
	t.Helper()
	if e := taskd.AsError(err); err == nil || e.Kind != taskd.KindConflict || e.Reason != rule {
		t.Fatalf("want a conflict (reason %d), got %v", rule, err)
	}
}

// must returns v, failing the test when err is set: must(s.Task(…))(t).
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		noErr(t, err)
		return v
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func testAccounts(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	_, _, err := s.CreateAccount(ctx, taskd.NewAccount{Slug: f.Account.Slug, Name: "dup", APIKey: []byte("k"),
		Owner: taskd.NewPerson{Email: "other-" + f.Account.Slug + "@example.com", PasswordHash: "x"}})
	want(t, err, taskd.KindConflict, "")
	// The failed creation left no person behind.
	_, err = s.PersonByEmail(ctx, "other-"+f.Account.Slug+"@example.com")
	want(t, err, taskd.KindNotFound, "")

	got := must(s.AccountBySlug(ctx, f.Account.Slug))(t)
	if got.ID != f.Account.ID || string(got.APIKey) != "sealed" {
		t.Fatalf("AccountBySlug = %+v", got)
	}
	_, err = s.AccountBySlug(ctx, "no-such-account")
	want(t, err, taskd.KindNotFound, "account")
	noErr(t, s.SetAPIKey(ctx, f.Account.ID, []byte("new"), 0))
	if got := must(s.AccountBySlug(ctx, f.Account.Slug))(t); string(got.APIKey) != "new" {
		t.Fatalf("api key not replaced: %q", got.APIKey)
	}
	// A new account counts in the default currency until it chooses one.
	if got.Currency != taskd.DefaultCurrency || f.Account.Currency != taskd.DefaultCurrency {
		t.Fatalf("currency of a new account: %q, as created %q", got.Currency, f.Account.Currency)
	}
	noErr(t, s.SetAccountCurrency(ctx, f.Account.ID, "UAH"))
	if got := must(s.AccountBySlug(ctx, f.Account.Slug))(t); got.Currency != "UAH" {
		t.Fatalf("currency not set: %q", got.Currency)
	}
	want(t, s.SetAccountCurrency(ctx, 1<<40, "EUR"), taskd.KindNotFound, "account")

	email := "bob-" + f.Account.Slug + "@example.com"
	bob := must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: email, PasswordHash: "h", FirstName: "Bob"}, taskd.RoleUser))(t)
	if bob.ID < taskd.FirstPersonID {
		t.Fatalf("person id %d collides with pseudo-people", bob.ID)
	}
	_, err = s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: email, PasswordHash: "h"}, taskd.RoleUser)
	want(t, err, taskd.KindConflict, "")
	members := must(s.Members(ctx, f.Account.ID))(t)
	if len(members) != 2 || members[0].Role != taskd.RoleOwner || members[1].Email != email || members[1].Role != taskd.RoleUser {
		t.Fatalf("members = %+v", members)
	}
	if o := must(s.Owner(ctx, f.Account.ID))(t); o.ID != f.Owner.Person.ID {
		t.Fatalf("owner = %+v", o)
	}
	// The same person joins a second account.
	other, _ := NewAccount(t, s, "second")
	again := must(s.AddMember(ctx, other.ID, taskd.NewPerson{Email: email, PasswordHash: "ignored"}, taskd.RoleAdmin))(t)
	if again.ID != bob.ID {
		t.Fatalf("second membership made a new person: %d != %d", again.ID, bob.ID)
	}
}

func testProjects(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p := must(s.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Launch"), Text: new("Plan"), DateStart: new("2026-03-01"), DateEnd: new("2026-04-01")}))(t)
	if p.ID == 0 || p.Status != taskd.ProjectActive || p.Author.ID != by.Person.ID || p.Manager != taskd.Nobody {
		t.Fatalf("created project = %+v", p)
	}
	_, err := s.CreateProject(ctx, by, taskd.ProjectInput{Name: new("x"), ManagerEmail: new("stranger@example.com")})
	want(t, err, taskd.KindNotFound, "")
	_, err = s.CreateProject(ctx, by, taskd.ProjectInput{Name: new("x"), DateStart: new("2026-05-01"), DateEnd: new("2026-04-01")})
	want(t, err, taskd.KindInvalid, "")

	u := must(s.UpdateProject(ctx, by, p.ID, taskd.ProjectInput{Name: new("Launch v2"), ManagerEmail: new(by.Person.Email)}))(t)
	if u.Name != "Launch v2" || u.Manager.ID != by.Person.ID || u.Text != "Plan" {
		t.Fatalf("updated project = %+v", u)
	}
	closed := must(s.SetProjectStatus(ctx, by, p.ID, taskd.ProjectArchive))(t)
	if closed.Status != taskd.ProjectArchive || closed.DateClosed.IsZero() {
		t.Fatalf("closed project = %+v", closed)
	}
	_, err = s.SetProjectStatus(ctx, by, p.ID, taskd.ProjectArchive)
	wantConflict(t, err, taskd.ReasonAlreadyInState)
	_, err = s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("t")})
	wantConflict(t, err, taskd.ReasonProjectArchived)
	if list := must(s.Projects(ctx, taskd.AccountViewer(by.AccountID), taskd.ProjectActive))(t); len(list) != 0 {
		t.Fatalf("active projects = %+v", list)
	}
	must(s.SetProjectStatus(ctx, by, p.ID, taskd.ProjectActive))(t)
	list := must(s.Projects(ctx, taskd.AccountViewer(by.AccountID), ""))(t)
	if len(list) != 1 || list[0].Name != "Launch v2" || list[0].Status != taskd.ProjectActive {
		t.Fatalf("projects = %+v", list)
	}
	_, err = s.Project(ctx, taskd.AccountViewer(by.AccountID), p.ID+1000)
	want(t, err, taskd.KindNotFound, "project")
	_, err = s.UpdateProject(ctx, by, p.ID+1000, taskd.ProjectInput{Name: new("x")})
	want(t, err, taskd.KindNotFound, "project")
}

func newProject(t *testing.T, f *Fixture) taskd.Project {
	t.Helper()
	return must(f.Store.CreateProject(context.Background(), f.Owner, taskd.ProjectInput{Name: new("P")}))(t)
}

func testTaskRules(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p := newProject(t, f)
	parent := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Parent"), Priority: new(7), AssigneeEmail: new("ANY")}))(t)
	if parent.Priority != 7 || parent.Assignee != taskd.Anyone || parent.Page() != fmt.Sprintf("/project/%d/%d/", p.ID, parent.ID) {
		t.Fatalf("parent = %+v", parent)
	}
	child := must(s.CreateTask(ctx, by, p.ID, parent.ID, taskd.TaskInput{Name: new("Child")}))(t)
	if child.Page() != fmt.Sprintf("/project/%d/%d/%d/", p.ID, parent.ID, child.ID) {
		t.Fatalf("child page = %s", child.Page())
	}
	grandchild := must(s.CreateTask(ctx, by, p.ID, child.ID, taskd.TaskInput{Name: new("Grandchild")}))(t)
	_, err := s.CreateTask(ctx, by, p.ID, grandchild.ID, taskd.TaskInput{Name: new("Great-grandchild")})
	want(t, err, taskd.KindInvalid, "parent")
	noErr(t, s.DeleteTask(ctx, by, grandchild.ID))
	other := newProject(t, f)
	_, err = s.CreateTask(ctx, by, other.ID, parent.ID, taskd.TaskInput{Name: new("x")})
	want(t, err, taskd.KindInvalid, "parent")
	_, err = s.CreateTask(ctx, by, p.ID+999, 0, taskd.TaskInput{Name: new("x")})
	want(t, err, taskd.KindNotFound, "project")

	_, err = s.CompleteTask(ctx, by, parent.ID)
	wantConflict(t, err, taskd.ReasonOpenSubtasks)
	_, err = s.ReopenTask(ctx, by, child.ID)
	wantConflict(t, err, taskd.ReasonAlreadyInState)
	must(s.CompleteTask(ctx, by, child.ID))(t)
	_, err = s.CompleteTask(ctx, by, child.ID)
	wantConflict(t, err, taskd.ReasonAlreadyInState)
	done := must(s.CompleteTask(ctx, by, parent.ID))(t)
	if done.Status != taskd.StatusDone || done.DateClosed.IsZero() {
		t.Fatalf("done = %+v", done)
	}
	_, err = s.ReopenTask(ctx, by, child.ID)
	wantConflict(t, err, taskd.ReasonParentDone)
	_, err = s.CreateTask(ctx, by, p.ID, parent.ID, taskd.TaskInput{Name: new("late")})
	wantConflict(t, err, taskd.ReasonTaskClosed)
	must(s.ReopenTask(ctx, by, parent.ID))(t)
	must(s.ReopenTask(ctx, by, child.ID))(t)

	u := must(s.UpdateTask(ctx, by, child.ID, taskd.TaskInput{Name: new("Child 2"), DateStart: new("2026-01-02"), AssigneeEmail: new(by.Person.Email)}))(t)
	if u.Name != "Child 2" || u.DateStart != "2026-01-02" || u.Assignee.ID != by.Person.ID || u.Priority != 1 {
		t.Fatalf("updated = %+v", u)
	}
	_, err = s.UpdateTask(ctx, by, child.ID, taskd.TaskInput{AssigneeEmail: new("nobody@example.com")})
	want(t, err, taskd.KindNotFound, "")
	_, err = s.UpdateTask(ctx, by, child.ID+1000, taskd.TaskInput{Name: new("x")})
	want(t, err, taskd.KindNotFound, "task")

	noErr(t, s.DeleteTask(ctx, by, parent.ID))
	_, err = s.Task(ctx, taskd.AccountViewer(by.AccountID), child.ID)
	want(t, err, taskd.KindNotFound, "task")
	want(t, s.DeleteTask(ctx, by, parent.ID), taskd.KindNotFound, "task")
}

// testProjectVersion checks that every change to a project's tasks raises
// its version, which keys the cached task lists, and that a change in
// another project or one that changes nothing leaves it alone.
func testProjectVersion(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p, other := newProject(t, f), newProject(t, f)
	version := func() int64 {
		t.Helper()
		v := must(s.ProjectVersion(ctx, taskd.AccountViewer(by.AccountID), p.ID))(t)
		// The API's one query reads the same version with the account.
		acct, kv, seen, err := s.AccountAndProjectVersion(ctx, f.Account.Slug, p.ID)
		noErr(t, err)
		if acct.ID != f.Account.ID || acct.Name != f.Account.Name || subtle.ConstantTimeCompare(acct.APIKey, f.Account.APIKey) != 1 || !seen || kv != v {
			t.Fatalf("AccountAndProjectVersion = %+v, %d, %v; want account %d, version %d", acct, kv, seen, f.Account.ID, v)
		}
		return v
	}
	last := version()
	step := func(name string, change func() error, raises bool) {
		t.Helper()
		noErr(t, change())
		v := version()
		if raises && v <= last || !raises && v != last {
			t.Fatalf("%s: version %d after %d (should rise: %v)", name, v, last, raises)
		}
		last = v
	}
	var task, sub taskd.Task
	step("post", func() (err error) {
		task, err = s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("T")})
		return err
	}, true)
	step("post subtask", func() (err error) {
		sub, err = s.CreateTask(ctx, by, p.ID, task.ID, taskd.TaskInput{Name: new("S")})
		return err
	}, true)
	step("update", func() error { return second(s.UpdateTask(ctx, by, task.ID, taskd.TaskInput{Name: new("T2")})) }, true)
	step("update changing nothing", func() error { return second(s.UpdateTask(ctx, by, task.ID, taskd.TaskInput{Name: new("T2")})) }, false)
	step("close", func() error { return second(s.CompleteTask(ctx, by, sub.ID)) }, true)
	step("reopen", func() error { return second(s.ReopenTask(ctx, by, sub.ID)) }, true)
	step("a task in another project", func() error {
		return second(s.CreateTask(ctx, by, other.ID, 0, taskd.TaskInput{Name: new("O")}))
	}, false)
	step("delete", func() error { return s.DeleteTask(ctx, by, task.ID) }, true)
	_, err := s.ProjectVersion(ctx, taskd.AccountViewer(by.AccountID), p.ID+999)
	want(t, err, taskd.KindNotFound, "project")

	// Another account's project, or none, is not seen by the key; the
	// account is still read (the call is refused only once authenticated).
	elsewhere, elsewhereBy := NewAccount(t, s, "version")
	theirs := must(s.CreateProject(ctx, elsewhereBy, taskd.ProjectInput{Name: new("Theirs")}))(t)
	for _, id := range []int64{theirs.ID, p.ID + 999} {
		acct, _, seen, err := s.AccountAndProjectVersion(ctx, f.Account.Slug, id)
		noErr(t, err)
		if acct.ID != f.Account.ID || seen {
			t.Fatalf("project %d: account %d, seen %v; want account %d, not seen", id, acct.ID, seen, f.Account.ID)
		}
	}
	if _, _, seen, err := s.AccountAndProjectVersion(ctx, elsewhere.Slug, theirs.ID); err != nil || !seen {
		t.Fatalf("their own project: seen %v, %v", seen, err)
	}
	_, _, _, err = s.AccountAndProjectVersion(ctx, "no-such-account", p.ID)
	want(t, err, taskd.KindNotFound, "account")
}

func testTaskQueries(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p := newProject(t, f)
	a := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Write 100% report"), Text: new("quarterly")}))(t)
	must(s.CreateTask(ctx, by, p.ID, a.ID, taskd.TaskInput{Name: new("Draft")}))(t)
	b := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Ship"), AssigneeEmail: new(by.Person.Email)}))(t)
	must(s.CompleteTask(ctx, by, b.ID))(t)

	all := must(s.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(by.AccountID), ProjectID: p.ID}))(t)
	tree := taskd.BuildTree(all)
	if len(all) != 3 || len(tree) != 2 || len(tree[0].Children) != 1 || tree[0].Children[0].Name != "Draft" {
		t.Fatalf("tree = %+v", tree)
	}
	for _, tc := range []struct {
		name string
		q    taskd.TaskQuery
		want int
	}{
		{"done", taskd.TaskQuery{Status: taskd.StatusDone}, 1},
		{"active", taskd.TaskQuery{Status: taskd.StatusActive}, 2},
		{"assignee", taskd.TaskQuery{AssigneeEmail: by.Person.Email}, 1},
		{"nobody", taskd.TaskQuery{AssigneeEmail: "NOONE"}, 2},
		{"author", taskd.TaskQuery{AuthorEmail: by.Person.Email}, 3},
		{"text in name, literal percent", taskd.TaskQuery{Text: "100%"}, 1},
		{"text case-insensitive", taskd.TaskQuery{Text: "QUARTER"}, 1},
		{"like wildcard is literal", taskd.TaskQuery{Text: "_"}, 0},
		{"subtasks", taskd.TaskQuery{ParentID: a.ID}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Viewer, q.ProjectID = taskd.AccountViewer(by.AccountID), p.ID
			if got := must(s.Tasks(ctx, q))(t); len(got) != tc.want {
				t.Fatalf("got %d tasks, want %d: %+v", len(got), tc.want, got)
			}
		})
	}
}

func testComments(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("T")}))(t)
	c := must(s.CreateComment(ctx, by, task.ID, "first"))(t)
	if c.Page() != fmt.Sprintf("/project/%d/%d/#com%d", p.ID, task.ID, c.ID) {
		t.Fatalf("comment page = %s", c.Page())
	}
	must(s.UpdateComment(ctx, by, c.ID, "edited"))(t)
	list := must(s.Comments(ctx, taskd.AccountViewer(by.AccountID), task.ID))(t)
	if len(list) != 1 || list[0].Text != "edited" || list[0].Author.ID != by.Person.ID {
		t.Fatalf("comments = %+v", list)
	}
	_, err := s.CreateComment(ctx, by, task.ID+999, "x")
	want(t, err, taskd.KindNotFound, "task")
	_, err = s.Comments(ctx, taskd.AccountViewer(by.AccountID), task.ID+999)
	want(t, err, taskd.KindNotFound, "task")
	noErr(t, s.DeleteComment(ctx, by, c.ID))
	want(t, s.DeleteComment(ctx, by, c.ID), taskd.KindNotFound, "comment")
	_, err = s.UpdateComment(ctx, by, c.ID, "x")
	want(t, err, taskd.KindNotFound, "comment")
}

func testEvents(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	start := f.Clock.Now()
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("T"), Priority: new(3)}))(t)
	f.Clock.Advance(time.Minute)
	must(s.UpdateTask(ctx, by, task.ID, taskd.TaskInput{Priority: new(5), Name: new("T")}))(t)
	must(s.UpdateTask(ctx, by, task.ID, taskd.TaskInput{Name: new("T")}))(t) // no change: no event
	must(s.CompleteTask(ctx, by, task.ID))(t)
	must(s.ReopenTask(ctx, by, task.ID))(t)
	c := must(s.CreateComment(ctx, by, task.ID, "hi"))(t)
	must(s.UpdateComment(ctx, by, c.ID, "hello"))(t)
	noErr(t, s.DeleteComment(ctx, by, c.ID))
	must(s.UpdateProject(ctx, by, p.ID, taskd.ProjectInput{Name: new("P2")}))(t)
	noErr(t, s.DeleteTask(ctx, by, task.ID))
	other := newProject(t, f)

	evs := must(s.Events(ctx, taskd.AccountViewer(by.AccountID), start, 0))(t)
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	want := "post_project post_task update_task close_task reopen_task post_comment update_comment delete_comment update_project delete_task post_project"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	upd := string(evs[2].JSON())
	for _, part := range []string{
		fmt.Sprintf(`{"id":"%d","event":"update_task","action":"update"`, evs[2].ID),
		fmt.Sprintf(`"object":{"type":"task","id":"%d","page":"/project/%d/%d/"}`, task.ID, p.ID, task.ID),
		`"date_added":"2026-03-04 10:31"`,
		fmt.Sprintf(`"user_from":{"id":"%d","email":"%s","name":"Olga Owner"}`, by.Person.ID, by.Person.Email),
		`"new":{"priority":"5"}`, `"old":{"priority":"3"}`,
		fmt.Sprintf(`"project":{"id":"%d","name":"P","page":"/project/%d/"}`, p.ID, p.ID),
	} {
		if !strings.Contains(upd, part) {
			t.Errorf("update event lacks %s:\n%s", part, upd)
		}
	}
	if del := string(evs[9].JSON()); !strings.Contains(del, `"new":{}`) || !strings.Contains(del, `"old":{"date_end":"","date_start":"","name":"T"`) {
		t.Errorf("delete event = %s", del)
	}
	if only := must(s.Events(ctx, taskd.AccountViewer(by.AccountID), start, other.ID))(t); len(only) != 1 || only[0].Name != "post_project" {
		t.Fatalf("project filter: %+v", only)
	}
	if later := must(s.Events(ctx, taskd.AccountViewer(by.AccountID), start.Add(30*time.Second), 0))(t); len(later) != len(evs)-2 {
		t.Fatalf("since filter: %d events, want %d", len(later), len(evs)-2)
	}
}

func testIsolation(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("secret")}))(t)
	c := must(s.CreateComment(ctx, by, task.ID, "secret"))(t)
	_, intruder := NewAccount(t, s, "intruder")
	ia := intruder.AccountID

	_, err := s.Project(ctx, taskd.AccountViewer(ia), p.ID)
	want(t, err, taskd.KindNotFound, "project")
	_, err = s.UpdateProject(ctx, intruder, p.ID, taskd.ProjectInput{Name: new("x")})
	want(t, err, taskd.KindNotFound, "project")
	_, err = s.SetProjectStatus(ctx, intruder, p.ID, taskd.ProjectArchive)
	want(t, err, taskd.KindNotFound, "project")
	_, err = s.CreateTask(ctx, intruder, p.ID, 0, taskd.TaskInput{Name: new("x")})
	want(t, err, taskd.KindNotFound, "project")
	_, err = s.Task(ctx, taskd.AccountViewer(ia), task.ID)
	want(t, err, taskd.KindNotFound, "task")
	_, err = s.UpdateTask(ctx, intruder, task.ID, taskd.TaskInput{Name: new("x")})
	want(t, err, taskd.KindNotFound, "task")
	_, err = s.CompleteTask(ctx, intruder, task.ID)
	want(t, err, taskd.KindNotFound, "task")
	want(t, s.DeleteTask(ctx, intruder, task.ID), taskd.KindNotFound, "task")
	_, err = s.CreateComment(ctx, intruder, task.ID, "x")
	want(t, err, taskd.KindNotFound, "task")
	_, err = s.Comments(ctx, taskd.AccountViewer(ia), task.ID)
	want(t, err, taskd.KindNotFound, "task")
	_, err = s.UpdateComment(ctx, intruder, c.ID, "x")
	want(t, err, taskd.KindNotFound, "comment")
	want(t, s.DeleteComment(ctx, intruder, c.ID), taskd.KindNotFound, "comment")
	_, err = s.UpdateTask(ctx, intruder, task.ID, taskd.TaskInput{AssigneeEmail: new(by.Person.Email)})
	want(t, err, taskd.KindNotFound, "task")
	// Setting no tags changes nothing, but only on an object one sees (C2).
	want(t, s.SetTags(ctx, intruder, taskd.TagsOfTasks, task.ID, nil, nil), taskd.KindNotFound, "task")
	want(t, s.SetTags(ctx, intruder, taskd.TagsOfProjects, p.ID, nil, nil), taskd.KindNotFound, "project")
	noErr(t, s.SetTags(ctx, by, taskd.TagsOfTasks, task.ID, nil, nil))
	if ts := must(s.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(ia), ProjectID: p.ID}))(t); len(ts) != 0 {
		t.Fatalf("intruder sees tasks: %+v", ts)
	}
	if ps := must(s.Projects(ctx, taskd.AccountViewer(ia), ""))(t); len(ps) != 0 {
		t.Fatalf("intruder sees projects: %+v", ps)
	}
	if evs := must(s.Events(ctx, taskd.AccountViewer(ia), time.Time{}, 0))(t); len(evs) != 0 {
		t.Fatalf("intruder sees events: %d", len(evs))
	}
	// The owner of the other account is not a member here.
	_, err = s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("x"), AssigneeEmail: new(intruder.Person.Email)})
	want(t, err, taskd.KindNotFound, "")
	if got := must(s.Task(ctx, taskd.AccountViewer(by.AccountID), task.ID))(t); got.Name != "secret" {
		t.Fatalf("task changed: %+v", got)
	}
}

// testConcurrentWriters runs parallel writers against one project and checks
// that every change and every event is there, and the subtask rules held.
func testConcurrentWriters(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	p := newProject(t, f)
	parent := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("parent")}))(t)
	const workers, each = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	var completed atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				tk, err := s.CreateTask(ctx, by, p.ID, parent.ID, taskd.TaskInput{Name: new(fmt.Sprintf("w%d-%d", w, i))})
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.CompleteTask(ctx, by, tk.ID); err != nil {
					errs <- err
				}
				// Racing to complete the parent: only allowed once every child is done.
				if _, err := s.CompleteTask(ctx, by, parent.ID); err == nil {
					completed.Add(1)
				} else if e := taskd.AsError(err); e.Reason != taskd.ReasonOpenSubtasks && e.Reason != taskd.ReasonAlreadyInState {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if taskd.AsError(err).Reason != taskd.ReasonTaskClosed {
			t.Errorf("concurrent write: %v", err)
		}
	}
	all := must(s.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(by.AccountID), ProjectID: p.ID}))(t)
	tree := taskd.BuildTree(all)
	par := tree[0]
	active := 0
	for _, c := range par.Children {
		if c.Status == taskd.StatusActive {
			active++
		}
	}
	if par.Status == taskd.StatusDone && active > 0 {
		t.Fatalf("parent done with %d active subtasks", active)
	}
	evs := must(s.Events(ctx, taskd.AccountViewer(by.AccountID), time.Time{}, p.ID))(t)
	counts := map[string]int{}
	for _, e := range evs {
		counts[e.Name]++
	}
	if counts["post_task"] != len(all) || counts["close_task"] != len(par.Children)+int(completed.Load()) {
		t.Fatalf("events %v for %d tasks, %d children, %d parent completions", counts, len(all), len(par.Children), completed.Load())
	}
}

// testWritesNeedWork: the store itself refuses every change to work by an
// actor whose role does not allow it (taskd.PermWork), whatever called it.
func testWritesNeedWork(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	p := newProject(t, f)
	tk := must(s.CreateTask(ctx, f.Owner, p.ID, 0, taskd.TaskInput{Name: new("t")}))(t)
	c := must(s.CreateComment(ctx, f.Owner, tk.ID, "c"))(t)
	nobody := f.Owner
	nobody.Role = "" // no role: a member removed, or a bug upstream
	for op, err := range map[string]error{
		"CreateProject":    second(s.CreateProject(ctx, nobody, taskd.ProjectInput{Name: new("x")})),
		"UpdateProject":    second(s.UpdateProject(ctx, nobody, p.ID, taskd.ProjectInput{Name: new("x")})),
		"SetProjectStatus": second(s.SetProjectStatus(ctx, nobody, p.ID, taskd.ProjectArchive)),
		"CreateTask":       second(s.CreateTask(ctx, nobody, p.ID, 0, taskd.TaskInput{Name: new("x")})),
		"UpdateTask":       second(s.UpdateTask(ctx, nobody, tk.ID, taskd.TaskInput{Name: new("x")})),
		"CompleteTask":     second(s.CompleteTask(ctx, nobody, tk.ID)),
		"DeleteTask":       s.DeleteTask(ctx, nobody, tk.ID),
		"CreateComment":    second(s.CreateComment(ctx, nobody, tk.ID, "x")),
		"UpdateComment":    second(s.UpdateComment(ctx, nobody, c.ID, "x")),
		"DeleteComment":    s.DeleteComment(ctx, nobody, c.ID),
		"AddRelation":      s.AddRelation(ctx, nobody, taskd.Relation{From: tk.ID, To: tk.ID + 1, Type: taskd.RelationFinishToStart}),
		"DeleteRelation":   s.DeleteRelation(ctx, nobody, tk.ID, tk.ID+1),
		"ShiftDependents":  second(s.ShiftDependents(ctx, nobody, tk.ID, 1)),
	} {
		if taskd.ErrorKind(err) != taskd.KindForbidden {
			t.Errorf("%s by an actor without a role: %v, want forbidden", op, err)
		}
	}
	if got := must(s.Task(ctx, taskd.AccountViewer(f.Account.ID), tk.ID))(t); got.Name != "t" || got.Status != taskd.StatusActive {
		t.Fatalf("the task changed: %+v", got)
	}
}

// second returns the error of a two-valued call.
func second[T any](_ T, err error) error { return err }

// viewerOf is the viewer of a member of the fixture's account with their
// role now; 0 is the administrative key.
func viewerOf(t *testing.T, f *Fixture, person int64) taskd.Viewer {
	t.Helper()
	if person == 0 {
		return taskd.AccountViewer(f.Account.ID)
	}
	m := must(f.Store.Member(context.Background(), f.Account.ID, person))(t)
	return taskd.PersonViewer(f.Account.ID, person, m.Role)
}
