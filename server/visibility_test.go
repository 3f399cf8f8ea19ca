package server_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// The visibility matrix (issue 31, DESIGN §10): every read path, for every
// kind of viewer, answers by one rule, written here once (seenBy) and
// compared with what each path shows. Each object carries a mark, a word
// that appears wherever the object is shown.

// markOf is what the world knows of one marked object.
type markOf struct {
	project string   // "Alpha" or "Beta"
	task    string   // the mark of the task it is, or is on ("" for a project)
	author  string   // who made it: a viewer's name
	listed  []string // hidden: only these (and the author) see it
}

// viewerOf is one kind of viewer of the matrix.
type matrixViewer struct {
	name, email string
	role        taskd.Role
	key         bool // the administrative key
	teamAlpha   bool // a guest or reader on Alpha's team
}

// matrixWorld is the account the matrix reads: two projects (a guest and a
// reader on Alpha's team, a guest on none), a task hidden for the guest
// with a plain comment and a subtask under it, and a sub-subtask under that
// (hidden by its grandparent alone), a comment hidden for the
// reader on a visible task, cost lines and files, and a running timer.
type matrixWorld struct {
	marks   map[string]markOf
	ids     map[string]string // mark → id
	pages   map[string]string // task mark → page path
	viewers []matrixViewer
	fileH   string // the id of the file on the hidden task
	fileL   string // the id of the file on its sub-subtask
	fileCP  string // the id of the file on the hidden task's comment
}

// seenBy is the rule, written once: the key sees everything; a person sees
// projects by role (guests and readers: their team's), and a hidden task or
// comment only when listed or its author; a subtask or sub-subtask, a
// comment, a cost line or a file as the task above it.
func (w *matrixWorld) seenBy(v matrixViewer, mark string) bool {
	if v.key {
		return true
	}
	m := w.marks[mark]
	if v.role.Limited() && (m.project != "Alpha" || !v.teamAlpha) {
		return false
	}
	hiddenFrom := func(o markOf) bool {
		return len(o.listed) > 0 && o.author != v.name && !slices.Contains(o.listed, v.name)
	}
	for o := m; ; o = w.marks[o.task] {
		if hiddenFrom(o) {
			return false
		}
		if o.task == "" {
			return true
		}
	}
}

const (
	markAlpha, markBeta             = "Alpha-mark", "Beta-mark"
	markH, markS, markV, markT      = "Hidden-H-mark", "Sub-S-mark", "Visible-V-mark", "Beta-T-mark"
	markCP, markCH, markCV          = "Plain-on-H-mark", "Secret-on-V-mark", "Plain-on-V-mark"
	markCostH, markCostV, markCostB = "Cost-on-H-mark", "Cost-on-V-mark", "Cost-on-B-mark"
	markFileH, markFileB            = "file-H-mark.txt", "file-B-mark.txt"
	markCostS, markFileCP           = "Cost-on-S-mark", "file-CP-mark.txt"
	markL, markCostL, markFileL     = "Leaf-L-mark", "Cost-on-L-mark", "file-L-mark.txt"
	markLast                        = "Last-mark"
	guestEmail, readerEmail, gia    = "gus@acme.example", "rea@acme.example", "gia@acme.example"
	matrixAdmin                     = "ada@acme.example"
	costHMoney                      = "777.00"
)

var (
	allTasks   = []string{markH, markS, markL, markV, markT}
	allCosts   = []string{markCostH, markCostS, markCostL, markCostV, markCostB}
	eventMarks = []string{markAlpha, markBeta, markH, markS, markL, markV, markT, markCP, markCH, markCV}
)

// newMatrixWorld makes the world through the store, as its people would.
func newMatrixWorld(t *testing.T, s *testsite.Site) *matrixWorld {
	ctx := context.Background()
	acct, owner := s.Owner()
	actorOf := func(email string) taskd.Actor {
		m, err := s.Store.MemberByEmail(ctx, acct.ID, email)
		if err != nil {
			t.Fatal(err)
		}
		return taskd.Actor{AccountID: acct.ID, Person: m.Ref(), Role: m.Role}
	}
	ada := actorOf(matrixAdmin)
	w := &matrixWorld{ids: map[string]string{}, pages: map[string]string{}, viewers: []matrixViewer{
		{name: "key", key: true},
		{name: "owner", email: testsite.OwnerEmail, role: taskd.RoleOwner},
		{name: "admin", email: matrixAdmin, role: taskd.RoleAdmin},
		{name: "user", email: testsite.UserEmail, role: taskd.RoleUser},
		{name: "guest", email: guestEmail, role: taskd.RoleGuest, teamAlpha: true},
		{name: "reader", email: readerEmail, role: taskd.RoleReader, teamAlpha: true},
		{name: "guest-on-no-team", email: gia, role: taskd.RoleGuest},
	}, marks: map[string]markOf{
		markAlpha: {project: "Alpha"}, markBeta: {project: "Beta"},
		markH:     {project: "Alpha", author: "owner", listed: []string{"guest"}},
		markS:     {project: "Alpha", task: markH, author: "owner"},
		markL:     {project: "Alpha", task: markS, author: "owner"},
		markV:     {project: "Alpha", author: "owner"},
		markT:     {project: "Beta", author: "owner"},
		markCP:    {project: "Alpha", task: markH, author: "owner"},
		markCH:    {project: "Alpha", task: markV, author: "admin", listed: []string{"reader"}},
		markCV:    {project: "Alpha", task: markV, author: "owner"},
		markCostH: {project: "Alpha", task: markH}, markCostV: {project: "Alpha", task: markV}, markCostB: {project: "Beta", task: markT},
		markFileH: {project: "Alpha", task: markH}, markFileB: {project: "Beta", task: markT},
		markCostS: {project: "Alpha", task: markS}, markFileCP: {project: "Alpha", task: markCP},
		markCostL: {project: "Alpha", task: markL}, markFileL: {project: "Alpha", task: markL},
		markLast: {project: "Alpha", task: markV, author: "owner"},
	}}
	everyone := []string{testsite.OwnerEmail, matrixAdmin, testsite.UserEmail, guestEmail, readerEmail, gia}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	project := func(name string, budget int64) taskd.Project {
		p, err := s.Store.CreateProject(ctx, owner, taskd.ProjectInput{Name: new(name), MaxCents: &budget})
		must(err)
		return p
	}
	alpha, beta := project(markAlpha, 100000), project(markBeta, 0)
	_, err := s.Store.SetProjectMembers(ctx, owner, alpha.ID, []string{guestEmail, readerEmail}, true)
	must(err)
	task := func(p taskd.Project, parent int64, name string, hidden ...string) taskd.Task {
		// Due today: the calendars and the iCalendar feed show them (issue 35).
		tk, err := s.Store.CreateTask(ctx, owner, p.ID, parent, taskd.TaskInput{Name: new(name), Hidden: hidden, Subscribe: everyone,
			DateEnd: new(time.Now().UTC().Format(taskd.DateLayout))})
		must(err)
		w.ids[name], w.pages[name] = fmt.Sprint(tk.ID), "/a/"+s.Slug+tk.Page()
		return tk
	}
	h := task(alpha, 0, markH, guestEmail)
	sub := task(alpha, h.ID, markS)
	leaf := task(alpha, sub.ID, markL)
	v := task(alpha, 0, markV)
	tb := task(beta, 0, markT)
	// The comment comes with its file, as the API and the pages make them.
	onCP, err := s.Store.CreateFile(ctx, owner, markFileCP, "text/plain", strings.NewReader(markFileCP), taskd.DefaultFileLimits)
	must(err)
	_, err = s.Store.PostComment(ctx, owner, h.ID, taskd.CommentInput{Text: markCP, Files: []int64{onCP.ID}})
	must(err)
	w.fileCP = fmt.Sprint(onCP.ID)
	_, err = s.Store.CreateHiddenComment(ctx, ada, v.ID, markCH, []string{readerEmail})
	must(err)
	_, err = s.Store.CreateComment(ctx, owner, v.ID, markCV)
	must(err)
	cost := func(tk taskd.Task, cents int64, mark string) {
		_, err := s.Store.AddCost(ctx, owner, tk.ID, taskd.CostInput{Cents: &cents, Comment: new(mark)})
		must(err)
	}
	cost(h, 77700, markCostH)
	cost(sub, 5000, markCostS)
	cost(leaf, 1000, markCostL)
	cost(v, 100, markCostV)
	cost(tb, 500, markCostB)
	file := func(tk taskd.Task, name string) string {
		f, err := s.Store.CreateFile(ctx, owner, name, "text/plain", strings.NewReader(name), taskd.DefaultFileLimits)
		must(err)
		must(s.Store.AttachFiles(ctx, owner, []int64{f.ID}, taskd.OwnerTask, tk.ID))
		return fmt.Sprint(f.ID)
	}
	w.fileH = file(h, markFileH)
	w.fileL = file(leaf, markFileL)
	file(tb, markFileB)
	_, _, err = s.Store.StartTimer(ctx, owner, h.ID, time.UTC)
	must(err)
	// Relations (issue 35): V waits for the hidden H and for Beta's T.
	must(s.Store.AddRelation(ctx, owner, taskd.Relation{From: h.ID, To: v.ID, Type: taskd.RelationFinishToStart}))
	must(s.Store.AddRelation(ctx, owner, taskd.Relation{From: tb.ID, To: v.ID, Type: taskd.RelationStartToStart}))
	w.ids[markAlpha], w.ids[markBeta] = fmt.Sprint(alpha.ID), fmt.Sprint(beta.ID)
	w.pages[markAlpha], w.pages[markBeta] = "/a/"+s.Slug+alpha.Page(), "/a/"+s.Slug+beta.Page()
	return w
}

// shows is one read of one viewer: the body it answered and whether it
// answered at all (ok; a refusal shows nothing).
type shows struct {
	body string
	ok   bool
}

// expect checks that the read shows exactly the marks of scope that the
// viewer sees.
func (w *matrixWorld) expect(t *testing.T, v matrixViewer, path string, got shows, scope ...string) {
	t.Helper()
	for _, m := range scope {
		want := w.seenBy(v, m)
		if has := got.ok && strings.Contains(got.body, m); has != want {
			t.Errorf("%s: %s shows %s: %v, want %v", v.name, path, m, has, want)
		}
	}
}

// TestEveryReadAnswersByOneRule walks every read path — each account-API
// action on both paths (the key's and a token's), every page, the CSV,
// webhooks and digests — for every kind of viewer.
func TestEveryReadAnswersByOneRule(t *testing.T) {
	t.Parallel() // a site of its own
	testsite.Each(t, func(t *testing.T, s *testsite.Site) {
		s.AddMember(s.Slug, matrixAdmin, "Ada", "Admin", taskd.RoleAdmin)
		s.AddMember(s.Slug, guestEmail, "Gus", "Guest", taskd.RoleGuest)
		s.AddMember(s.Slug, readerEmail, "Rea", "Reader", taskd.RoleReader)
		s.AddMember(s.Slug, gia, "Gia", "Guest", taskd.RoleGuest)
		hooks := newHookRecorder(t)
		tokens := map[string]string{}
		for _, v := range []string{testsite.OwnerEmail, matrixAdmin} {
			tokens[v], _ = s.GrantOf(s.SignedIn(v), v, "projects_read tasks_read comments_read costs_read files_read administrative")
		}
		// Webhooks before the world: made with the key, and with the
		// owner's and the admin's tokens.
		hooks.add(t, s, "key", "")
		hooks.add(t, s, "owner", tokens[testsite.OwnerEmail])
		hooks.add(t, s, "admin", tokens[matrixAdmin])
		w := newMatrixWorld(t, s)
		for _, v := range w.viewers[3:] {
			tokens[v.email], _ = s.GrantOf(s.SignedIn(v.email), v.email, "projects_read tasks_read comments_read costs_read files_read")
		}
		_, owner := s.Owner()
		if _, err := s.Store.CreateComment(context.Background(), owner, mustID(t, w.ids[markV]), markLast); err != nil {
			t.Fatal(err)
		}
		for _, v := range w.viewers {
			t.Run(v.name, func(t *testing.T) {
				read := func(q string) shows {
					if v.key {
						req, _ := http.NewRequest("GET", s.AccountURL()+"/api/admin/v2/?"+q+"&hash="+wire.Hash(q, s.Key), nil)
						return fetch(t, req)
					}
					req, _ := http.NewRequest("GET", s.AccountURL()+"/api/oauth2?"+q, nil)
					req.Header.Set("Authorization", "Bearer "+tokens[v.email])
					return fetch(t, req)
				}
				w.expect(t, v, "get_projects", read("action=get_projects"), markAlpha, markBeta)
				w.expect(t, v, "get_project", read("action=get_project&id_project="+w.ids[markAlpha]), markAlpha)
				w.expect(t, v, "get_all_tasks", read("action=get_all_tasks"), allTasks...)
				w.expect(t, v, "search_tasks", read("action=search_tasks&filter="+url.QueryEscape("name has 'mark'")), allTasks...)
				w.expect(t, v, "get_tasks Alpha", read("action=get_tasks&id_project="+w.ids[markAlpha]), markH, markS, markL, markV)
				w.expect(t, v, "get_tasks Beta", read("action=get_tasks&id_project="+w.ids[markBeta]), markT)
				for _, m := range allTasks {
					w.expect(t, v, "get_task "+m, read("action=get_task&extra=text&id_task="+w.ids[m]), m)
				}
				w.expect(t, v, "get_task H with subtasks", read("action=get_task&extra=subtasks&id_task="+w.ids[markH]), markS, markL)
				w.expect(t, v, "get_task S with subtasks", read("action=get_task&extra=subtasks&id_task="+w.ids[markS]), markL)
				w.expect(t, v, "search_tasks by L's parent", read("action=search_tasks&filter="+url.QueryEscape("parent{=}"+w.ids[markS])), markL)
				w.expect(t, v, "search_tasks of H's subtree", read("action=search_tasks&id_task="+w.ids[markH]), markS, markL)
				w.expect(t, v, "get_costs of S", read("action=get_costs&id_task="+w.ids[markS]), markCostS, markCostL)
				w.expect(t, v, "get_comments V", read("action=get_comments&id_task="+w.ids[markV]), markCH, markCV)
				w.expect(t, v, "get_comments H", read("action=get_comments&id_task="+w.ids[markH]), markCP)
				w.expect(t, v, "get_costs", read("action=get_costs"), allCosts...)
				costs := read("action=get_costs")
				w.expect(t, v, "get_costs' money", shows{body: markH, ok: costs.ok && strings.Contains(costs.body, costHMoney)}, markH)
				// Totals sum the lines the viewer sees: 838.00 with the hidden
				// task's, its subtask's and its sub-subtask's, 1.00 without.
				total := read("action=get_costs_total&id_project=" + w.ids[markAlpha])
				w.expect(t, v, "get_costs_total", shows{body: markH, ok: total.ok && strings.Contains(total.body, "838.00")}, markH)
				w.expect(t, v, "get_files Alpha", read("action=get_files&id_project="+w.ids[markAlpha]), markFileH, markFileCP, markFileL)
				w.expect(t, v, "get_files L", read("action=get_files&id_task="+w.ids[markL]), markFileL)
				w.expect(t, v, "download L's file", read("action=download&id_file="+w.fileL), markFileL)
				w.expect(t, v, "get_files H", read("action=get_files&id_task="+w.ids[markH]), markFileH, markFileCP)
				w.expect(t, v, "get_comments H with files", read("action=get_comments&extra=files&id_task="+w.ids[markH]), markCP, markFileCP)
				w.expect(t, v, "download the comment's file", read("action=download&id_file="+w.fileCP), markFileCP)
				w.expect(t, v, "get_files Beta", read("action=get_files&id_project="+w.ids[markBeta]), markFileB)
				w.expect(t, v, "download", read("action=download&id_file="+w.fileH), markFileH)
				if v.key { // every person's timers take the key
					w.expect(t, v, "get_timers", read("action=get_timers"), markH)
				}
				if v.key || v.role.Can(taskd.PermAdministrative) {
					w.expect(t, v, "get_events", read("action=get_events&period=1d"), eventMarks...)
				}
				// Relations (issue 35) name the other task by id: V's with H
				// and with T show where the viewer sees H, T (and V); so do
				// the events of their making.
				for _, r := range []struct{ name, query, pattern string }{
					{"get_task V's relations", "action=get_task&extra=relations&id_task=" + w.ids[markV], `"task":"%s"`},
					{"get_tasks Alpha's relations", "action=get_tasks&extra=relations&id_project=" + w.ids[markAlpha], `"task":"%s"`},
					{"get_all_tasks' relations", "action=get_all_tasks&extra=relations", `"task":"%s"`},
					{"get_events of relations", "action=get_events&period=1d", `"relation_from":{"task":"%s"`},
				} {
					if r.name == "get_events of relations" && !v.key && !v.role.Can(taskd.PermAdministrative) {
						continue
					}
					got := read(r.query)
					for _, m := range []string{markH, markT} {
						w.expect(t, v, r.name+" with "+m, shows{body: m, ok: got.ok && strings.Contains(got.body, fmt.Sprintf(r.pattern, w.ids[m]))}, m)
					}
				}
				if v.key {
					return
				}
				b := s.SignedIn(v.email)
				page := func(path string) shows {
					p := b.Get(s.Base + path)
					return shows{body: p.Body, ok: p.Status == http.StatusOK}
				}
				base := "/a/" + s.Slug
				w.expect(t, v, "projects page", page(base+"/"), markAlpha, markBeta)
				alpha := page(w.pages[markAlpha])
				w.expect(t, v, "Alpha's page", alpha, markAlpha, markH, markS, markL, markV)
				// The budget sums the lines the viewer sees: 838.00 with the
				// hidden task's, its subtask's and its sub-subtask's, 1.00
				// without; the counts beside the list count the tasks they see.
				w.expect(t, v, "Alpha's budget", shows{body: markH, ok: alpha.ok && strings.Contains(alpha.body, "838.00")}, markH)
				w.expect(t, v, "Alpha's counts", shows{body: markH, ok: alpha.ok && strings.Contains(alpha.body, "Active (4)")}, markH)
				w.expect(t, v, "Beta's page", page(w.pages[markBeta]), markBeta, markT)
				for _, m := range allTasks {
					w.expect(t, v, m+"'s page", page(w.pages[m]), m)
				}
				w.expect(t, v, "V's page", page(w.pages[markV]), markCH, markCV, markCostV, markH, markT)
				w.expect(t, v, "H's page", page(w.pages[markH]), markCP, markS, markL, markCostH, markCostS, markCostL, markFileH, markFileCP)
				w.expect(t, v, "S's page", page(w.pages[markS]), markL, markCostS, markCostL)
				w.expect(t, v, "L's page", page(w.pages[markL]), markH, markS, markCostL, markFileL)
				my := page(base + "/my?show=subscribed")
				w.expect(t, v, "my tasks", my, allTasks...)
				seen := 0
				for _, m := range allTasks {
					if w.seenBy(v, m) {
						seen++
					}
				}
				if want := fmt.Sprintf("Active (%d)", seen); !strings.Contains(my.body, want) {
					t.Errorf("%s: my tasks' counts lack %q", v.name, want)
				}
				// The calendars, the activity feeds and the iCalendar feed (issue 35).
				w.expect(t, v, "Alpha's calendar", page(w.pages[markAlpha]+"calendar"), markAlpha, markH, markS, markL, markV)
				w.expect(t, v, "Alpha's activity", page(w.pages[markAlpha]+"activity"), markAlpha, markH, markS, markL, markV)
				_, owner := s.Owner()
				w.expect(t, v, "the owner's activity", page(fmt.Sprintf("%s/people/%d/activity", base, owner.Person.ID)), markAlpha, markBeta, markH, markS, markL, markV, markT)
				w.expect(t, v, "iCalendar feed", icalFeedOf(t, s, b), allTasks...)
				w.expect(t, v, "timesheet", page(base+"/timesheet"), allCosts...)
				w.expect(t, v, "timesheet CSV", page(base+"/timesheet.csv"), allCosts...)
				w.expect(t, v, "download page", page(base+"/download/"+w.fileH), markFileH)
				w.expect(t, v, "L's file's download page", page(base+"/download/"+w.fileL), markFileL)
				w.expect(t, v, "the comment's file's download page", page(base+"/download/"+w.fileCP), markFileCP)
			})
		}
		// Webhooks: each says whom it acts for, and hears of what they see.
		actsFor := map[string]string{}
		for _, h := range s.APIOK("action=get_webhooks")["data"].([]any) {
			h := h.(map[string]any)
			actsFor[strings.TrimPrefix(h["url"].(string), hooks.srv.URL+"/")] = h["acts_for"].(string)
		}
		if want := map[string]string{"key": "account", "owner": testsite.OwnerEmail, "admin": matrixAdmin}; !maps.Equal(actsFor, want) {
			t.Errorf("get_webhooks' acts_for: %v, want %v", actsFor, want)
		}
		if p := s.SignedIn(testsite.OwnerEmail).Get(s.Base + "/a/" + s.Slug + "/settings/webhooks"); !strings.Contains(p.Body, "acts for</span> Ada Admin") ||
			!strings.Contains(p.Body, "acts for</span> the account") {
			t.Errorf("the webhooks page does not say whom each acts for:\n%s", p.Body)
		}
		for _, v := range w.viewers[:3] {
			got := hooks.until(t, v.name, markLast)
			w.expect(t, v, "webhook of "+v.name, shows{body: got, ok: true}, eventMarks...)
			for _, m := range []string{markH, markT} { // the events of V's relations (issue 35)
				w.expect(t, v, "webhook of "+v.name+", V's relation with "+m, shows{body: m, ok: strings.Contains(got, `"relation_from":{"task":"`+w.ids[m]+`"`)}, m)
			}
		}
		// Digests: each person hears of the changes they see.
		s.Clock.Advance(2 * time.Hour)
		digests := s.DigestsUntil(t, matrixAdmin, testsite.UserEmail, guestEmail, readerEmail)
		for _, v := range w.viewers[2:] {
			// Nobody is told of their own changes.
			told := slices.DeleteFunc([]string{markH, markS, markL, markV, markT, markCP, markCH, markCV}, func(m string) bool { return w.marks[m].author == v.name })
			w.expect(t, v, "digest", shows{body: digests[v.email], ok: true}, told...)
		}
	})
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	id, err := taskd.ParseID(s, "id")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// fetch sends a request and returns its body and whether it answered ok:
// HTTP 200, and for JSON a status of ok.
func fetch(t *testing.T, req *http.Request) shows {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	ok := res.StatusCode == http.StatusOK
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		ok = ok && strings.Contains(string(body), `"status":"ok"`)
	}
	return shows{body: string(body), ok: ok}
}

// hookRecorder receives the deliveries of several webhooks, by name.
type hookRecorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  map[string]*strings.Builder
	seen chan struct{}
}

func newHookRecorder(t *testing.T) *hookRecorder {
	h := &hookRecorder{got: map[string]*strings.Builder{}, seen: make(chan struct{}, 1)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		name := strings.TrimPrefix(r.URL.Path, "/")
		if h.got[name] == nil {
			h.got[name] = &strings.Builder{}
		}
		h.got[name].Write(body)
		h.mu.Unlock()
		select {
		case h.seen <- struct{}{}:
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// add makes a webhook of every event, named name, with the key (token "")
// or a token.
func (h *hookRecorder) add(t *testing.T, s *testsite.Site, name, token string) {
	t.Helper()
	q := "action=add_webhook&url=" + url.QueryEscape(h.srv.URL+"/"+name) + "&events=" + url.QueryEscape(strings.Join(taskd.WebhookEvents, ","))
	call := func(q string) map[string]any {
		var status int
		var body map[string]any
		if token == "" {
			status, body = testsite.APICall(t, s.AccountURL(), s.Key, q)
		} else {
			status, body, _ = s.API(s.AccountURL(), token, q)
		}
		if status != 200 || body["status"] != "ok" {
			t.Fatalf("%s for %s: %d %v", q, name, status, body)
		}
		return body
	}
	id := call(q)["id"]
	call(fmt.Sprintf("action=enable_webhook&id=%v", id))
}

// until waits for the webhook's deliveries to hold the mark and returns all
// it received.
func (h *hookRecorder) until(t *testing.T, name, mark string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		h.mu.Lock()
		var got string
		if b := h.got[name]; b != nil {
			got = b.String()
		}
		h.mu.Unlock()
		if strings.Contains(got, mark) {
			return got
		}
		select {
		case <-h.seen:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("webhook %s never received %s; got %s", name, mark, got)
		}
	}
}

// icalFeedOf makes the person's iCalendar feed on their profile page and
// reads it as a calendar application does, without cookies (issue 35).
func icalFeedOf(t *testing.T, s *testsite.Site, b *testsite.Browser) shows {
	t.Helper()
	prof := b.Get(s.Base + "/profile")
	p := b.Submit(s.Base, prof, "/profile/calendar-feed", nil)
	_, rest, ok := strings.Cut(p.Body, `id="shown-secret">`)
	feed, _, _ := strings.Cut(rest, "<")
	if !ok || !strings.Contains(feed, "/ical/") {
		t.Fatalf("no feed address on the profile page:\n%s", p.Body)
	}
	req, _ := http.NewRequest("GET", feed, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return shows{body: string(body), ok: res.StatusCode == http.StatusOK}
}
