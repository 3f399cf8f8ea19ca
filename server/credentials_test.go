package server_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/secret"
)

// securityDoc holds the credential table, in its section "Changes of trust".
const securityDoc = "../docs/security.md"

// TestEveryCredentialFollowsTheTable reads the credential table of
// docs/security.md and checks every cell. For each change of trust (a
// column), made as a person makes it through the pages, a new admin holds
// every credential of the rows; each one gives what it gave before the
// change, and after it still does where its cell says stays (or "—"), and
// no longer where it says ends. A row without a probe here, a column
// without a change here, or a cell that says neither fails the test.
func TestEveryCredentialFollowsTheTable(t *testing.T) {
	t.Parallel() // a site of its own per database
	table := readTrustTable(t, securityDoc)
	for _, c := range table.changes {
		if trustChanges[c] == nil {
			t.Errorf("%s: the table has the change %q, and the test does not make it", securityDoc, c)
		}
	}
	for _, r := range table.rows {
		if credentialProbes[r.credential] == nil {
			t.Errorf("%s: the table has the credential %q, and the test has no probe of it", securityDoc, r.credential)
		}
	}
	for c := range trustChanges {
		if !slices.Contains(table.changes, c) {
			t.Errorf("%s: the table has no column %q, which the test makes", securityDoc, c)
		}
	}
	for c := range credentialProbes {
		if !slices.ContainsFunc(table.rows, func(r trustRow) bool { return r.credential == c }) {
			t.Errorf("%s: the table has no row %q, which the test probes", securityDoc, c)
		}
	}
	testsite.Each(t, func(t *testing.T, site *testsite.Site) {
		for _, change := range table.changes {
			if trustChanges[change] == nil {
				continue
			}
			t.Run(change, func(t *testing.T) {
				t.Parallel() // on an account of its own
				v := giveEveryCredential(t, site.OnNewAccount(t, "trust"))
				for _, r := range table.rows {
					if probe := credentialProbes[r.credential]; probe != nil {
						for _, w := range probe(v) {
							if !w.ok {
								t.Errorf("before the change, %s (%s) does not work: %s", w.what, r.credential, w.got)
							}
						}
					}
				}
				if t.Failed() {
					t.FailNow() // a probe that is false before proves nothing after
				}
				v.changed = mustID(t, lastEventID(t, v.s))
				trustChanges[change](v)
				for _, r := range table.rows {
					cell, probe := r.cells[change], credentialProbes[r.credential]
					if probe == nil || !cell.read {
						continue
					}
					for _, w := range probe(v) {
						if w.ok == cell.ends {
							t.Errorf("%s × %s: %s %s, want it to %s (the table: %q): %s",
								change, r.credential, w.what, map[bool]string{true: "still works", false: "stopped working"}[w.ok],
								map[bool]string{true: "end", false: "stay"}[cell.ends], cell.text, w.got)
						}
					}
				}
				v.linksAsThePagesSay()
			})
		}
	})
}

// trustTable is the credential table: its changes of trust (columns, in
// order) and its credentials (rows).
type trustTable struct {
	changes []string
	rows    []trustRow
}

// trustRow is a credential and what each change does to it.
type trustRow struct {
	credential string
	cells      map[string]trustCell // by change
}

// trustCell is what a change does to a credential: it ends, or it stays
// (a "—" does not concern it: it stays); read is false when the cell
// says neither.
type trustCell struct {
	text       string
	ends, read bool
}

// readTrustTable reads the table of the section "Changes of trust" of the
// document; a cell that neither starts with **ends** or **stays** nor is
// "—" fails the test.
func readTrustTable(t *testing.T, doc string) trustTable {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string // the section's first table
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && (len(lines) == 0 || strings.HasPrefix(strings.TrimSpace(sc.Text()), "|")) {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "#"):
			in = line == "### Changes of trust"
		case in && strings.HasPrefix(line, "|"):
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) < 3 {
		t.Fatalf("%s: no table in the section \"Changes of trust\"", doc)
	}
	cellsOf := func(line string) []string {
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		return cells
	}
	head := cellsOf(lines[0])
	if head[0] != "Credential" || len(head) < 2 {
		t.Fatalf("%s: the table's header is %q, want Credential and the changes of trust", doc, lines[0])
	}
	table := trustTable{changes: head[1:]}
	for _, line := range lines[2:] {
		cells := cellsOf(line)
		if len(cells) != len(head) {
			t.Errorf("%s: a row of %d cells, want %d: %s", doc, len(cells), len(head), line)
			continue
		}
		r := trustRow{credential: cells[0], cells: map[string]trustCell{}}
		for i, text := range cells[1:] {
			c := trustCell{text: text, read: true}
			switch {
			case strings.HasPrefix(text, "**ends**"):
				c.ends = true
			case strings.HasPrefix(text, "**stays**"), text == "—", strings.HasPrefix(text, "— "):
			default:
				c.read = false
				t.Errorf("%s: %s × %s says neither **ends** nor **stays** first, nor is it \"—\": %q", doc, r.credential, table.changes[i], text)
			}
			r.cells[table.changes[i]] = c
		}
		table.rows = append(table.rows, r)
	}
	return table
}

// victim is a new admin of an account of their own, holding every
// credential of the table.
type victim struct {
	t      *testing.T
	s      *testsite.Site
	acct   taskd.Account
	person taskd.Person
	email  string
	// first and second are two browsers signed in as the victim; the
	// first makes the victim's own changes, the second is the session
	// that "all but the one that changed it" leaves out.
	first, second *testsite.Browser
	owner         *testsite.Browser
	project       taskd.Project
	access        string   // the current access token of their grant
	refresh       string   // and its refresh token
	codes         []string // unused authorization codes, one per probe
	resetLink     string
	emailLink     string
	join          string // the link of the invitation they sent
	pageHook      int64  // made and enabled in the pages
	key           string // the administrative key they made
	keyHook       int64  // made and enabled with that key
	stopLink      string
	feed          string
	app           map[string]string // the application they registered
	streams       []*liveStream     // the first browser's, the second's
	told          int               // tasks made for the streams
	// changed is the account's last event before the change of trust;
	// 0 before it.
	changed int64
}

// giveEveryCredential makes a new admin of s's account and gives them
// each credential of the table, as a person gets it.
func giveEveryCredential(t *testing.T, s *testsite.Site) *victim {
	t.Helper()
	ctx := context.Background()
	v := &victim{t: t, s: s, email: testaccount.UniqueSlug("victim") + "@example.com"}
	acct := "/a/" + s.Slug
	s.AddMember(s.Slug, v.email, "Vic", "Victim", taskd.RoleAdmin)
	var err error
	if v.person, err = s.Store.PersonByEmail(ctx, v.email); err != nil {
		t.Fatal(err)
	}
	var owner taskd.Actor
	v.acct, owner = s.Owner()
	v.first, v.second, v.owner = s.SignedIn(v.email), s.SignedIn(v.email), s.SignedIn(testsite.OwnerEmail)

	// A project whose team the victim is not on: a task their timer runs
	// on, and a task the owner assigned them, whose notification waits.
	if v.project, err = s.Store.CreateProject(ctx, owner, taskd.ProjectInput{Name: new("Not their team")}); err != nil {
		t.Fatal(err)
	}
	timed, err := s.Store.CreateTask(ctx, owner, v.project.ID, 0, taskd.TaskInput{Name: new("Timed")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.CreateTask(ctx, owner, v.project.ID, 0, taskd.TaskInput{Name: new("Theirs"), AssigneeEmail: &v.email}); err != nil {
		t.Fatal(err)
	}
	page := v.first.Get(s.AccountURL() + timed.Page())
	v.first.Submit(s.Base, page, acct+"/tasks/"+strconv.FormatInt(timed.ID, 10)+"/timer", nil).Location(t)

	// An application's grant with the administrative scope, and two
	// codes not redeemed yet.
	v.access, v.refresh = s.GrantOf(v.first, v.email, "tasks_read administrative")
	for range 2 {
		u := s.Consent(v.first, s.AuthorizeURL("scope", "tasks_read administrative"), v.email, s.Slug, "allow")
		v.codes = append(v.codes, u.Query().Get("code"))
	}

	// A reset link and an e-mail-change link, each mailed.
	r := s.Browser()
	r.Submit(s.Base, r.Get(s.Base+"/reset"), "/reset", url.Values{"email": {v.email}})
	v.resetLink = s.LinkIn(t, s.MailTo(t, v.email))
	moving := testaccount.UniqueSlug("moving") + "@example.com"
	v.first.Submit(s.Base, v.first.Get(s.Base+"/profile"), "/profile/email", url.Values{"email": {moving}, "password": {testsite.Password}}).Location(t)
	v.emailLink = s.LinkIn(t, s.MailTo(t, moving))

	// An invitation they sent.
	invited := testaccount.UniqueSlug("invited") + "@example.com"
	v.first.Submit(s.Base, v.first.Get(s.Base+acct+"/people"), acct+"/people", url.Values{"email": {invited}, "role": {"user"}}).Location(t)
	v.join = s.LinkIn(t, s.MailTo(t, invited))

	// A webhook made and enabled in the pages; the administrative key,
	// made on its page; a webhook made and enabled with that key.
	recv := testsite.OKReceiver(t)
	hook := s.AddWebhookOnPage(v.first, recv.URL+"/page")
	v.first.WebhookAction(hook, "enable")
	v.pageHook = lastID(t, hook)
	v.first.Submit(s.Base, v.first.Get(s.Base+acct+"/settings/apikey"), acct+"/settings/apikey", nil).Location(t)
	v.key = shownSecret(t, v.first.Get(s.Base+acct+"/settings/apikey"))
	status, body := testsite.APICall(t, s.AccountURL(), v.key, testsite.Query("action", "add_webhook", "url", recv.URL+"/key", "events", "post_task"))
	if status != http.StatusOK || body["status"] != "ok" {
		t.Fatalf("add_webhook with the key: %d %v", status, body)
	}
	v.keyHook = int64(body["id"].(float64))
	if status, body := testsite.APICall(t, s.AccountURL(), v.key, fmt.Sprintf("action=enable_webhook&id=%d", v.keyHook)); status != http.StatusOK {
		t.Fatalf("enable_webhook with the key: %d %v", status, body)
	}

	// The stop link of their digests, as the notifier writes it.
	v.stopLink = (&people.Notifier{Sealer: s.Sealer, PublicURL: s.Base}).UnsubscribeLink(v.person)

	// The calendar feed's address, and an application they registered.
	v.feed = s.FeedAddress(v.first)
	apps := s.Base + acct + "/settings/api"
	v.first.Submit(s.Base, v.first.Get(apps), acct+"/settings/api", url.Values{"name": {"Vic's app"}, "redirect_uris": {testsite.RedirectURI}}).Location(t)
	shown := v.first.Get(apps)
	id := clientIDRE.FindStringSubmatch(shown.Body)
	if id == nil {
		t.Fatalf("no client_id shown:\n%s", shown.Body)
	}
	v.app = map[string]string{"client_id": id[1], "client_secret": shownSecret(t, shown)}

	// An open page's live stream in each browser.
	for _, b := range []*testsite.Browser{v.first, v.second} {
		v.streams = append(v.streams, openLive(t, b, s.AccountURL()+"/live", ""))
	}
	return v
}

// clientIDRE finds the client_id of an application just registered.
var clientIDRE = regexp.MustCompile(`id="shown-client-id">([^<]+)<`)

// lastID is the number that ends a path.
func lastID(t *testing.T, path string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(path[strings.LastIndex(path, "/")+1:], 10, 64)
	if err != nil {
		t.Fatalf("no id at the end of %s", path)
	}
	return id
}

// shownSecret is the secret a page shows once.
func shownSecret(t *testing.T, p testsite.Page) string {
	t.Helper()
	m := testsite.SecretRE.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no secret shown (HTTP %d):\n%s", p.Status, p.Body)
	}
	return m[1]
}

// works is what a probe found of one credential of a row: whether it
// still gives what it gave, and what came.
type works struct {
	what string
	ok   bool
	got  string
}

// credentialProbes are the probes of the table's rows, by credential.
var credentialProbes = map[string]func(v *victim) []works{
	"Sessions (cookies)": (*victim).sessionWorks,
	"OAuth grants: access tokens, refresh tokens, unused codes": (*victim).grantWorks,
	"Reset and e-mail-change links":                             (*victim).linksWork,
	"Pending invitations they sent":                             (*victim).invitationWorks,
	"Webhooks they made (or last enabled)":                      (*victim).pageHookWorks,
	"The administrative API key":                                (*victim).keyWorks,
	"Their running timer":                                       (*victim).timerWorks,
	"Notifications waiting to be mailed":                        (*victim).notificationWorks,
	"The stop link of digests":                                  (*victim).stopLinkWorks,
	"Live streams of open pages":                                (*victim).streamsWork,
	"The calendar feed's address":                               (*victim).feedWorks,
	"Webhooks made with the administrative key":                 (*victim).keyHookWorks,
	"OAuth client secrets of applications they registered":      (*victim).clientSecretWorks,
}

// sessionWorks: the second browser's session opens the account's pages.
func (v *victim) sessionWorks() []works {
	p := v.second.Get(v.s.AccountURL() + "/")
	return []works{{"the other browser's session", p.Status == http.StatusOK, fmt.Sprintf("the account's page answers HTTP %d", p.Status)}}
}

// grantWorks: the access token is accepted, the refresh token mints a new
// pair (kept for the next probe), and an unused code is redeemed.
func (v *victim) grantWorks() []works {
	s := v.s
	access := s.TokenWorks(v.access)
	status, body, _ := s.TokenCall("/oauth2/token", s.Creds("grant_type", "refresh_token", "refresh_token", v.refresh))
	refresh := v.tokenAnswer("a refresh", status, body)
	if refresh {
		v.access, v.refresh = body["access_token"].(string), body["refresh_token"].(string)
	}
	code := v.codes[0]
	v.codes = v.codes[1:]
	cstatus, cbody, _ := s.TokenCall("/oauth2/token", s.Creds("grant_type", "authorization_code", "code", code, "redirect_uri", testsite.RedirectURI))
	return []works{
		{"their access token", access, "me answers"},
		{"their refresh token", refresh, fmt.Sprintf("HTTP %d %v", status, body["error"])},
		{"an unused code", v.tokenAnswer("a code", cstatus, cbody), fmt.Sprintf("HTTP %d %v", cstatus, cbody["error"])},
	}
}

// tokenAnswer reports whether the token endpoint issued tokens, and fails
// the test when it refused otherwise than as a grant that ended.
func (v *victim) tokenAnswer(what string, status int, body map[string]any) bool {
	v.t.Helper()
	if status == http.StatusOK {
		return true
	}
	if status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		v.t.Errorf("%s refused otherwise than as invalid_grant: HTTP %d %v", what, status, body)
	}
	return false
}

// linksWork: the reset link and the e-mail-change link are live.
func (v *victim) linksWork() []works {
	reset, email := linkLive(v.t, v.s, v.resetLink), linkLive(v.t, v.s, v.emailLink)
	said := map[bool]string{true: "the store would take it", false: "the store knows it no more"}
	return []works{{"their reset link", reset, said[reset]}, {"their e-mail-change link", email, said[email]}}
}

// linksAsThePagesSay checks that the pages take the links as linkLive
// said: a dead link's form answers "not found", and a live one (the
// reset link, when both are: using one ends the other) is taken.
func (v *victim) linksAsThePagesSay() {
	t, s := v.t, v.s
	t.Helper()
	reset, email := linkLive(t, s, v.resetLink), linkLive(t, s, v.emailLink)
	b := s.Browser()
	if !email {
		if p := b.Submit(s.Base, b.Get(s.Base+v.emailLink), "/confirm-email", nil); p.Status != http.StatusNotFound {
			t.Errorf("the e-mail-change link, dead in the store, answers HTTP %d in the pages", p.Status)
		}
	}
	p := b.Submit(s.Base, b.Get(s.Base+v.resetLink), "/reset/password", url.Values{"password": {"the last password"}})
	if want := map[bool]int{true: http.StatusSeeOther, false: http.StatusNotFound}[reset]; p.Status != want {
		t.Errorf("the reset link, live in the store: %v, answers HTTP %d in the pages, want %d", reset, p.Status, want)
	}
}

// invitationWorks: the invitation's link opens its page.
func (v *victim) invitationWorks() []works {
	p := v.s.Browser().Get(v.s.Base + v.join)
	return []works{{"the invitation they sent", v.status(p, "its link"), fmt.Sprintf("its link answers HTTP %d", p.Status)}}
}

// status reports whether a page answered 200, and fails the test unless
// it answered that or 404.
func (v *victim) status(p testsite.Page, what string) bool {
	v.t.Helper()
	if p.Status != http.StatusOK && p.Status != http.StatusNotFound {
		v.t.Errorf("%s: HTTP %d, want 200 or 404", what, p.Status)
	}
	return p.Status == http.StatusOK
}

// pageHookWorks: the webhook they made in the pages is enabled.
func (v *victim) pageHookWorks() []works {
	return v.webhookWorks("the webhook they made in the pages", v.pageHook)
}

// keyHookWorks: the webhook made with their key is enabled.
func (v *victim) keyHookWorks() []works {
	return v.webhookWorks("the webhook made with their key", v.keyHook)
}

// webhookWorks: the webhook is enabled.
func (v *victim) webhookWorks(what string, id int64) []works {
	w, err := v.s.Store.Webhook(context.Background(), v.acct.ID, id)
	if err != nil {
		v.t.Fatalf("%s: %v", what, err)
	}
	return []works{{what, w.Enabled, fmt.Sprintf("enabled %v %q", w.Enabled, w.DisabledReason)}}
}

// keyWorks: a call signed with the key they made is answered.
func (v *victim) keyWorks() []works {
	status, body := testsite.APICall(v.t, v.s.AccountURL(), v.key, "action=get_projects")
	if status != http.StatusOK && status != http.StatusUnauthorized {
		v.t.Errorf("a call with the key: HTTP %d %v", status, body)
	}
	return []works{{"the key they made", status == http.StatusOK, fmt.Sprintf("HTTP %d %v", status, body["message"])}}
}

// timerWorks: their timer runs.
func (v *victim) timerWorks() []works {
	tm, err := v.s.Store.TimerOf(context.Background(), v.acct.ID, v.person.ID)
	if err != nil && !taskd.IsNotFound(err) {
		v.t.Fatal(err)
	}
	if err != nil {
		return []works{{"their timer", false, "no timer of theirs runs"}}
	}
	return []works{{"their timer", true, fmt.Sprintf("it runs on %q", tm.Task.Name)}}
}

// notificationWorks: a notification of theirs waits for a digest.
func (v *victim) notificationWorks() []works {
	due, err := v.s.Store.DigestsDue(context.Background(), time.Now().Add(24*time.Hour), 1000)
	if err != nil {
		v.t.Fatal(err)
	}
	waits := slices.Contains(due, v.person.ID)
	return []works{{"the notification of the task assigned to them", waits, map[bool]string{true: "it waits", false: "nothing of theirs waits"}[waits]}}
}

// stopLinkWorks: the stop link opens its page.
func (v *victim) stopLinkWorks() []works {
	p := v.s.Browser().Get(v.stopLink)
	return []works{{"the stop link of their digests", v.status(p, "the stop link"), fmt.Sprintf("HTTP %d", p.Status)}}
}

// streamsWork: the owner adds a task to the project, and each stream
// carries it (true), or is closed by the server without it and without
// any event that committed after the change (false).
func (v *victim) streamsWork() []works {
	t, s := v.t, v.s
	t.Helper()
	v.told++
	name := fmt.Sprintf("Told %d", v.told)
	acct := "/a/" + s.Slug
	pid := strconv.FormatInt(v.project.ID, 10)
	v.owner.Submit(s.Base, v.owner.Get(s.AccountURL()+v.project.Page()), acct+"/project/"+pid+"/tasks", url.Values{"title": {name}}).Location(t)
	var out []works
	for i, l := range v.streams {
		w := works{what: []string{"the first browser's stream", "the other browser's stream"}[i], got: "it carried the owner's new task"}
		carried, got := l.carries(t, "the task "+name, func(m liveMsg) bool { return m.data.Title == name })
		var after []liveMsg // sent although they committed after the change
		for _, m := range got {
			if v.changed > 0 && m.id != "" && mustID(t, m.id) > v.changed {
				after = append(after, m)
			}
		}
		switch w.ok = carried || len(after) > 0; {
		case !carried && w.ok:
			w.got = "it ended, but after sending what committed after the change: " + titles(after)
		case !carried:
			w.got = "the server closed it, and it sent nothing of the change"
		}
		out = append(out, w)
	}
	return out
}

// feedWorks: the feed's address answers with a calendar.
func (v *victim) feedWorks() []works {
	p := v.s.Browser().Get(v.feed)
	return []works{{"their calendar feed's address", v.status(p, "the feed"), fmt.Sprintf("HTTP %d", p.Status)}}
}

// clientSecretWorks: the application's secret authenticates it at the
// token endpoint (a code of nothing is then invalid_grant, and a secret
// that ended invalid_client).
func (v *victim) clientSecretWorks() []works {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {"no-such-code"}, "redirect_uri": {testsite.RedirectURI},
		"client_id": {v.app["client_id"]}, "client_secret": {v.app["client_secret"]}}
	status, body, _ := v.s.TokenCall("/oauth2/token", form)
	ok := status == http.StatusBadRequest && body["error"] == "invalid_grant"
	if !ok && (status != http.StatusUnauthorized || body["error"] != "invalid_client") {
		v.t.Errorf("the client secret: HTTP %d %v, want invalid_grant or invalid_client", status, body)
	}
	return []works{{"the client secret of the application they registered", ok, fmt.Sprintf("HTTP %d %v", status, body["error"])}}
}

// trustChanges are the changes of the table's columns, as a person makes
// them in the pages.
var trustChanges = map[string]func(v *victim){
	"Removed from the account": func(v *victim) {
		s, acct := v.s, "/a/"+v.s.Slug
		people := v.owner.Get(s.Base + acct + "/people")
		v.owner.Submit(s.Base, people, testsite.RemoveForm(v.t, people, v.email), nil).Location(v.t)
	},
	"Demoted (role changed)": func(v *victim) { // to a guest on no project's team
		s, acct := v.s, "/a/"+v.s.Slug
		people := v.owner.Get(s.Base + acct + "/people")
		v.owner.Submit(s.Base, people, testsite.RoleForm(v.t, people, v.email), url.Values{"role": {"guest"}}).Location(v.t)
		team, err := s.Store.ProjectMembers(context.Background(), v.acct.ID, v.project.ID)
		if err != nil || slices.ContainsFunc(team, func(p taskd.PersonRef) bool { return p.ID == v.person.ID }) {
			v.t.Fatalf("the demoted guest is on the project's team (%v): %v", err, team)
		}
	},
	"Password reset (link)": func(v *victim) {
		s, r := v.s, v.s.Browser()
		r.Submit(s.Base, r.Get(s.Base+"/reset"), "/reset", url.Values{"email": {v.email}})
		page := r.Get(s.Base + s.LinkIn(v.t, s.MailTo(v.t, v.email)))
		r.Submit(s.Base, page, "/reset/password", url.Values{"password": {"a new password"}}).Location(v.t)
	},
	"Password changed": func(v *victim) { // in the first browser, the form as offered
		s := v.s
		v.first.SubmitAsOffered(s.Base, v.first.Get(s.Base+"/profile"), "/profile/password",
			url.Values{"password": {testsite.Password}, "new_password": {"a new password"}}).Location(v.t)
		if p := v.first.Get(s.Base + "/profile"); p.Status != http.StatusOK {
			v.t.Errorf("Password changed × Sessions (cookies): the browser that changed it was signed out (its profile answers HTTP %d), want its session to stay (all but the one that changed it end)", p.Status)
		}
	},
	"E-mail changed (on confirmation)": func(v *victim) { // asked in the first browser, the form as offered
		s := v.s
		moved := testaccount.UniqueSlug("moved") + "@example.com"
		v.first.SubmitAsOffered(s.Base, v.first.Get(s.Base+"/profile"), "/profile/email",
			url.Values{"email": {moved}, "password": {testsite.Password}}).Location(v.t)
		c := s.Browser()
		c.Submit(s.Base, c.Get(s.Base+s.LinkIn(v.t, s.MailTo(v.t, moved))), "/confirm-email", nil).Location(v.t)
	},
}

// linkLive reports whether a one-time link (a path with ?t=) is live: its
// token known, unused and unexpired, as the store takes it when the link's
// form is sent. The pages cannot say without using the link (a page
// reached by a link checks nothing on GET, docs/decisions.md), and using
// a reset or e-mail link is itself a change of trust; so this reads the
// database.
func linkLive(t *testing.T, s *testsite.Site, link string) bool {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("t") == "" {
		t.Fatalf("not a one-time link: %s", link)
	}
	driver, source, mark := "sqlite", "file:"+filepath.Join(s.DB.Dir, "taskd.db")+"?mode=ro", "?"
	if s.DB.URL != "" {
		driver, source, mark = "pgx", s.DB.URL, "$1"
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var expires int64
	err = db.QueryRow(`SELECT expires_at FROM person_tokens WHERE hash = `+mark, secret.HashToken(u.Query().Get("t"))).Scan(&expires)
	if err == sql.ErrNoRows {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return expires > s.Clock.Now().UnixMilli()
}
