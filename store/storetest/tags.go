package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// tagTitles is a list of tags' or groups' titles, comma-separated.
func tagTitles[T any](list []T, title func(T) string) string {
	var out []string
	for _, x := range list {
		out = append(out, title(x))
	}
	return strings.Join(out, ",")
}

func titleOfTag(t taskd.Tag) string        { return t.Title }
func titleOfGroup(g taskd.TagGroup) string { return g.Title }

// testTagOrder: groups and tags keep the order they were made in; a sort
// puts those it names first, in its order, and the others after in
// theirs; a new one goes last; every list (Tags, TagGroups, ObjectTags)
// follows the order.
func testTagOrder(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	kind := taskd.TagsOfTasks
	must(s.AddTagGroups(ctx, by, kind, "status", "public", []string{"Stage"}))(t)
	must(s.AddTagGroups(ctx, by, kind, "label", "public", []string{"Kind"}))(t)
	must(s.AddTags(ctx, by, kind, "Stage", []string{"To do", "Doing", "Done"}))(t)
	must(s.AddTags(ctx, by, kind, "Kind", []string{"Bug", "Art"}))(t)
	tags := func(group string) string {
		t.Helper()
		return tagTitles(must(s.Tags(ctx, f.Account.ID, kind, group, "", ""))(t), titleOfTag)
	}
	if got := tagTitles(must(s.TagGroups(ctx, f.Account.ID, kind, "", ""))(t), titleOfGroup); got != "Stage,Kind" {
		t.Fatalf("groups = %s, want the order they were made in", got)
	}
	if got := tags(""); got != "To do,Doing,Done,Bug,Art" {
		t.Fatalf("tags = %s, want the order they were made in", got)
	}
	sorted := must(s.SortTags(ctx, by, kind, "Stage", []string{"Done", "Done", "To do"}))(t)
	if got := tagTitles(sorted, titleOfTag); got != "Done,To do,Doing" || sorted[0].Group.Title != "Stage" {
		t.Fatalf("SortTags = %v", sorted)
	}
	must(s.AddTags(ctx, by, kind, "Stage", []string{"Review"}))(t)
	if got := tags("Stage"); got != "Done,To do,Doing,Review" {
		t.Fatalf("after a sort and an addition: %s", got)
	}
	doing := must(s.Tags(ctx, f.Account.ID, kind, "Stage", "", ""))(t)[2]
	must(s.SortTags(ctx, by, kind, "Stage", []string{"To do", itoa(doing.ID)}))(t) // by id too
	if got := tags("Stage"); got != "To do,Doing,Done,Review" {
		t.Fatalf("after a sort by title and id: %s", got)
	}
	groups := must(s.SortTagGroups(ctx, by, kind, []string{"Kind"}))(t)
	if got := tagTitles(groups, titleOfGroup); got != "Kind,Stage" {
		t.Fatalf("SortTagGroups = %s", got)
	}
	if got := tags(""); got != "Bug,Art,To do,Doing,Done,Review" {
		t.Fatalf("tags follow their groups: %s", got)
	}
	task := must(s.CreateTask(ctx, by, newProject(t, f).ID, 0, taskd.TaskInput{Name: new("T"), Tags: &[]string{"Doing", "Art", "Bug"}}))(t)
	if got := tagTitles(must(s.ObjectTags(ctx, by.Viewer(), kind, []int64{task.ID}))(t)[task.ID], titleOfTag); got != "Bug,Art,Doing" {
		t.Fatalf("a task's tags = %s, want the account's order", got)
	}
	_, err := s.SortTags(ctx, by, kind, "Stage", []string{"Doing", "Bug"})
	want(t, err, taskd.KindInvalid, "order")
	_, err = s.SortTagGroups(ctx, by, kind, []string{"Nope"})
	want(t, err, taskd.KindInvalid, "order")
	_, err = s.SortTags(ctx, by, taskd.TagsOfProjects, "Stage", []string{"Doing"})
	want(t, err, taskd.KindNotFound, "group")
}

// testTagRenames: a tag and a group take a new title unless one of their
// kind has it; objects keep their tags; nothing else changes and no event
// is written.
func testTagRenames(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	kind := taskd.TagsOfTasks
	must(s.AddTagGroups(ctx, by, kind, "status", "public", []string{"Stage", "Other"}))(t)
	must(s.AddTags(ctx, by, kind, "Stage", []string{"Doing", "Done"}))(t)
	task := must(s.CreateTask(ctx, by, newProject(t, f).ID, 0, taskd.TaskInput{Name: new("T"), Tags: &[]string{"Doing"}}))(t)
	f.Clock.Advance(time.Second)
	since := f.Clock.Now()
	tag := must(s.RenameTag(ctx, by, kind, "Doing", "  In progress "))(t)
	if tag.Title != "In progress" || tag.Group.Title != "Stage" {
		t.Fatalf("RenameTag = %+v", tag)
	}
	if got := must(s.ObjectTags(ctx, by.Viewer(), kind, []int64{task.ID}))(t)[task.ID]; len(got) != 1 || got[0].ID != tag.ID || got[0].Title != "In progress" {
		t.Fatalf("the task's tags after the rename: %+v", got)
	}
	_, err := s.RenameTag(ctx, by, kind, "In progress", "Done")
	want(t, err, taskd.KindConflict, "title")
	_, err = s.RenameTag(ctx, by, kind, "In progress", "a,b")
	want(t, err, taskd.KindInvalid, "title")
	_, err = s.RenameTag(ctx, by, kind, "Nope", "x")
	want(t, err, taskd.KindInvalid, "tags")
	g := must(s.RenameTagGroup(ctx, by, kind, "Stage", "Phase"))(t)
	if g.Title != "Phase" || g.Type != "status" {
		t.Fatalf("RenameTagGroup = %+v", g)
	}
	_, err = s.RenameTagGroup(ctx, by, kind, "Phase", "Other")
	want(t, err, taskd.KindConflict, "title")
	_, err = s.RenameTagGroup(ctx, by, kind, "Stage", "x")
	want(t, err, taskd.KindNotFound, "group")
	if evs := must(s.Events(ctx, taskd.AccountViewer(f.Account.ID), since, 0))(t); len(evs) != 0 {
		t.Fatalf("renames wrote %d events, want none", len(evs))
	}
}

// testTagDeletions: a status that tasks the actor sees carry is deleted
// only once the actor says what becomes of them (moved to another status
// of the group, or taken off), the count in the refusal being what the
// actor sees; tasks hidden from the actor follow the same decision, and
// lose the status when none was needed; each task changed writes
// update_task; a group's deletion takes its tags off; guests and readers
// may not rename, sort or delete, though guests may add.
func testTagDeletions(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner
	kind := taskd.TagsOfTasks
	ann := member(t, f, "ann", taskd.RoleUser)
	must(s.AddTagGroups(ctx, by, kind, "status", "public", []string{"Stage"}))(t)
	must(s.AddTagGroups(ctx, by, kind, "label", "public", []string{"Kind"}))(t)
	must(s.AddTags(ctx, by, kind, "Stage", []string{"Doing", "Review", "Done"}))(t)
	must(s.AddTags(ctx, by, kind, "Kind", []string{"Bug"}))(t)
	p := newProject(t, f)
	task := func(name string, hidden bool, tags ...string) taskd.Task {
		in := taskd.TaskInput{Name: new(name), Tags: &tags}
		if hidden {
			in.Hidden = []string{f.Owner.Person.Email} // not ann
		}
		return must(s.CreateTask(ctx, by, p.ID, 0, in))(t)
	}
	one, two := task("One", false, "Doing", "Bug"), task("Two", false, "Doing")
	secret := task("Secret", true, "Doing")
	tagsOf := func(id int64) string {
		t.Helper()
		return tagTitles(must(s.ObjectTags(ctx, taskd.AccountViewer(f.Account.ID), kind, []int64{id}))(t)[id], titleOfTag)
	}
	tagID := func(title string) int64 {
		t.Helper()
		for _, tg := range must(s.Tags(ctx, f.Account.ID, kind, "", "", ""))(t) {
			if tg.Title == title {
				return tg.ID
			}
		}
		t.Fatalf("no tag %s", title)
		return 0
	}
	doing := tagID("Doing")
	if use := must(s.TagUse(ctx, viewerOf(t, f, ann.Person.ID), kind))(t); use[doing] != 2 || use[tagID("Bug")] != 1 {
		t.Fatalf("TagUse for ann = %v, want Doing on the 2 tasks she sees", use)
	}
	if use := must(s.TagUse(ctx, taskd.AccountViewer(f.Account.ID), kind))(t); use[doing] != 3 {
		t.Fatalf("TagUse for the key = %v", use)
	}

	err := s.DeleteTag(ctx, ann, kind, "Doing", taskd.TagDeletion{})
	want(t, err, taskd.KindInvalid, "move_to")
	if e := taskd.AsError(err); e.Reason != taskd.ReasonRequired || !strings.Contains(e.Message, "2 tasks have the status Doing") {
		t.Fatalf("the refusal = %v, want the count ann sees", err)
	}
	want(t, s.DeleteTag(ctx, ann, kind, "Doing", taskd.TagDeletion{Decided: true, MoveTo: "Bug"}), taskd.KindInvalid, "move_to")
	want(t, s.DeleteTag(ctx, ann, kind, "Doing", taskd.TagDeletion{Decided: true, MoveTo: "Doing"}), taskd.KindInvalid, "move_to")
	if got := tagsOf(one.ID); got != "Doing,Bug" {
		t.Fatalf("a refused deletion changed a task: %s", got)
	}
	f.Clock.Advance(time.Second)
	since := f.Clock.Now()
	noErr(t, s.DeleteTag(ctx, ann, kind, "Doing", taskd.TagDeletion{Decided: true, MoveTo: "Review"}))
	for _, id := range []int64{two.ID, secret.ID} {
		if got := tagsOf(id); got != "Review" {
			t.Fatalf("task %d after the move: %s", id, got)
		}
	}
	evs := must(s.Events(ctx, taskd.AccountViewer(f.Account.ID), since, 0))(t)
	if len(evs) != 3 {
		t.Fatalf("%d events for a move of 3 tasks, want an update_task each", len(evs))
	}
	for _, e := range evs {
		if e.Name != "update_task" || !strings.Contains(string(e.Body), `"Doing"`) || !strings.Contains(string(e.Body), `"Review"`) {
			t.Errorf("event %s %s", e.Name, e.Body)
		}
	}
	if ann := must(s.Events(ctx, viewerOf(t, f, ann.Person.ID), since, 0))(t); len(ann) != 2 {
		t.Errorf("ann sees %d of the move's events, want the 2 of the tasks she sees", len(ann))
	}

	// Only a hidden task carries Review now, for ann: nothing to ask her;
	// the task loses the status.
	noErr(t, s.SetTags(ctx, by, kind, one.ID, nil, []string{"Review"}))
	noErr(t, s.SetTags(ctx, by, kind, two.ID, nil, []string{"Review"}))
	noErr(t, s.DeleteTag(ctx, ann, kind, "Review", taskd.TagDeletion{}))
	if got := tagsOf(secret.ID); got != "" {
		t.Fatalf("the hidden task keeps %s", got)
	}
	noErr(t, s.SetTags(ctx, by, kind, one.ID, []string{"Done"}, nil))
	noErr(t, s.DeleteTag(ctx, by, kind, "Done", taskd.TagDeletion{Decided: true}))
	noErr(t, s.DeleteTag(ctx, by, kind, "Bug", taskd.TagDeletion{})) // a label: no question
	if got := tagsOf(one.ID); got != "" {
		t.Fatalf("task One keeps %s", got)
	}

	must(s.AddTags(ctx, by, kind, "Stage", []string{"Doing"}))(t)
	noErr(t, s.SetTags(ctx, by, kind, one.ID, []string{"Doing"}, nil))
	f.Clock.Advance(time.Second)
	since = f.Clock.Now()
	noErr(t, s.DeleteTagGroup(ctx, by, kind, "Stage"))
	if got := tagsOf(one.ID); got != "" {
		t.Fatalf("the tags of a deleted group stay: %s", got)
	}
	if evs := must(s.Events(ctx, taskd.AccountViewer(f.Account.ID), since, 0))(t); len(evs) != 1 || evs[0].Name != "update_task" {
		t.Fatalf("deleting the group wrote %d events, want one update_task", len(evs))
	}
	if got := tagTitles(must(s.TagGroups(ctx, f.Account.ID, kind, "", ""))(t), titleOfGroup); got != "Kind" {
		t.Fatalf("groups left: %s", got)
	}
	want(t, s.DeleteTagGroup(ctx, by, kind, "Stage"), taskd.KindNotFound, "group")

	// Guests may add tags but not change them; readers neither.
	gus, rea := member(t, f, "gus", taskd.RoleGuest), member(t, f, "rea", taskd.RoleReader)
	must(s.AddTags(ctx, gus, kind, "Kind", []string{"Feature"}))(t)
	for _, who := range []taskd.Actor{gus, rea} {
		_, err := s.RenameTag(ctx, who, kind, "Feature", "x")
		want(t, err, taskd.KindForbidden, "")
		_, err = s.RenameTagGroup(ctx, who, kind, "Kind", "x")
		want(t, err, taskd.KindForbidden, "")
		_, err = s.SortTags(ctx, who, kind, "Kind", []string{"Feature"})
		want(t, err, taskd.KindForbidden, "")
		_, err = s.SortTagGroups(ctx, who, kind, []string{"Kind"})
		want(t, err, taskd.KindForbidden, "")
		want(t, s.DeleteTag(ctx, who, kind, "Feature", taskd.TagDeletion{}), taskd.KindForbidden, "")
		want(t, s.DeleteTagGroup(ctx, who, kind, "Kind"), taskd.KindForbidden, "")
	}

	// Project statuses: the count names projects.
	must(s.AddTagGroups(ctx, by, taskd.TagsOfProjects, "status", "public", []string{"Health"}))(t)
	must(s.AddTags(ctx, by, taskd.TagsOfProjects, "Health", []string{"Green", "Red"}))(t)
	noErr(t, s.SetTags(ctx, by, taskd.TagsOfProjects, p.ID, []string{"Red"}, nil))
	err = s.DeleteTag(ctx, by, taskd.TagsOfProjects, "Red", taskd.TagDeletion{})
	if e := taskd.AsError(err); err == nil || !strings.Contains(e.Message, "1 project has the status Red") {
		t.Fatalf("deleting a project status in use: %v", err)
	}
	noErr(t, s.DeleteTag(ctx, by, taskd.TagsOfProjects, "Red", taskd.TagDeletion{Decided: true, MoveTo: "Green"}))
	if got := must(s.ObjectTags(ctx, by.Viewer(), taskd.TagsOfProjects, []int64{p.ID}))(t)[p.ID]; len(got) != 1 || got[0].Title != "Green" {
		t.Fatalf("the project's tags after the move: %+v", got)
	}
}
