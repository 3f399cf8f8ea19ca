package testsite

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// SecretRE finds the secret a page shows once (a client secret, a key).
var SecretRE = regexp.MustCompile(`id="shown-secret">([^<]+)<`)

// RoleForm returns the action of the role form of the member with email on
// the people page: the last one before the label that names them.
func RoleForm(t *testing.T, people Page, email string) string {
	t.Helper()
	before, _, ok := strings.Cut(people.Body, "Role of "+email)
	actions := roleActionRE.FindAllStringSubmatch(before, -1)
	if !ok || len(actions) == 0 {
		t.Fatalf("no role form for %s in:\n%s", email, people.Body)
	}
	return actions[len(actions)-1][1]
}

var roleActionRE = regexp.MustCompile(`action="([^"]*/people/\d+/role)"`)

// RemoveForm returns the action of the form that removes the member with
// email from the account, on the people page.
func RemoveForm(t *testing.T, people Page, email string) string {
	t.Helper()
	return strings.Replace(RoleForm(t, people, email), "/role", "/remove", 1)
}

// FeedAddress makes (or rotates) the calendar feed of b's person on their
// profile page and returns its address, shown once; the test fails when
// the profile shows it again or offers no Rotate button.
func (s *Site) FeedAddress(b *Browser) string {
	s.t.Helper()
	p := b.Submit(s.Base, b.Get(s.Base+"/profile"), "/profile/calendar-feed", nil)
	m := SecretRE.FindStringSubmatch(p.Body)
	if p.Status != http.StatusOK || m == nil {
		s.t.Fatalf("no feed address shown: %d\n%s", p.Status, p.Body)
	}
	if again := b.Get(s.Base + "/profile"); strings.Contains(again.Body, m[1]) || !strings.Contains(again.Body, ">Rotate<") {
		s.t.Fatal("the profile shows the feed's address again, or has no Rotate button")
	}
	return m[1]
}

// AddWebhookOnPage adds a webhook for post_task on the settings page, as
// b, and returns the address of its page.
func (s *Site) AddWebhookOnPage(b *Browser, url string) string {
	s.t.Helper()
	list := s.Base + "/a/" + s.Slug + "/settings/webhooks"
	form := b.Get(list).Form(s.t, "", "")
	form.Set("url", url)
	form["events"] = []string{"post_task"}
	return s.Base + b.Post(list, form).Location(s.t).Path
}

// WebhookAction presses one of a webhook page's buttons (enable, disable,
// test, rotate…) with the page's form token, follows the redirect, and
// returns the page as it then reads.
func (b *Browser) WebhookAction(hook, action string) Page {
	b.t.Helper()
	b.Post(hook+"/"+action, b.Get(hook).Form(b.t, "", "")).Location(b.t)
	return b.Get(hook)
}

// FormFile is a file of a multipart form.
type FormFile struct{ Field, Name, Type, Content string }

// PostMultipart sends a multipart form: its fields first, then its files,
// as browsers do.
func (b *Browser) PostMultipart(u string, fields [][2]string, files ...FormFile) Page {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, f := range fields {
		w.WriteField(f[0], f[1])
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.Field, f.Name))
		h.Set("Content-Type", f.Type)
		pw, _ := w.CreatePart(h)
		io.WriteString(pw, f.Content)
	}
	w.Close()
	req, err := http.NewRequest(http.MethodPost, u, &body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return b.Do(req)
}

// SignedIn returns a browser signed in as email.
func (s *Site) SignedIn(email string) *Browser {
	s.t.Helper()
	b := s.Browser()
	f := b.Get(s.Base+"/login").Form(s.t, "", "")
	f.Set("email", email)
	f.Set("password", Password)
	b.Post(s.Base+"/login", f).Location(s.t)
	return b
}

// Submit posts a form of page p (the first whose hidden fields match
// name=value, or the first with the action) with extra fields set, and
// returns the answer.
func (b *Browser) Submit(base string, p Page, action string, set url.Values) Page {
	b.t.Helper()
	for _, f := range p.Forms() {
		if f.Action == action {
			for k, v := range set {
				f.Fields[k] = v
			}
			return b.Post(base+action, f.Fields)
		}
	}
	b.t.Fatalf("no form posting to %s in:\n%s", action, p.Body)
	return Page{}
}

// SubmitAsOffered posts the form of page p with the action as a browser
// sends it untouched (see Page.AsOffered), with the fields of set put in
// (what a person types), and returns the answer.
func (b *Browser) SubmitAsOffered(base string, p Page, action string, set url.Values) Page {
	b.t.Helper()
	f := p.AsOffered(b.t, action)
	for k, v := range set {
		f[k] = v
	}
	return b.Post(base+action, f)
}

// Browser is a cookie-keeping client that does not follow redirects.
type Browser struct {
	t testing.TB
	C *http.Client
}

// In is the browser as a step of a scenario sees it (see Site.In): the
// same cookies and connections, with t the test its helpers fail.
func (b *Browser) In(t testing.TB) *Browser {
	c := *b
	c.t = t
	return &c
}

// Page is a fetched response with its body.
type Page struct {
	Status int
	Header http.Header
	Body   string
}

func (b *Browser) do(method, u string, form url.Values) Page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return b.Do(req)
}

// Do sends a request with the browser's cookies and reads the answer.
func (b *Browser) Do(req *http.Request) Page {
	b.t.Helper()
	res, err := b.C.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return Page{Status: res.StatusCode, Header: res.Header, Body: string(raw)}
}

// Get fetches a page.
func (b *Browser) Get(u string) Page { return b.do("GET", u, nil) }

// Post submits a form.
func (b *Browser) Post(u string, form url.Values) Page { return b.do("POST", u, form) }

var formRE = regexp.MustCompile(`(?s)<form[^>]*action="([^"]*)"[^>]*>(.*?)</form>`)

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// PageForm is a form of a page: where it posts and its hidden fields.
type PageForm struct {
	Action string
	Fields url.Values
}

// Forms returns each form's action and hidden fields.
func (p Page) Forms() []PageForm {
	var out []PageForm
	for _, m := range formRE.FindAllStringSubmatch(p.Body, -1) {
		f := url.Values{}
		for _, h := range hiddenRE.FindAllStringSubmatch(m[2], -1) {
			f.Add(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
		}
		out = append(out, PageForm{html.UnescapeString(m[1]), f})
	}
	return out
}

var (
	fieldRE  = regexp.MustCompile(`(?s)<input\b([^>]*)>|<textarea\b([^>]*)>(.*?)</textarea>|<select\b([^>]*)>(.*?)</select>`)
	attrRE   = regexp.MustCompile(`([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?`)
	optionRE = regexp.MustCompile(`<option\b([^>]*)>`)
)

// attrs reads a tag's attributes; one without a value (checked) is "".
func attrs(tag string) map[string]string {
	out := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(tag, -1) {
		out[strings.ToLower(m[1])] = html.UnescapeString(m[2])
	}
	return out
}

// has reports whether a tag has the attribute.
func has(a map[string]string, name string) bool {
	_, ok := a[name]
	return ok
}

// AsOffered returns the fields that the first form of the page with the
// action sends as the page offers it, as a browser would: every named
// input with its value (hidden or typed), each box ticked and each radio
// chosen by default, each text area's text and each list's chosen option;
// nothing disabled, and no button.
func (p Page) AsOffered(t testing.TB, action string) url.Values {
	t.Helper()
	for _, m := range formRE.FindAllStringSubmatch(p.Body, -1) {
		if html.UnescapeString(m[1]) == action {
			return offered(m[2])
		}
	}
	t.Fatalf("no form posting to %s in page (HTTP %d):\n%s", action, p.Status, p.Body)
	return nil
}

// FormValues is AsOffered of the first form posting to action that has a
// field named field (a page may have several forms with one action).
func (p Page) FormValues(t testing.TB, action, field string) url.Values {
	t.Helper()
	for _, m := range formRE.FindAllStringSubmatch(p.Body, -1) {
		if html.UnescapeString(m[1]) != action {
			continue
		}
		if f := offered(m[2]); f.Has(field) {
			return f
		}
	}
	t.Fatalf("no form posting to %s with %s in page (HTTP %d):\n%s", action, field, p.Status, p.Body)
	return nil
}

// offered is what a form (its inner HTML) sends as offered (AsOffered).
func offered(form string) url.Values {
	f := url.Values{}
	for _, field := range fieldRE.FindAllStringSubmatch(form, -1) {
		switch input, area, list := attrs(field[1]), attrs(field[2]), attrs(field[4]); {
		case area["name"] != "" && !has(area, "disabled"):
			f.Add(area["name"], html.UnescapeString(field[3]))
		case list["name"] != "" && !has(list, "disabled"):
			options := optionRE.FindAllStringSubmatch(field[5], -1)
			if len(options) == 0 {
				continue
			}
			chosen := attrs(options[0][1])
			for _, o := range options {
				if oa := attrs(o[1]); has(oa, "selected") {
					chosen = oa
					break
				}
			}
			f.Add(list["name"], chosen["value"])
		case input["name"] == "" || has(input, "disabled"):
		case input["type"] == "checkbox" || input["type"] == "radio":
			if has(input, "checked") {
				v, ok := input["value"]
				if !ok {
					v = "on"
				}
				f.Add(input["name"], v)
			}
		case input["type"] == "submit" || input["type"] == "button" || input["type"] == "image" || input["type"] == "reset" || input["type"] == "file":
		default:
			f.Add(input["name"], input["value"])
		}
	}
	return f
}

// Form returns the hidden fields of the first form whose fields include
// name=value (or of the first form when name is empty).
func (p Page) Form(t testing.TB, name, value string) url.Values {
	t.Helper()
	for _, f := range p.Forms() {
		if name == "" || f.Fields.Get(name) == value {
			return f.Fields
		}
	}
	t.Fatalf("no form with %s=%s in page (HTTP %d):\n%s", name, value, p.Status, p.Body)
	return nil
}

// Location is where a redirect leads; the test fails unless p is one.
func (p Page) Location(t testing.TB) *url.URL {
	t.Helper()
	if p.Status != http.StatusSeeOther && p.Status != http.StatusFound {
		t.Fatalf("HTTP %d, want a redirect:\n%s", p.Status, p.Body)
	}
	u, err := url.Parse(p.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}
