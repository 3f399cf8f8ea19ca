package importer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testsite"
)

// worksection answers as a Worksection account does, from answers by
// action (with "_" and the project or task for get_tasks and
// get_comments); any other read answers an empty list.
type worksection struct {
	mu      sync.Mutex
	answers map[string]string
}

func (ws *worksection) set(name, data string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.answers[name] = data
}

func (ws *worksection) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	name := q.Get("action")
	switch name {
	case "get_projects":
		if q.Get("filter") != "" {
			name += "_" + q.Get("filter")
		}
	case "get_tasks":
		name += "_" + q.Get("id_project")
	case "get_comments":
		name += "_" + q.Get("id_task")
	}
	ws.mu.Lock()
	data, ok := ws.answers[name]
	ws.mu.Unlock()
	if !ok {
		data = "[]"
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fmt.Fprintf(w, `{"status":"ok","data":%s}`, data)
}

const (
	mia      = "mia@new.example"
	ned      = "ned@new.example"
	stranger = "stranger@else.example" // on no list of members
)

// person is a Worksection person object.
func person(email string) string {
	return fmt.Sprintf(`{"id":"%d","email":%q,"name":%q}`, len(email), email, strings.Split(email, "@")[0])
}

func people(emails ...string) string {
	var out []string
	for _, e := range emails {
		out = append(out, person(e))
	}
	return "[" + strings.Join(out, ",") + "]"
}

// wsTask is a Worksection task with a hidden list (nil: none sent).
func wsTask(id, name, author string, hidden []string, child string) string {
	h := `"hidden":[],`
	if hidden != nil {
		h = `"hidden":` + people(hidden...) + `,`
	}
	return fmt.Sprintf(`{"id":%q,"name":%q,"status":"active","priority":"1","user_from":%s,"user_to":{"email":"NOONE"},
		"date_added":"2024-01-16 10:00",%s"child":[%s]}`, id, name, person(author), h, child)
}

func wsComment(id, text, author string, hidden ...string) string {
	return fmt.Sprintf(`{"id":%q,"text":%q,"date_added":"2024-01-17 10:00","user_from":%s,"hidden":%s}`,
		id, text, person(author), people(hidden...))
}

// TestImportHidden imports, from a Worksection-shaped source, tasks and
// comments with hidden lists: each is seen by the
// members listed and its author only, a hidden task's subtask as the task
// is; one its author (not a member) would have the owner write, the
// owner not on its list, is left out with a reason, as is someone on a
// list who is not a member; a list changed in the source later changes
// who sees the object here to match.
func TestImportHidden(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		owner := testsite.OwnerEmail
		ws := &worksection{answers: map[string]string{}}
		ws.set("get_users", `[{"id":"1","first_name":"Olga","last_name":"Owner","email":"`+owner+`","role":"owner"},
			{"id":"2","first_name":"Mia","email":"`+mia+`","role":"user"},{"id":"3","first_name":"Ned","email":"`+ned+`","role":"user"}]`)
		ws.set("get_projects", `[{"id":"26","name":"Launch","status":"active","user_from":`+person(owner)+`,"users":`+people(owner, mia, ned)+`}]`)
		tasks := func(secretList ...string) string {
			return "[" + strings.Join([]string{
				wsTask("101", "Secret plan", owner, secretList, wsTask("103", "Secret step", owner, nil, "")),
				wsTask("102", "Open task", mia, nil, ""),
				wsTask("104", "Stranger's secret", stranger, []string{mia}, ""),
				wsTask("105", "Ned's secret", ned, []string{mia, "zed@else.example"}, ""),
			}, ",") + "]"
		}
		ws.set("get_tasks_26", tasks(mia))
		ws.set("get_comments_102", "["+strings.Join([]string{
			wsComment("601", "Between us", ned, mia),
			wsComment("602", "For all", mia),
			wsComment("603", "From outside", stranger, ned),
		}, ",")+"]")
		srv := httptest.NewServer(ws)
		t.Cleanup(srv.Close)
		client, err := source.New(srv.URL, "7776461cd931e7b1c8e9632ff8e979ce", source.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d.CreateAccount("moved", "Moved", owner, "Olga", "Owner")
		acct, err := d.Store.AccountBySlug(ctx, "moved")
		if err != nil {
			t.Fatal(err)
		}
		dst := importer.Dest{Account: acct, Store: d.Store}
		run := func(step string) importer.Summary {
			t.Helper()
			sum, err := importer.Run(ctx, client, dst, importer.Options{})
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			return sum
		}
		sum := run("first import")
		reported := func(sum importer.Summary, family, id, words string) bool {
			for _, s := range sum.Skipped {
				if s.Family == family && s.SourceID == id && strings.Contains(s.Reason, words) {
					return true
				}
			}
			return false
		}
		for _, want := range [][3]string{
			{importer.FamilyTasks, "104", "would be seen by more people than in the source"},
			{importer.FamilyComments, "603", "would be seen by more people than in the source"},
			{importer.FamilyTasks, "105", "zed@else.example, on the hidden list of task \"Ned's secret\", is not a member"},
		} {
			if !reported(sum, want[0], want[1], want[2]) {
				t.Errorf("not reported: %v; skipped %+v", want, sum.Skipped)
			}
		}
		if reported(sum, "hidden", "", "does not show hidden lists") {
			t.Errorf("a source that shows hidden lists is said not to: %+v", sum.Skipped)
		}

		local := func(family string) map[string]int64 {
			ms, err := d.Store.ImportMappings(ctx, acct.ID, client.URL(), family)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]int64{}
			for id, m := range ms {
				out[id] = m.LocalID
			}
			return out
		}
		taskIDs, commentIDs := local("task"), local("comment")
		if _, ok := taskIDs["104"]; ok || len(taskIDs) != 4 {
			t.Fatalf("tasks imported %v", taskIDs)
		}
		if _, ok := commentIDs["603"]; ok || len(commentIDs) != 2 {
			t.Fatalf("comments imported %v", commentIDs)
		}
		viewer := func(email string) taskd.Viewer {
			m, err := d.Store.MemberByEmail(ctx, acct.ID, email)
			if err != nil {
				t.Fatal(err)
			}
			return taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}.Viewer()
		}
		// Who sees which task: the owner, Mia, Ned.
		// nedSees101 is whether Ned is on 101's list, as the source has
		// it at the step.
		sees := func(step string, nedSees101 bool) {
			t.Helper()
			for id, want := range map[string][3]bool{
				"101": {true, true, nedSees101}, // the owner wrote it, Mia is listed
				"103": {true, true, nedSees101}, // under 101
				"102": {true, true, true},
				"105": {false, true, true}, // Ned wrote it, Mia is listed, Zed left off
			} {
				for i, who := range []string{owner, mia, ned} {
					_, err := d.Store.Task(ctx, viewer(who), taskIDs[id])
					if got := err == nil; got != want[i] {
						t.Errorf("%s: %s sees task %s: %v, want %v (%v)", step, who, id, got, want[i], err)
					}
				}
			}
			for who, want := range map[string]string{owner: "For all", mia: "Between us,For all", ned: "Between us,For all"} {
				cs, err := d.Store.Comments(ctx, viewer(who), taskIDs["102"])
				if err != nil {
					t.Fatal(err)
				}
				var texts []string
				for _, c := range cs {
					texts = append(texts, c.Text)
				}
				if got := strings.Join(texts, ","); got != want {
					t.Errorf("%s: %s sees the comments %q, want %q", step, who, got, want)
				}
			}
		}
		sees("first import", false)

		// Again: nothing new; what was left out is reported again.
		again := run("again")
		for _, c := range again.Families {
			if c.Created != 0 || c.Updated != 0 {
				t.Errorf("again: %+v", c)
			}
		}
		if !reported(again, importer.FamilyTasks, "104", "more people") {
			t.Errorf("again: 104 not reported: %+v", again.Skipped)
		}

		// The source's list of 101 changes, and who sees it here follows:
		// Ned is put on it, then Mia is the only one listed again, then
		// the list is taken off (101 seen by the whole project).
		for _, step := range []struct {
			name string
			list []string
			ned  bool
		}{
			{"Ned put on the list", []string{mia, ned}, true},
			{"Ned taken off the list", []string{mia}, false},
			{"the list taken off", nil, true},
		} {
			ws.set("get_tasks_26", tasks(step.list...))
			changed := run(step.name)
			if len(changed.Skipped) != len(sum.Skipped) {
				t.Errorf("%s: skipped %+v", step.name, changed.Skipped)
			}
			sees(step.name, step.ned)
		}
	})
}

// TestImportHiddenListOfNonMembersOnly (issue 47): a hidden list that
// names only people who are not members (nor invited) here. docs/decisions.md
// ("Hidden lists, faithfully or not at all"): each of them is left off
// and reported, and the author is always put on the list, "so a list left
// with no member still hides the object rather than show it to all".
// A task by Ned (a member) and its subtask, a comment by Mia, and a task
// by the owner are each seen by their author alone (the subtask as its
// task), never by the whole project; a task whose author is not a member
// either would have the owner write it off its list, so it is not
// imported. A second run changes nothing.
func TestImportHiddenListOfNonMembersOnly(t *testing.T) {
	d := testsite.New(t)
	ctx := context.Background()
	owner := testsite.OwnerEmail
	const zed, yan = "zed@else.example", "yan@else.example" // members of nothing here
	ws := &worksection{answers: map[string]string{}}
	ws.set("get_users", `[{"id":"1","first_name":"Olga","last_name":"Owner","email":"`+owner+`","role":"owner"},
		{"id":"2","first_name":"Mia","email":"`+mia+`","role":"user"},{"id":"3","first_name":"Ned","email":"`+ned+`","role":"user"}]`)
	ws.set("get_projects", `[{"id":"26","name":"Launch","status":"active","user_from":`+person(owner)+`,"users":`+people(owner, mia, ned)+`}]`)
	ws.set("get_tasks_26", "["+strings.Join([]string{
		wsTask("201", "Ned's own", ned, []string{zed, yan}, wsTask("202", "Ned's step", ned, nil, "")),
		wsTask("203", "Olga's own", owner, []string{zed}, ""),
		wsTask("204", "Open task", mia, nil, ""),
		wsTask("205", "Stranger's own", stranger, []string{zed}, ""),
	}, ",")+"]")
	ws.set("get_comments_204", "["+wsComment("701", "Mia's note", mia, yan)+"]")
	srv := httptest.NewServer(ws)
	t.Cleanup(srv.Close)
	client, err := source.New(srv.URL, "7776461cd931e7b1c8e9632ff8e979ce", source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.CreateAccount("moved", "Moved", owner, "Olga", "Owner")
	acct, err := d.Store.AccountBySlug(ctx, "moved")
	if err != nil {
		t.Fatal(err)
	}
	dst := importer.Dest{Account: acct, Store: d.Store}
	sum, err := importer.Run(ctx, client, dst, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range [][3]string{
		{importer.FamilyTasks, "201", zed + ", on the hidden list of task \"Ned's own\", is not a member"},
		{importer.FamilyTasks, "201", yan + ", on the hidden list of task \"Ned's own\", is not a member"},
		{importer.FamilyTasks, "203", zed + ", on the hidden list of task \"Olga's own\", is not a member"},
		{importer.FamilyComments, "701", yan + ", on the hidden list of a comment, is not a member"},
		{importer.FamilyTasks, "205", "would be seen by more people than in the source; not imported"},
	} {
		found := false
		for _, s := range sum.Skipped {
			found = found || s.Family == want[0] && s.SourceID == want[1] && strings.Contains(s.Reason, want[2])
		}
		if !found {
			t.Errorf("not reported: %v; skipped %+v", want, sum.Skipped)
		}
	}
	ms, err := d.Store.ImportMappings(ctx, acct.ID, client.URL(), "task")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ms["205"]; ok || len(ms) != 4 {
		t.Fatalf("tasks imported: %v, want 201 to 204", ms)
	}
	cms, err := d.Store.ImportMappings(ctx, acct.ID, client.URL(), "comment")
	if err != nil || len(cms) != 1 {
		t.Fatalf("comments imported: %v %v", cms, err)
	}
	viewer := func(email string) taskd.Viewer {
		m, err := d.Store.MemberByEmail(ctx, acct.ID, email)
		if err != nil {
			t.Fatal(err)
		}
		return taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}.Viewer()
	}
	check := func(step string) {
		t.Helper()
		for id, seenBy := range map[string]string{"201": ned, "202": ned, "203": owner, "204": ""} {
			for _, who := range []string{owner, mia, ned} {
				_, err := d.Store.Task(ctx, viewer(who), ms[id].LocalID)
				if want := seenBy == "" || seenBy == who; (err == nil) != want {
					t.Errorf("%s: %s sees task %s: %v, want %v (%v)", step, who, id, err == nil, want, err)
				}
			}
		}
		for _, who := range []string{owner, mia, ned} {
			cs, err := d.Store.Comments(ctx, viewer(who), ms["204"].LocalID)
			if err != nil {
				t.Fatal(err)
			}
			if want := who == mia; (len(cs) == 1) != want || len(cs) > 1 {
				t.Errorf("%s: %s sees %d comments on the open task, want Mia's hidden note seen by Mia alone", step, who, len(cs))
			}
		}
	}
	check("the first run")
	again, err := importer.Run(ctx, client, dst, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range again.Families {
		if c.Created != 0 || c.Updated != 0 {
			t.Errorf("again: %+v", c)
		}
	}
	check("again")
}
