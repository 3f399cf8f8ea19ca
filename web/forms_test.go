package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testsite"
)

var pathValueRE = regexp.MustCompile(`\{[a-z]+\}`)

// TestEveryFormNeedsItsToken walks every POST route the pages register and
// sends it, signed in, without the form token, with another browser's
// token, and with a good token from another site: each is refused before
// anything happens. A route added without s.form fails here.
func TestEveryFormNeedsItsToken(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pages := pagesOf(t, s)
	owner := s.SignedIn(testsite.OwnerEmail)
	good := owner.Get(s.Base+"/login").Form(t, "", "").Get("csrf")
	foreign := s.Browser().Get(s.Base+"/login").Form(t, "", "").Get("csrf")
	if good == "" || foreign == "" || good == foreign {
		t.Fatalf("form tokens %q and %q", good, foreign)
	}
	posts := 0
	for _, pattern := range pages.Patterns() {
		path, ok := strings.CutPrefix(pattern, "POST ")
		if !ok {
			continue
		}
		posts++
		path = strings.ReplaceAll(path, "{slug}", s.Slug)
		path = pathValueRE.ReplaceAllString(path, "1")
		for name, form := range map[string]url.Values{
			"no token":              {"title": {"x"}},
			"another browser's one": {"title": {"x"}, "csrf": {foreign}},
			"an empty one":          {"title": {"x"}, "csrf": {""}},
		} {
			if p := owner.Post(s.Base+path, form); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "The form has expired") {
				t.Errorf("POST %s with %s: HTTP %d", path, name, p.Status)
			}
		}
		req, _ := http.NewRequest("POST", s.Base+path, strings.NewReader(url.Values{"csrf": {good}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := owner.C.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s from another site: HTTP %d", path, res.StatusCode)
		}
	}
	if posts < 20 {
		t.Fatalf("only %d POST routes found", posts)
	}
	// Nothing those requests named was changed: the account still works
	// with its key, and the owner is still signed in.
	if status, _ := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_projects"); status != 200 {
		t.Fatalf("the account key after the refused forms: %d", status)
	}
	if p := owner.Get(s.Base + "/a/" + s.Slug + "/"); p.Status != http.StatusOK {
		t.Fatalf("the owner after the refused forms: %d", p.Status)
	}
}

// TestAccountPagesStayInTheirAccount: a person who manages two accounts
// reaches, through one account's addresses, nothing of the other: every
// page and form under /a/{slug}/ with an object id, walked from the route
// table and given the other account's ids, answers "not found" and
// changes nothing.
func TestAccountPagesStayInTheirAccount(t *testing.T) {
	t.Parallel()
	s := testsite.New(t)
	pages := pagesOf(t, s)
	recv := testsite.OKReceiver(t)
	// acme's objects, made through the API.
	q := s.APIOK
	pid := q("action=post_project&title=Theirs")["data"].(map[string]any)["id"].(string)
	tid := q("action=post_task&id_project=" + pid + "&title=Theirs")["data"].(map[string]any)["id"].(string)
	cid := q("action=post_comment&id_task=" + tid + "&text=Theirs")["data"].(map[string]any)["id"].(string)
	wid := strconv.Itoa(int(q("action=add_webhook&url=" + url.QueryEscape(recv.URL+"/") + "&events=post_task")["id"].(float64)))
	costID := q("action=add_costs&id_task=" + tid + "&time=1&email_user_from=" + url.QueryEscape(testsite.OwnerEmail))["id"].(string)
	fileID := theirFile(t, s, tid)
	groupID := testsite.JSONNumber(q("action=add_task_tag_groups&type=status&access=public&title=Theirs")["data"].([]any)[0].(map[string]any)["id"])
	tagID := q("action=add_task_tags&group=Theirs&title=Theirs")["data"].([]any)[0].(map[string]any)["id"].(string)
	ids := map[string]string{"{project}": pid, "{task}": tid, "{parent}": tid, "{comment}": cid, "{webhook}": wid, "{cost}": costID, "{file}": fileID,
		"{tag}": tagID, "{group}": groupID}
	snapshot := func() string {
		_, p := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task&id_task="+tid+"&extra=subtasks")
		_, c := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_comments&id_task="+tid)
		_, w := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_webhooks")
		_, x := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_costs&id_task="+tid)
		_, f := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_files&id_task="+tid)
		_, g := testsite.APICall(t, s.AccountURL(), s.Key, "action=get_task_tags")
		return testsite.JSON(p) + testsite.JSON(c) + testsite.JSON(w) + testsite.JSON(x) + testsite.JSON(f) + testsite.JSON(g)
	}
	before := snapshot()
	owner := s.SignedIn(testsite.OwnerEmail) // also the owner of s.other
	csrf := owner.Get(s.Base+"/login").Form(t, "", "").Get("csrf")
	tried := 0
	for _, pattern := range pages.Patterns() {
		method, path, _ := strings.Cut(pattern, " ")
		// Routes with an object id; people and invitations (person and
		// invitation ids) are checked by TestInvitationsNeedConsent and the
		// authorization matrix.
		if !strings.HasPrefix(path, "/a/{slug}/") || strings.Contains(path, "/people/") || strings.Contains(path, "/invitations/") {
			continue
		}
		path = strings.ReplaceAll(strings.ReplaceAll(path, "{slug}", s.Other), "{$}", "")
		named := false
		for k, v := range ids {
			named = named || strings.Contains(path, k)
			path = strings.ReplaceAll(path, k, v)
		}
		if !named {
			continue
		}
		tried++
		var p testsite.Page
		if method == "GET" {
			p = owner.Get(s.Base + path)
		} else {
			p = owner.Post(s.Base+path, url.Values{"csrf": {csrf}, "title": {"x"}, "text": {"x"}, "delivery_id": {"1"}})
		}
		if p.Status != http.StatusNotFound {
			t.Errorf("%s %s with the other account's ids: HTTP %d", method, path, p.Status)
		}
	}
	if tried < 12 {
		t.Fatalf("only %d routes tried", tried)
	}
	t.Logf("%d routes tried", tried)
	if after := snapshot(); after != before {
		t.Fatalf("the other account's data changed:\nbefore %s\nafter  %s", before, after)
	}
}

// theirFile attaches a file to the task of the site's account and returns
// its id.
func theirFile(t *testing.T, s *testsite.Site, tid string) string {
	t.Helper()
	ctx := context.Background()
	_, by := s.Owner()
	f, err := s.Store.CreateFile(ctx, by, "theirs.txt", "text/plain", strings.NewReader("theirs"), taskd.DefaultFileLimits)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.ParseInt(tid, 10, 64)
	if err := s.Store.AttachFiles(ctx, by, []int64{f.ID}, taskd.OwnerTask, id); err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(f.ID, 10)
}
