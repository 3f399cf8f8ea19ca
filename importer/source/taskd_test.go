package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// q is a query string of pairs, in order.
func q(pairs ...string) string { return testsite.Query(pairs...) }

// attach makes the object of query with a file, as the PHP SDK's docs
// send them: a multipart POST with attach[0], the signed query in the URL.
func attach(t *testing.T, s *testsite.Site, query, name, content string) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("attach[0]", name)
	part.Write([]byte(content))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, s.AccountURL()+"/api/admin/v2?"+query+"&hash="+wire.Hash(query, s.Key), &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	status, res, _ := testsite.DoJSON(t, req)
	if status != 200 || res["status"] != "ok" {
		t.Fatalf("%s: %d %v", query, status, res)
	}
	return res["data"].(map[string]any)["id"].(string)
}

// TestReadTaskd fills a taskd account through its API with every family
// and reads it back through the client.
func TestReadTaskd(t *testing.T) {
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		owner, user := testsite.OwnerEmail, testsite.UserEmail
		s.APIOK(q("action", "add_user_group", "title", "Clients team", "client", "1"))
		s.APIOK(q("action", "add_contact", "email", "carl@vendor.example", "name", "Carl Contact", "group", "Vendors", "phone", "555-0100"))
		s.APIOK(q("action", "add_project_group", "title", "Internal"))
		s.APIOK(q("action", "add_task_tag_groups", "title", "Workflow", "type", "status"))
		s.APIOK(q("action", "add_task_tag_groups", "title", "Topics", "access", "private"))
		s.APIOK(q("action", "add_task_tags", "group", "Workflow", "title", "Doing,Review,Done"))
		s.APIOK(q("action", "add_task_tags", "group", "Topics", "title", "Legal"))
		s.APIOK(q("action", "sort_task_tags", "group", "Workflow", "order", "Review,Done,Doing"))
		s.APIOK(q("action", "sort_task_tag_groups", "order", "Topics,Workflow"))
		s.APIOK(q("action", "add_project_tag_groups", "title", "Kind"))
		s.APIOK(q("action", "add_project_tags", "group", "Kind", "title", "Fixed price"))

		pid := s.APIID(q("action", "post_project", "title", "Launch", "text", "The launch\nof it", "company", "Internal",
			"members", user, "email_manager", user, "datestart", "01.03.2026", "dateend", "30.06.2026", "max_time", "20",
			"max_money", "50.5", "tags", "Fixed price", "options.time_require", "1"))
		old := s.APIID(q("action", "post_project", "title", "Old site"))
		s.APIOK(q("action", "close_project", "id_project", old))

		top := attach(t, s, q("action", "post_task", "id_project", pid, "title", "Write copy", "text", "Draft it", "priority", "5",
			"email_user_to", user, "datestart", "02.03.2026", "dateend", "31.03.2026", "max_time", "1:30", "max_money", "25",
			"tags", "Review,Legal", "subscribe", user), "brief.txt", "hello world")
		sub := s.APIID(q("action", "post_task", "id_project", pid, "id_parent", top, "title", "First draft"))
		subsub := s.APIID(q("action", "post_task", "id_project", pid, "id_parent", sub, "title", "Outline", "priority", "0"))
		s.APIOK(q("action", "add_costs", "id_task", subsub, "time", "1:30", "money", "25,5", "comment", "Copy", "date", "02.03.2026", "email_user_from", user))
		s.APIOK(q("action", "complete_task", "id_task", subsub))
		secret := s.APIID(q("action", "post_task", "id_project", pid, "title", "Secret", "hidden", owner))
		s.APIOK(q("action", "add_task_relation", "id_task_from", secret, "id_task_to", top))
		cid := attach(t, s, q("action", "post_comment", "id_task", top, "text", "Started", "email_user_from", user), "notes.txt", "12345")
		projectFile := attach(t, s, q("action", "post_project", "title", "With a file"), "plan.pdf", "%PDF-1.7")

		c, err := New(s.AccountURL(), s.Key, Options{})
		if err != nil {
			t.Fatal(err)
		}
		people := map[string]Person{}
		for _, u := range must[[]User](t)(c.Users(ctx)) {
			people[u.Email] = Person{ID: u.ID, Email: u.Email, Name: u.Name}
			if u.Added.IsZero() || u.ID == "" {
				t.Errorf("user %+v", u)
			}
		}
		if len(people) != 2 || people[owner].Name != "Olga Owner" || people[user].Name != "Uma User" {
			t.Fatalf("users %v", people)
		}
		olga, uma := people[owner], people[user]

		teams := must[[]Team](t)(c.Teams(ctx))
		if len(teams) != 1 || teams[0].Title != "Clients team" || !teams[0].Client {
			t.Errorf("teams %+v", teams)
		}
		contacts := must[[]Contact](t)(c.Contacts(ctx))
		if len(contacts) != 1 || contacts[0].Name != "Carl Contact" || contacts[0].FirstName != "Carl" || contacts[0].Group != "Vendors" ||
			contacts[0].Phone != "555-0100" || contacts[0].Added.IsZero() {
			t.Errorf("contacts %+v", contacts)
		}
		cf := must[[]Folder](t)(c.ContactFolders(ctx))
		if len(cf) != 1 || cf[0].Title != "Vendors" {
			t.Errorf("contact folders %+v", cf)
		}
		pf := must[[]Folder](t)(c.ProjectFolders(ctx))
		if len(pf) != 1 || pf[0].Title != "Internal" {
			t.Errorf("project folders %+v", pf)
		}
		groups := must[[]TagGroup](t)(c.TagGroups(ctx, TaskTags))
		if len(groups) != 2 || groups[0].Title != "Topics" || groups[0].Access != "private" || groups[1].Title != "Workflow" || groups[1].Type != "status" {
			t.Errorf("task tag groups %+v", groups)
		}
		var titles []string
		tagID := map[string]string{}
		for _, tg := range must[[]Tag](t)(c.Tags(ctx, TaskTags)) {
			titles = append(titles, tg.Group.Title+"/"+tg.Title)
			tagID[tg.Title] = tg.ID
		}
		eq(t, "task tags in order", titles, []string{"Topics/Legal", "Workflow/Review", "Workflow/Done", "Workflow/Doing"})
		ptags := must[[]Tag](t)(c.Tags(ctx, ProjectTags))
		if len(ptags) != 1 || ptags[0].Title != "Fixed price" || ptags[0].Group.Title != "Kind" {
			t.Errorf("project tags %+v", ptags)
		}

		projects := must[[]Project](t)(c.Projects(ctx))
		byID := map[string]Project{}
		for _, p := range projects {
			byID[p.ID] = p
		}
		if len(projects) != 3 || byID[old].Status != "archive" || byID[old].Closed.IsZero() {
			t.Fatalf("projects %+v", projects)
		}
		p := byID[pid]
		if p.Name != "Launch" || p.Text != "The launch\nof it" || p.Folder != "Internal" || p.Manager != uma || p.Author != olga ||
			p.Start != "2026-03-01" || p.End != "2026-06-30" || p.MaxMinutes != 20*60 || p.MaxCents != 5050 || p.Added.IsZero() ||
			!p.Options["time_require"] || p.Options["timer_only"] || len(p.Tags) != 1 || p.Tags[0].Title != "Fixed price" {
			t.Errorf("project %+v", p)
		}
		eq(t, "members", p.Members, []Person{uma})

		tasks := must[[]Task](t)(c.Tasks(ctx, pid))
		if len(tasks) != 2 {
			t.Fatalf("tasks %+v", tasks)
		}
		w, hidden := tasks[0], tasks[1]
		if w.ID != top || w.Name != "Write copy" || w.Text != "Draft it" || w.Priority != 5 || w.Assignee != uma || w.Author != olga ||
			w.Start != "2026-03-02" || w.End != "2026-03-31" || w.MaxMinutes != 90 || w.MaxCents != 2500 || w.Status != "active" ||
			w.Level != 1 || w.ProjectID != pid || w.Added.IsZero() {
			t.Errorf("task %+v", w)
		}
		// An object's tags are a set: taskd writes its map in the order of
		// the ids' text (api/render.go renders a Go map), not in the tags'
		// order that docs/api.md promises; the client keeps whatever order
		// the answer has (TestRecordedWorksection).
		got := slices.SortedFunc(slices.Values(w.Tags), func(a, b TagRef) int { return strings.Compare(a.Title, b.Title) })
		eq(t, "tags", got, []TagRef{{ID: tagID["Legal"], Title: "Legal"}, {ID: tagID["Review"], Title: "Review"}})
		if len(w.Files) != 1 || w.Files[0].Name != "brief.txt" || w.Files[0].Size != 11 {
			t.Errorf("files %+v", w.Files)
		}
		subs := map[string]bool{}
		for _, p := range w.Subscribers {
			subs[p.Email] = true
		}
		if !subs[owner] || !subs[user] {
			t.Errorf("subscribers %+v", w.Subscribers)
		}
		eq(t, "relations", [2][]Relation{w.From, w.To}, [2][]Relation{{{Type: "finish-to-start", Task: secret}}, nil})
		eq(t, "relations of the other", [2][]Relation{hidden.From, hidden.To}, [2][]Relation{nil, {{Type: "finish-to-start", Task: top}}})
		if len(w.Children) != 1 || w.Children[0].ID != sub || w.Children[0].Level != 2 || w.Children[0].ParentID != top ||
			len(w.Children[0].Children) != 1 {
			t.Fatalf("subtasks %+v", w.Children)
		}
		o := w.Children[0].Children[0]
		if o.ID != subsub || o.Level != 3 || o.ParentID != sub || o.Status != "done" || o.Priority != 0 {
			t.Errorf("sub-subtask %+v", o)
		}
		if hidden.ID != secret || hidden.Name != "Secret" {
			t.Errorf("the hidden task %+v", hidden)
		}
		// taskd shows hidden lists with extra=hidden: the task's, and an
		// empty one for a task that lists nobody (issue 36).
		if !hidden.HiddenKnown || len(hidden.Hidden) != 1 || hidden.Hidden[0].Email != owner {
			t.Errorf("the hidden task's list: %v %+v", hidden.HiddenKnown, hidden.Hidden)
		}
		if !w.HiddenKnown || len(w.Hidden) != 0 {
			t.Errorf("an open task's list: %v %+v", w.HiddenKnown, w.Hidden)
		}

		comments := must[[]Comment](t)(c.Comments(ctx, top))
		if len(comments) != 1 || comments[0].ID != cid || comments[0].Text != "Started" || comments[0].Author != uma ||
			comments[0].Added.IsZero() || len(comments[0].Files) != 1 || comments[0].Files[0].Name != "notes.txt" || comments[0].TaskID != top {
			t.Errorf("comments %+v", comments)
		}
		costs := must[[]Cost](t)(c.ProjectCosts(ctx, pid, tasks))
		if len(costs) != 1 || costs[0].Minutes != 90 || costs[0].Cents != 2550 || costs[0].Comment != "Copy" || costs[0].Date != "2026-03-02" ||
			costs[0].Author != uma || costs[0].TaskID != subsub || costs[0].ProjectID != pid || costs[0].IsTimer {
			t.Errorf("costs %+v", costs)
		}
		all := must[[]File](t)(c.Files(ctx, pid, ""))
		if len(all) != 2 || len(OwnFiles(all, w.Files, comments[0].Files)) != 0 {
			t.Errorf("files of the project %+v", all)
		}
		withFile := must[[]File](t)(c.Files(ctx, projectFile, ""))
		if len(withFile) != 1 || withFile[0].Name != "plan.pdf" || withFile[0].Author != olga {
			t.Errorf("the project's own file %+v", withFile)
		}
		for _, f := range append(all, withFile...) {
			var b bytes.Buffer
			size, sum, err := c.Download(ctx, f, &b)
			want := sha256.Sum256(b.Bytes())
			if err != nil || size != f.Size || sum != hex.EncodeToString(want[:]) || b.Len() == 0 {
				t.Errorf("download %+v: %d %s %v", f, size, sum, err)
			}
		}
	})
}
