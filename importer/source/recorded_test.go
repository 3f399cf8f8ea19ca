package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/importer/source/sourcetest"
)

const testKey = sourcetest.Key

func recordedClient(t *testing.T) (*Client, *sourcetest.Recorded) {
	t.Helper()
	rec, u := sourcetest.Start(t, filepath.Join("testdata", "worksection"))
	c, err := New(u, testKey, Options{Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestRecordedWorksection decodes answers in the shapes of the spec
// (account-api.md), with fields taskd never sends (avatar, services,
// contacts, data_added, custom_fields, time_end, date_closed, color,
// from_me), ids as strings and as numbers, people as objects and as
// display names (C1), tags as a map and as a list (C22), options as flags
// and as a list (C23), a tag's group as a title (C26).
func TestRecordedWorksection(t *testing.T) {
	c, rec := recordedClient(t)
	ctx := context.Background()
	olga := Person{ID: "120", Email: "olga@acme.example", Name: "Olga Owner"}
	bob := Person{ID: "121", Email: "bob@acme.example", Name: "Bob Builder"}

	users := must[[]User](t)(c.Users(ctx))
	eq(t, "users", users, []User{
		{ID: "120", FirstName: "Olga", LastName: "Owner", Name: "Olga Owner", Title: "CEO", Group: "Acme", Department: "Board", Role: "owner",
			Email: "olga@acme.example", Phone: "+1 555 0100", Phone3: "555-0199", Address: "1 Main St", Contacts: "Skype: olga.owner",
			Rate: "35.50", Added: at("2019-04-01 08:15")},
		{ID: "121", FirstName: "Bob", LastName: "Builder", Name: "Bob Builder", Group: "Acme", Role: "user", Email: "bob@acme.example",
			Added: at("2020-02-29 23:59")},
	})
	eq(t, "teams", must[[]Team](t)(c.Teams(ctx)), []Team{{ID: "7", Title: "Acme", Type: "company"}, {ID: "8", Title: "Client team", Type: "company", Client: true}})
	eq(t, "contacts", must[[]Contact](t)(c.Contacts(ctx)), []Contact{{ID: "900", FirstName: "Carl", LastName: "Contact", Name: "Carl Contact",
		Title: "Buyer", Group: "Vendors", Email: "carl@vendor.example", Phone: "555-0100", Added: at("2021-05-06 07:08")}})
	eq(t, "contact folders", must[[]Folder](t)(c.ContactFolders(ctx)), []Folder{{ID: "31", Title: "Vendors", Type: "folder"}})
	eq(t, "project folders", must[[]Folder](t)(c.ProjectFolders(ctx)), []Folder{{ID: "41", Title: "Clients", Type: "company", Client: true}, {ID: "42", Title: "Internal", Type: "folder"}})
	workflow := TagGroup{ID: "3", Title: "Workflow", Type: "status", Access: "public"}
	topics := TagGroup{ID: "4", Title: "Topics", Type: "label", Access: "private"}
	eq(t, "task tag groups", must[[]TagGroup](t)(c.TagGroups(ctx, TaskTags)), []TagGroup{workflow, topics})
	eq(t, "project tag groups", must[[]TagGroup](t)(c.TagGroups(ctx, ProjectTags)), []TagGroup{{ID: "5", Title: "Kind", Type: "label", Access: "public"}})
	eq(t, "task tags", must[[]Tag](t)(c.Tags(ctx, TaskTags)), []Tag{{ID: "11", Title: "Doing", Group: workflow}, {ID: "12", Title: "Review", Group: workflow}, {ID: "13", Title: "Legal", Group: topics}})
	eq(t, "project tags", must[[]Tag](t)(c.Tags(ctx, ProjectTags)), []Tag{{ID: "21", Title: "Fixed price", Group: TagGroup{Title: "Kind"}}})
	if _, err := c.Tags(ctx, "user"); err == nil {
		t.Error("a tag kind of neither tasks nor projects is taken")
	}

	projects := must[[]Project](t)(c.Projects(ctx))
	eq(t, "projects", projects, []Project{
		{ID: "26", Name: "Launch", Page: "/project/26/", Status: "active", Author: olga, Manager: bob, Text: "The launch.\nTwo lines.",
			Added: at("2024-01-15 09:30"), Start: "2024-02-01", End: "2024-06-30", Folder: "Clients", MaxMinutes: 120 * 60, MaxCents: 500000,
			Tags:    []TagRef{{ID: "21", Title: "Fixed price"}},
			Options: map[string]bool{"allow_close": true, "time_require": false, "timer_only": false, "deny_task_delete": true},
			Members: []Person{olga, bob}},
		{ID: "27", Name: "Old site", Page: "/project/27/", Status: "archive", Author: olga,
			Manager: Person{ID: "1", Email: "NOONE", Name: "Executive isn't assigned"}, Added: at("2022-03-01 10:00"),
			Closed: at("2023-01-31 18:45"), Options: map[string]bool{"time_today": true}},
	})
	if !projects[1].Manager.Nobody() {
		t.Error("NOONE is not nobody")
	}

	tasks := must[[]Task](t)(c.Tasks(ctx, "26"))
	outline := Task{ID: "104", Name: "Outline", Page: "/project/26/101/103/104/", ProjectID: "26", ParentID: "103", Level: 3, Status: "done",
		Priority: 0, Author: Person{Name: "Bob Builder"}, Assignee: Person{Name: "Executive isn't assigned"},
		Added: at("2024-01-17 11:05"), Closed: at("2024-01-18 09:00")}
	draft := Task{ID: "103", Name: "First draft", Page: "/project/26/101/103/", ProjectID: "26", ParentID: "101", Level: 2, Status: "done",
		Priority: 1, Author: bob, Assignee: Person{Email: "ANY", Name: "Anyone"}, Added: at("2024-01-17 11:00"), Closed: at("2024-01-20 12:00"),
		Children: []Task{outline}}
	eq(t, "tasks", tasks, []Task{
		{ID: "101", Name: "Write copy", Page: "/project/26/101/", ProjectID: "26", Level: 1, Status: "active", Priority: 5, Author: olga,
			Assignee: bob, Text: "Draft the copy", Added: at("2024-01-16 10:00"), Start: "2024-02-01", End: "2024-02-10", TimeEnd: "17:30",
			MaxMinutes: 90, MaxCents: 5000, Tags: []TagRef{{ID: "12", Title: "Review"}, {ID: "13", Title: "Legal"}},
			Files:       []File{{ID: "501", Name: "brief.txt", Page: "/download/501", Size: 11}},
			Subscribers: []Person{olga}, From: []Relation{{Type: "finish-to-start", Task: "102"}}, Children: []Task{draft}},
		{ID: "102", Name: "Research", Page: "/project/26/102/", ProjectID: "26", Level: 1, Status: "done", Priority: 1, Author: olga,
			Assignee: Person{ID: "1", Email: "NOONE", Name: "Executive isn't assigned"}, Added: at("2024-01-15 09:45"),
			Closed: at("2024-01-30 16:00"), To: []Relation{{Type: "finish-to-start", Task: "101"}}},
	})
	if !tasks[0].Children[0].Assignee.Anyone() {
		t.Error("ANY is not anyone")
	}
	if a := tasks[0].Children[0].Children[0].Assignee; !a.Nobody() || a.Anyone() {
		t.Error("\"Executive isn't assigned\" alone is not nobody")
	}
	var walked []string
	Walk(tasks, func(t *Task) { walked = append(walked, t.ID) })
	eq(t, "walk", walked, []string{"101", "103", "104", "102"})

	comments := must[[]Comment](t)(c.Comments(ctx, "101"))
	eq(t, "comments", comments, []Comment{
		{ID: "601", Page: "/project/26/101/#com601", Text: "Started", TaskID: "101", Added: at("2024-01-16 10:05"), Author: bob,
			Files: []File{{ID: "502", Name: "passwd", Page: "/download/502", Size: 5}}},
		{ID: "602", Text: "Old style", TaskID: "101", Added: at("2024-01-16 10:06"), Author: Person{Email: "olga@acme.example", Name: "Olga Owner"}},
	})

	costs := must[[]Cost](t)(c.ProjectCosts(ctx, "26", tasks))
	eq(t, "costs", costs, []Cost{
		{ID: "701", Comment: "Copy", Minutes: 90, Cents: 2550, Date: "2024-01-16", Author: bob, TaskID: "103", ProjectID: "26"},
		{ID: "702", Minutes: 600, Cents: 10000, Date: "2024-01-17", IsTimer: true, Author: Person{Email: "olga@acme.example", Name: "Olga Owner"}, TaskID: "101", ProjectID: "26"},
	})

	all := must[[]File](t)(c.Files(ctx, "26", ""))
	own := OwnFiles(all, tasks[0].Files, comments[0].Files)
	if len(own) != 1 || own[0].ID != "500" || own[0].Author != olga || !own[0].Added.Equal(at("2024-01-15 09:31")) {
		t.Errorf("the project's own files: %+v", own)
	}
	for _, f := range all {
		var b strings.Builder
		size, sum, err := c.Download(ctx, f, &b)
		if err != nil {
			t.Fatal(err)
		}
		want := sha256.Sum256([]byte(rec.Files[f.ID]))
		if size != int64(len(rec.Files[f.ID])) || sum != hex.EncodeToString(want[:]) || b.String() != rec.Files[f.ID] {
			t.Errorf("download %s: %d %s %q", f.ID, size, sum, b.String())
		}
	}
	// A file the source lists with another size is refused.
	if _, _, err := c.Download(ctx, File{ID: "501", Size: 12}, new(strings.Builder)); err == nil || !strings.Contains(err.Error(), "listed 12") {
		t.Errorf("a size mismatch: %v", err)
	}
	// A download's error answer is the API's error.
	if _, _, err := c.Download(ctx, File{ID: "999", Size: -1}, new(strings.Builder)); err == nil || !strings.Contains(err.Error(), "code 25") {
		t.Errorf("a missing file: %v", err)
	}

	// The requests were signed as the PHP SDK signs them, action first,
	// and asked for the extras.
	want := map[string]bool{
		"action=get_projects&extra=text%2Coptions%2Cusers":                                                true,
		"action=get_projects&filter=archive&extra=text%2Coptions%2Cusers":                                 true,
		"action=get_tasks&id_project=26&extra=text%2Cfiles%2Csubscribers%2Crelations%2Csubtasks%2Chidden": true,
		"action=get_comments&id_task=101&extra=files%2Chidden":                                            true,
		"action=get_costs&id_project=26":                                                                  true,
	}
	for _, q := range rec.Queries() {
		delete(want, q)
	}
	if len(want) > 0 {
		t.Errorf("not asked: %v (asked %v)", want, rec.Queries())
	}
}

// TestHostileAnswers: what the source sends is bounded: long names and
// texts are cut to taskd's limits and noted, nesting beyond three levels
// of tasks or MaxDepth of JSON is refused, ids must be ids, an answer over
// MaxAnswerBytes and a file over MaxFileBytes are refused with a clear
// error, and redirects to another host are not followed.
func TestHostileAnswers(t *testing.T) {
	serve := func(t *testing.T, h http.HandlerFunc, o Options) *Client {
		t.Helper()
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		o.Sleep = func(context.Context, time.Duration) error { return nil }
		c, err := New(srv.URL, testKey, o)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	body := func(s string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(s))
		}
	}
	ctx := context.Background()

	t.Run("long values are cut and noted", func(t *testing.T) {
		long := strings.Repeat("é", 400) // 800 bytes
		c := serve(t, body(`{"status":"ok","data":[{"id":"1","name":"`+long+`\nx","text":"a\u0000b\r\nc","status":"active","priority":"1"}]}`), Options{})
		tasks := must[[]Task](t)(c.Tasks(ctx, "9"))
		if len(tasks[0].Name) > 500 || !strings.HasPrefix(tasks[0].Name, "éé") || len(tasks[0].Notes) != 1 {
			t.Errorf("name %d bytes, notes %v", len(tasks[0].Name), tasks[0].Notes)
		}
		if tasks[0].Text != "ab\nc" {
			t.Errorf("text %q", tasks[0].Text)
		}
	})
	t.Run("four levels of tasks", func(t *testing.T) {
		c := serve(t, body(`{"status":"ok","data":[{"id":"1","child":[{"id":"2","child":[{"id":"3","child":[{"id":"4"}]}]}]}]}`), Options{})
		if _, err := c.Tasks(ctx, "9"); err == nil || !strings.Contains(err.Error(), "deeper than 3") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("deep JSON", func(t *testing.T) {
		c := serve(t, body(`{"status":"ok","data":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}`), Options{})
		if _, err := c.Users(ctx); err == nil || !strings.Contains(err.Error(), "nests deeper") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("an id that is not one", func(t *testing.T) {
		c := serve(t, body(`{"status":"ok","data":[{"id":"../1","title":"x"}]}`), Options{})
		if _, err := c.ProjectFolders(ctx); err == nil || !strings.Contains(err.Error(), "not an id") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("a large answer", func(t *testing.T) {
		c := serve(t, body(`{"status":"ok","data":[{"id":"1","title":"`+strings.Repeat("x", 2000)+`"}]}`), Options{MaxAnswerBytes: 1000})
		if _, err := c.Teams(ctx); err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("a large file", func(t *testing.T) {
		c := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.(http.Flusher).Flush() // no Content-Length: the bound is met while reading
			w.Write([]byte(strings.Repeat("x", 2000)))
		}, Options{MaxFileBytes: 1000})
		if _, _, err := c.Download(ctx, File{ID: "1", Size: -1}, new(strings.Builder)); err == nil || !strings.Contains(err.Error(), "larger than the download bound") {
			t.Errorf("got %v", err)
		}
		if _, _, err := c.Download(ctx, File{ID: "1", Size: 5000}, new(strings.Builder)); err == nil {
			t.Error("a file listed over the bound is fetched")
		}
	})
	t.Run("a redirect to another host", func(t *testing.T) {
		other := httptest.NewServer(body(`{"status":"ok","data":[]}`))
		t.Cleanup(other.Close)
		c := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/api/admin/v2?"+r.URL.RawQuery, http.StatusFound)
		}, Options{Retry: RetryPolicy{Attempts: 1}})
		if _, _, err := c.Download(ctx, File{ID: "1", Size: -1}, new(strings.Builder)); err == nil || !strings.Contains(err.Error(), "another host") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("the account URL", func(t *testing.T) {
		for _, u := range []string{"ftp://x", "https://user:pw@x.example", "https://x.example/?a=1", "/relative", ""} {
			if _, err := New(u, testKey, Options{}); err == nil {
				t.Errorf("%q is taken", u)
			}
		}
		if _, err := New("https://x.example", "", Options{}); err == nil {
			t.Error("an empty key is taken")
		}
	})
}
