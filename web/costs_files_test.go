package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

// TestCostPages: time and money in the pages. The
// owner logs a line on a task and sees it with the total; a bad time is
// a 422 naming the problem; a timer started on the task shows in the
// header of every page of the account, survives a restart (a second
// server on the same database stops it and logs the time that passed),
// and its line is marked; a user cannot change the owner's line; a rate
// prices time; budgets show progress on the task and the project, and an
// overrun says by how much.
func TestCostPages(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		acct, by := s.Owner()
		p, err := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Site")})
		if err != nil {
			t.Fatal(err)
		}
		task, err := s.Store.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Design"), MaxMinutes: new(int64(120))})
		if err != nil {
			t.Fatal(err)
		}
		base := s.AccountURL()
		taskURL := base + task.Page()
		b := s.SignedIn(testsite.OwnerEmail)

		action := "/a/" + s.Slug + "/tasks/" + strconv.FormatInt(task.ID, 10) + "/costs"
		var (
			pg    testsite.Page
			lines []taskd.Cost
			u     *testsite.Browser
		)

		if !t.Run("the owner logs a line and sees it with the total, and a bad time is refused", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			pg = b.Get(taskURL)
			if !strings.Contains(pg.Body, "No time or money logged yet.") || !strings.Contains(pg.Body, "Time: 0:00 of 2:00 (0%)") {
				t.Fatalf("an empty task's costs:\n%s", pg.Body)
			}
			bad := b.Submit(s.Base, pg, action, url.Values{"time": {"1:75"}, "date": {"2026-03-02"}})
			if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "Time is hours, as 1.5, 1,5 or 1:30") {
				t.Fatalf("a bad time: HTTP %d\n%s", bad.Status, bad.Body)
			}
			if loc := b.Submit(s.Base, pg, action, url.Values{"time": {"1:30"}, "money": {"12,5"}, "date": {"2026-03-02"},
				"comment": {"Sketches"}}).Location(t); loc.Path != "/a/"+s.Slug+task.Page() || loc.Fragment != "costs" {
				t.Fatalf("after logging: %v", loc)
			}
			pg = b.Get(taskURL)
			for _, want := range []string{`<td class="date">2026-03-02</td>`, `<td class="num">1:30</td>`, `<td class="num">12.50</td>`, "Sketches",
				"Logged: 1:30 and 12.50 USD in 1 line", "Time: 1:30 of 2:00 (75%)", `<progress max="120" value="90">`} {
				if !strings.Contains(pg.Body, want) {
					t.Fatalf("the task page lacks %q:\n%s", want, pg.Body)
				}
			}
		}) {
			return
		}

		// Stopped by a second server after an hour and a half.
		if !t.Run("a timer started on the task shows in other pages' header, survives a restart, and its line is marked", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			timerAction := "/a/" + s.Slug + "/tasks/" + strconv.FormatInt(task.ID, 10) + "/timer"
			b.Submit(s.Base, pg, timerAction, nil).Location(t)
			projectPage := b.Get(base + p.Page())
			if !strings.Contains(projectPage.Body, `class="header-timer"`) || !strings.Contains(projectPage.Body, `Your timer on </span><span class="timer-task">Design</span>`) {
				t.Fatalf("the header shows no timer:\n%s", projectPage.Body)
			}
			s.Clock.Advance(90*time.Minute + 20*time.Second)
			restarted := s.Replica()
			pg = b.Get(restarted + "/a/" + s.Slug + task.Page())
			if !strings.Contains(pg.Body, "Your timer is running on this task") || !strings.Contains(pg.Body, ">1:30:2") {
				t.Fatalf("after a restart the timer is gone or lost time:\n%s", pg.Body)
			}
			f := pg.Form(t, "next", "/a/"+s.Slug+task.Page()+"#costs")
			f.Set("comment", "Layout")
			if loc := b.Post(restarted+"/a/"+s.Slug+"/timer/stop", f).Location(t); loc.Fragment != "costs" {
				t.Fatalf("after stopping: %v", loc)
			}
			pg = b.Get(taskURL)
			if strings.Contains(pg.Body, `class="header-timer"`) || !strings.Contains(pg.Body, `Layout <span class="badge">timer</span>`) ||
				!strings.Contains(pg.Body, "Logged: 3:00 and 12.50 USD in 2 lines") || !strings.Contains(pg.Body, "Time: 3:00 of 2:00 (150%)") ||
				!strings.Contains(pg.Body, "Over by 1:00") {
				t.Fatalf("the timer's line and the overrun:\n%s", pg.Body)
			}
		}) {
			return
		}

		if !t.Run("a user sees the owner's lines without forms to change them, and a forged change is refused", func(t *testing.T) {
			s := s.In(t)
			var err error
			lines, err = s.Store.Costs(ctx, taskd.CostQuery{Viewer: taskd.AccountViewer(acct.ID)})
			if err != nil || len(lines) != 2 {
				t.Fatalf("lines %v, %v", lines, err)
			}
			u = s.SignedIn(testsite.UserEmail)
			upg := u.Get(taskURL)
			if strings.Contains(upg.Body, "/costs/"+strconv.FormatInt(lines[0].ID, 10)+"/update") {
				t.Fatalf("a user may edit the owner's line:\n%s", upg.Body)
			}
			forged := upg.Form(t, "", "")
			forged.Set("time", "9")
			if r := u.Post(base+"/costs/"+strconv.FormatInt(lines[0].ID, 10)+"/update", forged); r.Status != http.StatusForbidden {
				t.Fatalf("a forged change of the owner's line: HTTP %d", r.Status)
			}
		}) {
			return
		}

		if !t.Run("the owner edits their line", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			edit := "/a/" + s.Slug + "/costs/" + strconv.FormatInt(lines[0].ID, 10) + "/update"
			b.Submit(s.Base, b.Get(taskURL), edit, url.Values{"time": {"2"}, "money": {"0"}, "date": {"2026-03-01"}, "comment": {"Fewer sketches"}}).Location(t)
			if got, _ := s.Store.Cost(ctx, taskd.AccountViewer(acct.ID), lines[0].ID); got.Minutes != 120 || got.Cents != 0 || got.Date != "2026-03-01" {
				t.Fatalf("the owner's edit: %+v", got)
			}
		}) {
			return
		}

		if !t.Run("a rate set on the people page prices the user's time", func(t *testing.T) {
			s, b, u := s.In(t), b.In(t), u.In(t)
			peoplePage := b.Get(base + "/people")
			uma, _ := s.Store.MemberByEmail(ctx, acct.ID, testsite.UserEmail)
			rateAction := "/a/" + s.Slug + "/people/" + strconv.FormatInt(uma.ID, 10) + "/rate"
			if r := b.Submit(s.Base, peoplePage, rateAction, url.Values{"rate": {"abc"}}); r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("a bad rate: HTTP %d", r.Status)
			}
			b.Submit(s.Base, peoplePage, rateAction, url.Values{"rate": {"40"}}).Location(t)
			upg := u.Get(taskURL)
			if !strings.Contains(upg.Body, "Price the time at my hourly rate") {
				t.Fatalf("no rate choice for a user with a rate:\n%s", upg.Body)
			}
			u.Submit(s.Base, upg, action, url.Values{"time": {"0:45"}, "is_rate": {"1"}, "date": {"2026-03-03"}}).Location(t)
			if r := regexp.MustCompile(`<td class="num">0:45</td><td class="num">([0-9.]+)</td>`).FindStringSubmatch(u.Get(taskURL).Body); r == nil || r[1] != "30.00" {
				t.Fatalf("45 minutes at 40.00: %v", r)
			}
		}) {
			return
		}

		if !t.Run("the owner deletes a line", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			del := "/a/" + s.Slug + "/costs/" + strconv.FormatInt(lines[1].ID, 10) + "/delete"
			b.Submit(s.Base, b.Get(taskURL), del, nil).Location(t)
			if _, err := s.Store.Cost(ctx, taskd.AccountViewer(acct.ID), lines[1].ID); !taskd.IsNotFound(err) {
				t.Fatalf("a deleted line: %v", err)
			}
		}) {
			return
		}

		t.Run("the project's budget shows its progress", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			budget := "/a/" + s.Slug + p.Page() + "budget"
			pp := b.Get(base + p.Page())
			if r := b.Submit(s.Base, pp, budget, url.Values{"max_time": {"lots"}}); r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("a bad budget: HTTP %d", r.Status)
			}
			b.Submit(s.Base, pp, budget, url.Values{"max_time": {"10"}, "max_money": {"100"}}).Location(t)
			pp = b.Get(base + p.Page())
			if !strings.Contains(pp.Body, "Time: 2:45 of 10:00 (27%)") || !strings.Contains(pp.Body, "Money: 30.00 of 100.00 USD (30%)") {
				t.Fatalf("the project's budget:\n%s", pp.Body)
			}
		})
	})
}

// TestFilePages: files in the pages. Files attached to
// a task, a comment and a project are listed with their size and author
// and download as attachments that are never rendered (HTML goes out as
// octet-stream, nosniff); a form without its token stores nothing; too
// many files are refused with nothing kept; a user cannot delete the
// owner's file, the owner can; a guest off the project gets "not found",
// and so does a member other than its uploader for an upload not attached.
func TestFilePages(t *testing.T) {
	t.Parallel() // a site of its own; runs beside the other heavy page tests
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		ctx := context.Background()
		acct, by := s.Owner()
		p, _ := s.Store.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Site")})
		task, err := s.Store.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Design")})
		if err != nil {
			t.Fatal(err)
		}
		base := s.AccountURL()
		b := s.SignedIn(testsite.OwnerEmail)
		csrf := b.Get(base+task.Page()).Form(t, "", "").Get("csrf")
		tid := strconv.FormatInt(task.ID, 10)

		var (
			files  []taskd.File
			html   taskd.File
			before int64
		)

		if !t.Run("a form without its token stores nothing", func(t *testing.T) {
			b := b.In(t)
			if r := b.PostMultipart(base+"/tasks/"+tid+"/files", nil, testsite.FormFile{Field: "attach[]", Name: "x.txt", Type: "text/plain", Content: "x"}); r.Status != http.StatusForbidden {
				t.Fatalf("files without the form token: HTTP %d", r.Status)
			}
		}) {
			return
		}

		if !t.Run("files attach to a task, a comment, a project and a task made with them", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			r := b.PostMultipart(base+"/tasks/"+tid+"/files", [][2]string{{"csrf", csrf}},
				testsite.FormFile{Field: "attach[]", Name: "mockup.html", Type: "text/html", Content: "<script>alert(1)</script>"}, testsite.FormFile{Field: "attach[]", Name: "notes.txt", Type: "text/plain", Content: strings.Repeat("n", 2048)})
			if loc := r.Location(t); loc.Fragment != "files" {
				t.Fatalf("after attaching: %v", loc)
			}
			b.PostMultipart(base+"/tasks/"+tid+"/comments", [][2]string{{"csrf", csrf}, {"text", "Signed copy attached"}},
				testsite.FormFile{Field: "attach[]", Name: "signed.pdf", Type: "application/pdf", Content: "%PDF"}).Location(t)
			b.PostMultipart(base+p.Page()+"files", [][2]string{{"csrf", csrf}}, testsite.FormFile{Field: "attach[]", Name: "brief.txt", Type: "text/plain", Content: "brief"}).Location(t)
			b.PostMultipart(base+p.Page()+"tasks", [][2]string{{"csrf", csrf}, {"title", "Born with a file"}, {"return", "project"}},
				testsite.FormFile{Field: "attach[]", Name: "spec.txt", Type: "text/plain", Content: "spec"}).Location(t)
			born, err := s.Store.Tasks(ctx, taskd.TaskQuery{Viewer: taskd.AccountViewer(acct.ID), ProjectID: p.ID, Filter: taskd.QueryCond{Field: taskd.FieldName, Op: "=", Text: "Born with a file"}})
			if err != nil || len(born) != 1 {
				t.Fatalf("the task made with a file: %v, %v", born, err)
			}
			if fs, _ := s.Store.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: born[0].ID}); len(fs) != 1 || fs[0].Name != "spec.txt" {
				t.Fatalf("its files: %+v", fs)
			}
		}) {
			return
		}

		if !t.Run("the pages list the files with their size and author", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			var err error
			files, err = s.Store.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(acct.ID), TaskID: task.ID})
			if err != nil || len(files) != 3 {
				t.Fatalf("files %v, %v", files, err)
			}
			pg := b.Get(base + task.Page())
			for _, want := range []string{"mockup.html", "2.0 KB", "Signed copy attached", "signed.pdf", `href="/a/` + s.Slug + `/download/`} {
				if !strings.Contains(pg.Body, want) {
					t.Fatalf("the task page lacks %q:\n%s", want, pg.Body)
				}
			}
			if pp := b.Get(base + p.Page()); !strings.Contains(pp.Body, "brief.txt") || strings.Contains(pp.Body, "mockup.html") {
				t.Fatalf("the project page's files:\n%s", pp.Body)
			}
		}) {
			return
		}

		if !t.Run("a download is an attachment, never rendered", func(t *testing.T) {
			b := b.In(t)
			html = files[0]
			dl := b.Get(base + html.Page())
			if dl.Body != "<script>alert(1)</script>" || dl.Header.Get("Content-Type") != "application/octet-stream" ||
				dl.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(dl.Header.Get("Content-Disposition"), `attachment; filename="mockup.html"`) {
				t.Fatalf("a download: %q %v", dl.Body, dl.Header)
			}
		}) {
			return
		}

		if !t.Run("too many files are refused, and nothing is kept", func(t *testing.T) {
			b := b.In(t)
			many := make([]testsite.FormFile, 21)
			for i := range many {
				many[i] = testsite.FormFile{Field: "attach[]", Name: "f.txt", Type: "text/plain", Content: "f"}
			}
			before, _ = s.Store.FileBytes(ctx, acct.ID)
			if r := b.PostMultipart(base+"/tasks/"+tid+"/files", [][2]string{{"csrf", csrf}}, many...); r.Status != http.StatusUnprocessableEntity ||
				!strings.Contains(r.Body, "Attach at most 20 files at once") {
				t.Fatalf("21 files: HTTP %d", r.Status)
			}
			if after, _ := s.Store.FileBytes(ctx, acct.ID); after != before {
				t.Fatalf("a refused form left %d bytes", after-before)
			}
		}) {
			return
		}

		if !t.Run("a task refused after its files were stored leaves none of them", func(t *testing.T) {
			b := b.In(t)
			if r := b.PostMultipart(base+p.Page()+"tasks", [][2]string{{"csrf", csrf}, {"title", "Backwards"}, {"datestart", "2026-05-02"}, {"dateend", "2026-05-01"}},
				testsite.FormFile{Field: "attach[]", Name: "plan.txt", Type: "text/plain", Content: "plan"}); r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("a task ending before it starts: HTTP %d", r.Status)
			}
			if after, _ := s.Store.FileBytes(ctx, acct.ID); after != before {
				t.Fatalf("a refused task left %d bytes of its files", after-before)
			}
		}) {
			return
		}

		if !t.Run("a user cannot delete the owner's file; the owner can", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			u := s.SignedIn(testsite.UserEmail)
			upg := u.Get(base + task.Page())
			if strings.Contains(upg.Body, "/files/"+strconv.FormatInt(html.ID, 10)+"/delete") {
				t.Fatalf("a user may delete the owner's file:\n%s", upg.Body)
			}
			forged := upg.Form(t, "", "")
			if r := u.Post(base+"/files/"+strconv.FormatInt(html.ID, 10)+"/delete", forged); r.Status != http.StatusForbidden {
				t.Fatalf("a forged delete: HTTP %d", r.Status)
			}
			b.Submit(s.Base, b.Get(base+task.Page()), "/a/"+s.Slug+"/files/"+strconv.FormatInt(html.ID, 10)+"/delete", nil).Location(t)
			if r := b.Get(base + html.Page()); r.Status != http.StatusNotFound {
				t.Fatalf("a deleted file downloads: HTTP %d", r.Status)
			}
		}) {
			return
		}

		t.Run("a guest off the project gets \"not found\" for its files", func(t *testing.T) {
			s := s.In(t)
			s.AddMember(s.Slug, "guest@acme.example", "Gus", "Guest", taskd.RoleGuest)
			if _, err := s.Store.SetPassword(ctx, mustPerson(t, s, "guest@acme.example"), taskd.PasswordChange{Hash: mustPasswordHash(t, s)}); err != nil {
				t.Fatal(err)
			}
			g := s.SignedIn("guest@acme.example")
			if r := g.Get(base + files[1].Page()); r.Status != http.StatusNotFound {
				t.Fatalf("a guest off the project downloads: HTTP %d", r.Status)
			}
		})

		t.Run("an upload not attached is its uploader's alone", func(t *testing.T) {
			s, b := s.In(t), b.In(t)
			f, err := s.Store.CreateFile(ctx, by, "draft.txt", "text/plain", strings.NewReader("draft"), taskd.DefaultFileLimits)
			if err != nil {
				t.Fatal(err)
			}
			if r := b.Get(base + f.Page()); r.Status != http.StatusOK || r.Body != "draft" {
				t.Fatalf("the uploader's own upload: HTTP %d %q", r.Status, r.Body)
			}
			if r := s.SignedIn(testsite.UserEmail).Get(base + f.Page()); r.Status != http.StatusNotFound {
				t.Fatalf("another member downloads an upload not attached: HTTP %d", r.Status)
			}
		})
	})
}

func mustPerson(t *testing.T, s *testsite.Site, email string) int64 {
	t.Helper()
	p, err := s.Store.PersonByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func mustPasswordHash(t *testing.T, s *testsite.Site) string {
	t.Helper()
	p, err := s.Store.PersonByEmail(context.Background(), testsite.OwnerEmail)
	if err != nil {
		t.Fatal(err)
	}
	return p.PasswordHash
}
