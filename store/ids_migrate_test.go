package store_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// beforeIDs is the schema before migration 0036 (ids never reused).
const beforeIDs = 35

// TestIDsMigrationRepairsReusedIDs (issue 46): a SQLite database of
// schema 35 in which new objects took the ids of deleted ones, and a
// member and a guest read the events of the deleted ones by the objects
// now holding their ids, is migrated: then they read none of them, and
// nothing else changes for them; every row of every table is as it was
// (but the ids the repair clears in the deleted objects' events: an event
// written in the same millisecond as its task, as its post_task is, still
// names it, all of its columns as they were), the schema is the same but
// for AUTOINCREMENT, the foreign keys hold, and new objects get ids above
// every id handed out before, deleted or not. Each way a reused id is
// found has a case only it finds: a task deleted by DeleteTask (its
// delete_task) and a task imported in its place, dated before; a task
// deleted by hand (as a project's deletion takes its tasks, without
// events) and one made in the same millisecond (its post_task); a task
// deleted by hand and one imported in its place, dated after (its
// created_at).
func TestIDsMigrationRepairsReusedIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.Blank(t, "sqlite")
	var clock atomic.Int64
	t0 := time.Now().UTC().Truncate(time.Second)
	clock.Store(t0.UnixMilli())
	opts := d.Options()
	opts.Now = func() time.Time { return time.UnixMilli(clock.Load()).UTC() }
	old, err := store.OpenAtSchemaForTest(ctx, opts, beforeIDs)
	if err != nil {
		t.Fatal(err)
	}
	f := reuseIDs(t, old, d, &clock)
	fillEveryTable(t, old, d, f)
	umaBefore, gusBefore := seenIDs(t, old, f.uma), seenIDs(t, old, f.gus)
	if !overlaps(umaBefore, f.secret) || !overlaps(gusBefore, f.oldProject) {
		t.Fatal("before the migration, neither the member nor the guest reads the deleted objects' events: the test shows nothing")
	}
	old.Close()
	raw := openRaw(t, d)
	repairable := union(f.secret, f.oldProject)
	rowsBefore, schemaBefore := snapshot(t, raw, repairable), schemaOf(t, raw)
	sameMs := column(t, raw, `SELECT e.id FROM events e JOIN tasks t ON t.id = e.task_id
		WHERE e.name = 'post_task' AND e.task_id = `+itoa(f.open)+` AND e.created_at = t.created_at`)
	if len(sameMs) != 1 {
		t.Fatalf("task %d has %d post_task events written in the millisecond it was made, want 1: the test shows nothing", f.open, len(sameMs))
	}

	// Migration 0036 alone: the schema compared below is its work.
	db, err := store.OpenAtSchemaForTest(ctx, opts, beforeIDs+1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if got := seenIDs(t, db, f.uma); !slices.Equal(got, without(umaBefore, f.secret)) {
		t.Errorf("the member reads events %v after the migration, want %v: all they read before but the hidden deleted objects'",
			got, without(umaBefore, f.secret))
	}
	if got := seenIDs(t, db, f.gus); !slices.Equal(got, without(gusBefore, f.secret, f.oldProject)) {
		t.Errorf("the guest reads events %v after the migration, want %v: all they read before but the deleted objects'",
			got, without(gusBefore, f.secret, f.oldProject))
	}
	for _, who := range []struct {
		v      taskd.Viewer
		unseen map[int64]bool
	}{{f.uma, f.secret}, {f.gus, union(f.secret, f.oldProject)}} {
		act, err := db.Activity(ctx, taskd.ActivityQuery{Viewer: who.v})
		if err != nil {
			t.Fatal(err)
		}
		replay, reload := resume(t, db, opts.Now, who.v, 0, t0)
		if reload {
			t.Error("the live replay reloads")
		}
		for name, ids := range map[string][]int64{"Activity": storedIDs(act), "the live replay": liveIDs(replay)} {
			if overlaps(ids, who.unseen) {
				t.Errorf("%s: person %d reads events %v of deleted objects (of %v)", name, who.v.PersonID, ids, slices.Sorted(maps.Keys(who.unseen)))
			}
		}
	}
	if got := column(t, raw, `SELECT COALESCE(task_id, 'NULL') FROM events WHERE id = `+sameMs[0]); !slices.Equal(got, []string{itoa(f.open)}) {
		t.Errorf("event %s, written in the millisecond task %d was made, names task %v after the migration: it is that task's", sameMs[0], f.open, got)
	}
	checkRows(t, rowsBefore, snapshot(t, raw, repairable))
	checkSchema(t, schemaBefore, schemaOf(t, raw))
	checkAutoincrement(t, raw)
	checkForeignKeys(t, raw)
	if on, err := db.ForeignKeysForTest(ctx); err != nil || on != 1 {
		t.Errorf("foreign keys after the migration: %d %v, want on", on, err)
	}
	checkNewIDs(t, db, f)
}

// reused is what reuseIDs made.
type reused struct {
	owner      taskd.Actor
	uma, gus   taskd.Viewer
	project    int64          // the project everyone sees
	open       int64          // a task of it, never deleted
	listed     int64          // a task of it that lists its viewers, with such a comment
	secret     map[int64]bool // the events of the deleted hidden tasks and comment
	oldProject map[int64]bool // the events of the deleted project off the guest's team
	// newest is the id of the newest task, comment and project, each
	// deleted: the highest each table has handed out.
	newest map[string]int64
}

// reuseIDs makes, at schema 35, new objects that take the ids of deleted
// ones, checking that they did: tasks and a comment hidden from all but
// the owner, and a project off the guest's team; then it deletes the
// newest task, comment and project, whose ids are kept by their events
// alone.
func reuseIDs(t *testing.T, db *store.DB, d testdb.DB, clock *atomic.Int64) reused {
	ctx := context.Background()
	acct := testaccount.New(t, db, testaccount.Options{})
	f := reused{owner: acct.Actor(), secret: map[int64]bool{}, oldProject: map[int64]bool{}}
	owner, hide := f.owner, []string{acct.Owner.Email}
	f.uma = testaccount.Member(t, db, acct.ID, testaccount.Person{Email: "uma-" + acct.Slug + "@example.com"}, taskd.RoleUser).Viewer()
	gus := "gus-" + acct.Slug + "@example.com"
	f.gus = testaccount.Member(t, db, acct.ID, testaccount.Person{Email: gus}, taskd.RoleGuest).Viewer()
	f.project = must(db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Plans")}))(t).ID
	must(db.SetProjectMembers(ctx, owner, f.project, []string{gus}, true))(t)
	f.open = must(db.CreateTask(ctx, owner, f.project, 0, taskd.TaskInput{Name: new("open")}))(t).ID
	task := func(rec *taskd.ImportRecord, by taskd.Actor, name string, hidden []string) int64 {
		t.Helper()
		return must(db.CreateTask(ctx, by, f.project, 0, taskd.TaskInput{Name: new(name), Hidden: hidden, Import: rec}))(t).ID
	}
	imported := func(n string, added time.Time) int64 {
		t.Helper()
		by := owner
		by.Imported = true
		return task(record(mapKey(acct.ID, "task", n), "fp", added), by, "imported "+n, nil)
	}
	reuse := func(what string, deleted, took int64) {
		t.Helper()
		if took != deleted {
			t.Fatalf("%s: the new object got id %d, not the deleted one's %d: SQLite reuses ids no more, the test shows nothing", what, took, deleted)
		}
	}
	f.listed = task(nil, owner, "listed", hide)
	must(db.PostComment(ctx, owner, f.listed, taskd.CommentInput{Text: "listed", VisibleTo: hide}))(t)
	watch := func(into map[int64]bool, fn func()) {
		t.Helper()
		last := storetest.NewestEventID(t, db, acct.ID)
		fn()
		for _, e := range must(db.Events(ctx, taskd.AccountViewer(acct.ID), time.Time{}, 0))(t) {
			if e.ID > last {
				into[e.ID] = true
			}
		}
	}

	// Found by its delete_task: the task imported in its place is dated
	// before its events, and has none.
	var s1 int64
	watch(f.secret, func() {
		s1 = task(nil, owner, "SECRET deleted", hide)
		must(0, db.DeleteTask(ctx, owner, s1))(t)
	})
	reuse("a task imported after DeleteTask", s1, imported("1", time.UnixMilli(clock.Load()).Add(-time.Hour)))
	// Found by the post_task of the task made in its place, in the same
	// millisecond; its relation's event names it as the related task.
	var s2 int64
	watch(f.secret, func() {
		s2 = task(nil, owner, "SECRET related", hide)
		must(0, db.AddRelation(ctx, owner, taskd.Relation{From: s2, To: f.open, Type: "finish-to-start"}))(t)
	})
	deleteByHand(t, d, "tasks", s2)
	reuse("a task made after one deleted by hand", s2, task(nil, owner, "made", nil))
	// Found by created_at: the task imported in its place is dated after.
	var s3 int64
	watch(f.secret, func() { s3 = task(nil, owner, "SECRET dated", hide) })
	deleteByHand(t, d, "tasks", s3)
	clock.Add(1000)
	reuse("a task imported after one deleted by hand", s3, imported("3", time.UnixMilli(clock.Load())))
	// A comment hidden from all but the owner.
	var c int64
	watch(f.secret, func() {
		c = must(db.CreateHiddenComment(ctx, owner, f.open, "SECRET comment", hide))(t).ID
		must(0, db.DeleteComment(ctx, owner, c))(t)
	})
	reuse("a comment", c, must(db.CreateComment(ctx, owner, f.open, "open comment"))(t).ID)
	// A project off the guest's team, deleted by hand with its task; the
	// guest is on the team of the project that took its id.
	var p int64
	watch(f.oldProject, func() {
		p = must(db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Old project")}))(t).ID
		must(db.CreateTask(ctx, owner, p, 0, taskd.TaskInput{Name: new("old task")}))(t)
	})
	deleteByHand(t, d, "projects", p)
	newer := must(db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("New project")}))(t).ID
	reuse("a project", p, newer)
	must(db.SetProjectMembers(ctx, owner, newer, []string{gus}, true))(t)

	// The newest of each deleted: their ids are in their events only.
	f.newest = map[string]int64{"tasks": task(nil, owner, "newest", nil),
		"comments": must(db.CreateComment(ctx, owner, f.open, "newest"))(t).ID,
		"projects": must(db.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Newest")}))(t).ID}
	must(0, db.DeleteTask(ctx, owner, f.newest["tasks"]))(t)
	must(0, db.DeleteComment(ctx, owner, f.newest["comments"]))(t)
	deleteByHand(t, d, "projects", f.newest["projects"])
	return f
}

// deleteByHand deletes the row of the table with the id, and its
// children by their foreign keys, past the store: no event is written.
func deleteByHand(t *testing.T, d testdb.DB, table string, id int64) {
	t.Helper()
	conn, err := openRaw(t, d).Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `PRAGMA foreign_keys = ON`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), `DELETE FROM `+table+` WHERE id = ?`, id); err != nil {
		t.Fatalf("delete from %s: %v", table, err)
	}
}

// seenIDs is the ids of the events the viewer reads (Events), in order.
func seenIDs(t *testing.T, db *store.DB, v taskd.Viewer) []int64 {
	t.Helper()
	return storedIDs(must(db.Events(context.Background(), v, time.Time{}, 0))(t))
}

// overlaps reports whether any id is in the set.
func overlaps(ids []int64, set map[int64]bool) bool {
	return slices.ContainsFunc(ids, func(id int64) bool { return set[id] })
}

// without is ids but those in the sets.
func without(ids []int64, sets ...map[int64]bool) []int64 {
	all := union(sets...)
	return slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return all[id] })
}

// union is the sets' union.
func union(sets ...map[int64]bool) map[int64]bool {
	out := map[int64]bool{}
	for _, s := range sets {
		maps.Copy(out, s)
	}
	return out
}

// TestIDsMigrationStartsPastDeletedIDs (issue 46): on a SQLite database
// of schema 35, the ids that only a column of another table still names,
// their objects gone, are not handed out again once migrated: a comment
// made on a task and deleted, the only comment (comments is empty, so
// SQLite has no sequence of comments to raise, and the migration makes
// one), named by its events; a task deleted with its project by hand,
// named only by the related task of the relation event of a task of
// another project (events.related_task_id); a webhook's delivery pruned
// after its last attempt, named only by that attempt (attempts.delivery_id),
// while an older delivery stays. After the migration a new comment, task
// and delivery each get an id above the one named.
func TestIDsMigrationStartsPastDeletedIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.Blank(t, "sqlite")
	old, err := store.OpenAtSchemaForTest(ctx, d.Options(), beforeIDs)
	if err != nil {
		t.Fatal(err)
	}
	acct := testaccount.New(t, old, testaccount.Options{})
	owner := acct.Actor()
	plans := must(old.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Plans")}))(t).ID
	open := must(old.CreateTask(ctx, owner, plans, 0, taskd.TaskInput{Name: new("open")}))(t).ID
	comment := must(old.CreateComment(ctx, owner, open, "gone"))(t).ID
	must(0, old.DeleteComment(ctx, owner, comment))(t)
	other := must(old.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Other")}))(t).ID
	related := must(old.CreateTask(ctx, owner, other, 0, taskd.TaskInput{Name: new("related")}))(t).ID
	must(0, old.AddRelation(ctx, owner, taskd.Relation{From: related, To: open, Type: "finish-to-start"}))(t)
	r := strings.NewReplacer("ACCT", itoa(acct.ID), "PLANS", itoa(plans))
	for _, q := range []string{
		`INSERT INTO webhooks (account_id, url, events, secret, created_at) VALUES (ACCT, 'https://hook.example', 'update_task', x'01', 1)`,
		`INSERT INTO deliveries (webhook_id, event_id, state, created_at)
			SELECT (SELECT MAX(id) FROM webhooks), id, 'delivered', 1 FROM events WHERE project_id = PLANS ORDER BY id`,
		`INSERT INTO attempts (webhook_id, delivery_id, event_id, at, ok)
			SELECT webhook_id, id, event_id, 2, 1 FROM deliveries WHERE id = (SELECT MAX(id) FROM deliveries)`,
		`DELETE FROM deliveries WHERE id = (SELECT MAX(id) FROM deliveries)`,
	} {
		if err := old.ExecForTest(ctx, r.Replace(q)); err != nil {
			t.Fatalf("%s: %v", r.Replace(q), err)
		}
	}
	old.Close()
	deleteProject(t, d, other)

	raw := openRaw(t, d)
	named := func(query string) int64 {
		t.Helper()
		var n int64
		if err := raw.QueryRow(query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	if n := named(`SELECT COUNT(*) FROM comments`); n != 0 {
		t.Fatalf("%d comments before the migration, want none: the test shows nothing", n)
	}
	if n := named(`SELECT COUNT(*) FROM events WHERE task_id = ` + itoa(related)); n != 0 {
		t.Fatalf("%d events name task %d as theirs: the test shows nothing", n, related)
	}
	if n := named(`SELECT COUNT(*) FROM events WHERE related_task_id = ` + itoa(related)); n != 1 {
		t.Fatalf("%d events name task %d as the related task, want its relation's", n, related)
	}
	delivery := named(`SELECT MAX(delivery_id) FROM attempts`)
	if kept := named(`SELECT MAX(id) FROM deliveries`); kept == 0 || kept >= delivery {
		t.Fatalf("before the migration the newest delivery is %d, the attempt names %d: the test shows nothing", kept, delivery)
	}

	db := d.Open(t)
	if got := must(db.CreateComment(ctx, owner, open, "after"))(t).ID; got <= comment {
		t.Errorf("a new comment got id %d; comment %d, deleted before the migration, is named by its events", got, comment)
	}
	if got := must(db.CreateTask(ctx, owner, plans, 0, taskd.TaskInput{Name: new("after")}))(t).ID; got <= related {
		t.Errorf("a new task got id %d; task %d, deleted before the migration, is named by a relation's event", got, related)
	}
	if err := db.ExecForTest(ctx, r.Replace(`INSERT INTO deliveries (webhook_id, event_id, state, created_at)
		SELECT (SELECT MAX(id) FROM webhooks), MAX(id), 'pending', 3 FROM events WHERE project_id = PLANS`)); err != nil {
		t.Fatal(err)
	}
	if got := named(`SELECT MAX(id) FROM deliveries`); got <= delivery {
		t.Errorf("a new delivery got id %d; delivery %d, pruned before the migration, is named by an attempt", got, delivery)
	}
}
