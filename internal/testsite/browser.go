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
