package storetest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// testThreeLevels: tasks nest task / subtask / sub-subtask (spec §2.1,
// conflict C6). A sub-subtask knows its grandparent and cannot be a
// parent; the open-subtask and parent-done rules hold at each level; the
// tree order, a task's subtree (TaskQuery.TaskID, cost lines) and the
// filter's parent field reach the third level; a task hidden from a
// person hides its whole subtree from every read (lists, one task, cost
// lines and sums, files, events, notifications); and deleting a task
// deletes its subtree, writing delete_task for each, the deepest first.
func testThreeLevels(t *testing.T, f *Fixture) {
	ctx, s, owner := t.Context(), f.Store, f.Owner
	ann := member(t, f, "ann", taskd.RoleUser) // listed on the hidden task
	ben := member(t, f, "ben", taskd.RoleUser) // not listed
	key := taskd.AccountViewer(f.Account.ID)
	since := f.Clock.Now().Add(-time.Minute)
	p, other := newProject(t, f), newProject(t, f)
	create := func(parent int64, name string, in taskd.TaskInput) taskd.Task {
		t.Helper()
		in.Name = new(name)
		return must(s.CreateTask(ctx, owner, p.ID, parent, in))(t)
	}

	top := create(0, "Top", taskd.TaskInput{})
	sub := create(top.ID, "Sub", taskd.TaskInput{})
	leaf := create(sub.ID, "Leaf", taskd.TaskInput{})
	for _, got := range []taskd.Task{leaf, must(s.Task(ctx, key, leaf.ID))(t)} {
		if got.ParentID != sub.ID || got.GrandparentID != top.ID || got.Level() != 3 || got.TopID() != top.ID ||
			got.Page() != taskd.TaskPage(p.ID, sub.ID, leaf.ID) || got.ParentPage() != sub.Page() {
			t.Fatalf("sub-subtask = %+v, want parent %d, grandparent %d", got, sub.ID, top.ID)
		}
	}
	if got := must(s.Task(ctx, key, sub.ID))(t); got.GrandparentID != 0 || got.Level() != 2 {
		t.Fatalf("subtask = %+v", got)
	}

	// Three levels at most, in one project.
	_, err := s.CreateTask(ctx, owner, p.ID, leaf.ID, taskd.TaskInput{Name: new("Too deep")})
	want(t, err, taskd.KindInvalid, "parent")
	if !strings.Contains(taskd.AsError(err).Message, "three levels") {
		t.Fatalf("a sub-subtask as parent: %q does not say three levels is the most", taskd.AsError(err).Message)
	}
	_, err = s.CreateTask(ctx, owner, other.ID, sub.ID, taskd.TaskInput{Name: new("Elsewhere")})
	want(t, err, taskd.KindInvalid, "parent")

	// The open-subtask rule at each level, the parent-done rule below.
	_, err = s.CompleteTask(ctx, owner, sub.ID)
	wantConflict(t, err, taskd.ReasonOpenSubtasks)
	_, err = s.CompleteTask(ctx, owner, top.ID)
	wantConflict(t, err, taskd.ReasonOpenSubtasks)
	must(s.CompleteTask(ctx, owner, leaf.ID))(t)
	_, err = s.CompleteTask(ctx, owner, top.ID)
	wantConflict(t, err, taskd.ReasonOpenSubtasks)
	must(s.CompleteTask(ctx, owner, sub.ID))(t)
	must(s.CompleteTask(ctx, owner, top.ID))(t)
	_, err = s.ReopenTask(ctx, owner, sub.ID)
	wantConflict(t, err, taskd.ReasonParentDone)
	_, err = s.ReopenTask(ctx, owner, leaf.ID)
	wantConflict(t, err, taskd.ReasonParentDone)
	_, err = s.CreateTask(ctx, owner, p.ID, sub.ID, taskd.TaskInput{Name: new("Late")})
	wantConflict(t, err, taskd.ReasonTaskClosed)
	must(s.ReopenTask(ctx, owner, top.ID))(t)
	must(s.ReopenTask(ctx, owner, sub.ID))(t)
	must(s.ReopenTask(ctx, owner, leaf.ID))(t)

	// The tree order, a subtree, the filter's parent.
	// Leaf 2 comes after Sub 2, yet sorts under Sub.
	sub2 := create(top.ID, "Sub 2", taskd.TaskInput{})
	create(sub.ID, "Leaf 2", taskd.TaskInput{})
	create(0, "Top 2", taskd.TaskInput{})
	create(sub2.ID, "Leaf 3", taskd.TaskInput{})
	names := func(q taskd.TaskQuery) []string {
		t.Helper()
		if q.Viewer == (taskd.Viewer{}) {
			q.Viewer = key
		}
		q.ProjectID = p.ID
		var out []string
		for _, t := range must(s.Tasks(ctx, q))(t) {
			out = append(out, t.Name)
		}
		return out
	}
	for _, c := range []struct {
		name string
		q    taskd.TaskQuery
		want []string
	}{
		{"tree", taskd.TaskQuery{Sort: taskd.SortTree}, []string{"Top", "Sub", "Leaf", "Leaf 2", "Sub 2", "Leaf 3", "Top 2"}},
		{"tree, a page", taskd.TaskQuery{Sort: taskd.SortTree, Limit: 3, Offset: 2}, []string{"Leaf", "Leaf 2", "Sub 2"}},
		{"a top-level task's subtree, by id", taskd.TaskQuery{TaskID: top.ID}, []string{"Top", "Sub", "Leaf", "Sub 2", "Leaf 2", "Leaf 3"}},
		{"a subtask's subtree", taskd.TaskQuery{TaskID: sub.ID}, []string{"Sub", "Leaf", "Leaf 2"}},
		{"a sub-subtask's", taskd.TaskQuery{TaskID: leaf.ID}, []string{"Leaf"}},
		{"children of a subtask", taskd.TaskQuery{ParentID: sub.ID}, []string{"Leaf", "Leaf 2"}},
		{"filter: parent is a subtask", taskd.TaskQuery{Filter: taskd.QueryCond{Field: taskd.FieldParent, Op: "=", Ints: []int64{sub.ID}}},
			[]string{"Leaf", "Leaf 2"}},
		{"filter: parent is the top-level task", taskd.TaskQuery{Filter: taskd.QueryCond{Field: taskd.FieldParent, Op: "in", Ints: []int64{top.ID}}},
			[]string{"Sub", "Sub 2"}},
	} {
		if got := names(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	// Pages of every size, put together, are the tree order: a page's ids
	// are chosen in that order too (Leaf 2, made after Sub 2, is on the
	// page after Leaf).
	whole := names(taskd.TaskQuery{Sort: taskd.SortTree})
	for size := 1; size < len(whole); size++ {
		var paged []string
		for off := 0; off < len(whole); off += size {
			paged = append(paged, names(taskd.TaskQuery{Sort: taskd.SortTree, Limit: size, Offset: off})...)
		}
		if !slices.Equal(paged, whole) {
			t.Errorf("tree in pages of %d: %q, want %q", size, paged, whole)
		}
	}
	tree := taskd.BuildTree(must(s.Tasks(ctx, taskd.TaskQuery{Viewer: key, ProjectID: p.ID}))(t))
	if len(tree) != 2 || len(tree[0].Children) != 2 || len(tree[0].Children[0].Children) != 2 || tree[0].Children[0].Children[1].Name != "Leaf 2" {
		t.Fatalf("tree = %+v", tree)
	}

	// A sub-subtask's lines fold into its top-level task, and are its
	// subtask's too.
	line := must(s.AddCost(ctx, owner, leaf.ID, taskd.CostInput{Minutes: new(int64(10))}))(t)
	if line.Task.GrandparentID != top.ID {
		t.Fatalf("the line's task = %+v", line.Task)
	}
	for _, id := range []int64{top.ID, sub.ID, leaf.ID} {
		if got := must(s.Costs(ctx, taskd.CostQuery{Viewer: key, TaskID: id}))(t); len(got) != 1 || got[0].ID != line.ID {
			t.Errorf("the lines of task %d: %+v, want the sub-subtask's", id, got)
		}
	}
	if got := must(s.Costs(ctx, taskd.CostQuery{Viewer: key, TaskID: sub2.ID}))(t); len(got) != 0 {
		t.Errorf("another subtask's lines: %+v", got)
	}
	byTop := must(s.CostSums(ctx, taskd.CostQuery{Viewer: key, ProjectID: p.ID}, taskd.CostByTopTask))(t)
	if len(byTop) != 1 || byTop[0].ID != top.ID || byTop[0].Minutes != 10 {
		t.Fatalf("lines by top-level task: %+v, want 10 minutes on %d", byTop, top.ID)
	}

	// A task hidden from Ben hides its sub-subtasks from him, by every
	// read; Ann, listed, and the key see them.
	secret := create(0, "Secret-top", taskd.TaskInput{Hidden: []string{ann.Person.Email}})
	secretSub := create(secret.ID, "Secret-sub", taskd.TaskInput{})
	secretLeaf := create(secretSub.ID, "Secret-leaf", taskd.TaskInput{AssigneeEmail: new(ann.Person.Email), Subscribe: []string{ben.Person.Email}})
	must(s.AddCost(ctx, owner, secretLeaf.ID, taskd.CostInput{Minutes: new(int64(7))}))(t)
	file := must(s.CreateFile(ctx, owner, "leaf.txt", "text/plain", bytes.NewReader([]byte("leaf")),
		taskd.FileLimits{MaxFileBytes: 1 << 20, MaxAccountBytes: 1 << 20}))(t)
	noErr(t, s.AttachFiles(ctx, owner, []int64{file.ID}, taskd.OwnerTask, secretLeaf.ID))
	must(s.CreateComment(ctx, owner, secretLeaf.ID, "Leaf-comment"))(t)
	for _, c := range []struct {
		who  string
		v    taskd.Viewer
		sees bool
	}{{"ben", viewerOf(t, f, ben.Person.ID), false}, {"ann", viewerOf(t, f, ann.Person.ID), true}, {"the key", key, true}} {
		_, err := s.Task(ctx, c.v, secretLeaf.ID)
		if (err == nil) != c.sees {
			t.Errorf("%s reads the sub-subtask of the hidden task: %v, want %v", c.who, err, c.sees)
		}
		listed := slices.Contains(names(taskd.TaskQuery{Viewer: c.v}), "Secret-leaf")
		found := slices.Contains(names(taskd.TaskQuery{Viewer: c.v, Filter: taskd.QueryCond{Field: taskd.FieldParent, Op: "=", Ints: []int64{secretSub.ID}}}), "Secret-leaf")
		if listed != c.sees || found != c.sees {
			t.Errorf("%s lists the sub-subtask: %v, finds it by its parent: %v; want %v", c.who, listed, found, c.sees)
		}
		active := 7 // Top 2 and the six tasks of Top
		if c.sees {
			active += 3
		}
		if counts := must(s.CountTasks(ctx, taskd.TaskQuery{Viewer: c.v, ProjectID: p.ID}))(t); counts.Active != active {
			t.Errorf("%s counts %+v, want %d active tasks", c.who, counts, active)
		}
		lines := must(s.Costs(ctx, taskd.CostQuery{Viewer: c.v, ProjectID: p.ID}))(t)
		sum := must(s.CostSums(ctx, taskd.CostQuery{Viewer: c.v, ProjectID: p.ID}, taskd.CostByTotal))(t)
		if (len(lines) == 2) != c.sees || (len(sum) == 1 && sum[0].Minutes == 17) != c.sees {
			t.Errorf("%s sees the lines %+v, summed %+v", c.who, lines, sum)
		}
		files := must(s.Files(ctx, taskd.FileQuery{Viewer: c.v, ProjectID: p.ID}))(t)
		_, ferr := s.File(ctx, c.v, file.ID)
		if (len(files) == 1) != c.sees || (ferr == nil) != c.sees {
			t.Errorf("%s sees the files %+v (one: %v)", c.who, files, ferr)
		}
		var events strings.Builder
		for _, e := range must(s.Events(ctx, c.v, since, 0))(t) {
			events.Write(e.Body)
		}
		if got := events.String(); strings.Contains(got, "Secret-leaf") != c.sees || strings.Contains(got, "Leaf-comment") != c.sees {
			t.Errorf("%s sees the sub-subtask's events: %v, want %v", c.who, !c.sees, c.sees)
		}
	}
	due := must(s.DigestsDue(ctx, f.Clock.Now().Add(time.Second), 10))(t)
	if !slices.Contains(due, ann.Person.ID) || slices.Contains(due, ben.Person.ID) {
		t.Errorf("told of the hidden task's sub-subtask: %v (ann %d, ben %d)", due, ann.Person.ID, ben.Person.ID)
	}

	// Deleting a task deletes its subtree, each with its event, the
	// deepest first; their events stay with whom the tasks were for.
	noErr(t, s.DeleteTask(ctx, owner, secret.ID))
	noErr(t, s.DeleteTask(ctx, owner, top.ID))
	for _, id := range []int64{secretLeaf.ID, secretSub.ID, top.ID, sub.ID, leaf.ID, sub2.ID} {
		if _, err := s.Task(ctx, key, id); !taskd.IsNotFound(err) {
			t.Errorf("task %d after its top-level task was deleted: %v", id, err)
		}
	}
	if got := names(taskd.TaskQuery{}); !slices.Equal(got, []string{"Top 2"}) {
		t.Errorf("left after the deletions: %q", got)
	}
	var deleted []string
	for _, e := range must(s.Events(ctx, key, since, p.ID))(t) {
		if e.Name != "delete_task" {
			continue
		}
		var ev struct {
			Old struct{ Name string } `json:"old"`
		}
		noErr(t, json.Unmarshal(e.Body, &ev))
		deleted = append(deleted, ev.Old.Name)
	}
	if want := []string{"Secret-leaf", "Secret-sub", "Secret-top", "Leaf", "Leaf 2", "Sub", "Leaf 3", "Sub 2", "Top"}; !slices.Equal(deleted, want) {
		t.Errorf("delete_task events: %q, want %q", deleted, want)
	}
	var bens strings.Builder
	for _, e := range must(s.Events(ctx, viewerOf(t, f, ben.Person.ID), since, 0))(t) {
		bens.Write(e.Body)
	}
	if strings.Contains(bens.String(), "Secret-leaf") || !strings.Contains(bens.String(), `"Leaf 3"`) {
		t.Errorf("Ben's events once deleted: the hidden sub-subtask's shown, or the open one's not")
	}
}
