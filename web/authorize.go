package web

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/secret"
)

// authorizeRoutes are the addresses of the OAuth authorization pages.
func (s *Server) authorizeRoutes() []route {
	return []route{
		{"GET /oauth2/authorize", s.authorizeRoute(false)},
		{"POST /oauth2/authorize", s.authorizeRoute(true)},
	}
}

// authorizeFuncs are the template functions of the OAuth pages.
func authorizeFuncs() template.FuncMap {
	return template.FuncMap{
		"scopeText": scopeText,
	}
}

// authorizeView is the user-selection and the consent page.
type authorizeView struct {
	Request  oauth.Request
	Params   url.Values // the request, carried in hidden fields
	Here     string     // this authorization request's path and query
	Accounts []taskd.Membership
	Account  taskd.Membership
	Granted  []string
	Withheld []string
}

// authorizeRoute serves /oauth2/authorize, GET (a page) or POST (a form).
// The person of the session, the accounts they belong to and the
// application asking are read in one query (SessionPage); nothing of them
// is cached, so a session ended, a member removed or an application
// deleted counts at once on every replica.
func (s *Server) authorizeRoute(post bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if post {
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			if err := r.ParseForm(); err != nil {
				s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
				return
			}
			if s.refuseForm(w, r) {
				return
			}
			q = r.PostForm
		}
		v := &view{CSRF: s.csrfToken(w, r)}
		req, ms, ok, err := s.authorizeContext(w, r, v, q)
		if err == nil && ok {
			if post {
				err = s.authorizeForm(w, r, v, req, ms)
			} else {
				err = s.authorize(w, r, v, req, ms)
			}
		}
		if err != nil {
			s.internal(w, r, err)
		}
	}
}

// authorizeContext reads the session's person, their memberships and the
// application of the request q, and validates q. When q is invalid it
// answers as request does and returns ok false.
func (s *Server) authorizeContext(w http.ResponseWriter, r *http.Request, v *view, q url.Values) (oauth.Request, []taskd.Membership, bool, error) {
	cookie := s.cookie(r, "session")
	if cookie == "" {
		req, ok, err := s.request(w, r, q)
		return req, nil, ok, err
	}
	clientID := ""
	if len(q["client_id"]) == 1 {
		clientID = q.Get("client_id")
	}
	p, ms, c, err := s.cfg.Sessions.SessionPage(r.Context(), secret.HashToken(cookie), clientID)
	switch {
	case taskd.IsNotFound(err): // an ended session: as signed out
		req, ok, err := s.request(w, r, q)
		return req, nil, ok, err
	case err != nil:
		return oauth.Request{}, nil, false, err
	}
	v.Person = &p
	req, err := s.cfg.OAuth.CheckRequest(q, c)
	ok, err := s.requestError(w, r, err)
	return req, ms, ok, err
}

// authorize is GET /oauth2/authorize: the sign-in page for a visitor, the
// user-selection page for a signed-in person, and the consent page once an
// account is chosen.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, v *view, req oauth.Request, ms []taskd.Membership) error {
	av := &authorizeView{Request: req, Params: req.Params()}
	av.Here = "/oauth2/authorize?" + av.Params.Encode()
	if v.Person == nil {
		v.Title, v.Data = "Sign in", loginView{Next: av.Here, Client: &req.Client}
		return s.render(w, r, "login.html", v)
	}
	v.Data = av
	slug := r.URL.Query().Get("account")
	if slug == "" {
		av.Accounts = ms
		v.Title = "Choose an account"
		return s.render(w, r, "select.html", v)
	}
	m, ok := membership(ms, slug)
	if !ok {
		s.fail(w, r, http.StatusForbidden, "You are not a member of that account.")
		return nil
	}
	av.Account = m
	av.Granted = oauth.GrantedScopes(req.Scopes, m.Role)
	for _, sc := range req.Scopes {
		if !taskd.HasScope(av.Granted, sc) {
			av.Withheld = append(av.Withheld, sc)
		}
	}
	v.Title = "Allow access?"
	return s.render(w, r, "consent.html", v)
}

// authorizeForm is POST /oauth2/authorize: an account chosen (→ consent) or
// a decision made (→ back to the application).
func (s *Server) authorizeForm(w http.ResponseWriter, r *http.Request, v *view, req oauth.Request, ms []taskd.Membership) error {
	if v.Person == nil {
		return see303(w, r, "/oauth2/authorize?"+req.Params().Encode())
	}
	slug := r.PostFormValue("account")
	m, ok := membership(ms, slug)
	if !ok {
		s.fail(w, r, http.StatusForbidden, "You are not a member of that account.")
		return nil
	}
	switch r.PostFormValue("decision") {
	case "":
		q := req.Params()
		q.Set("account", slug)
		return see303(w, r, "/oauth2/authorize?"+q.Encode())
	case "deny":
		return toClient(w, r, s.cfg.OAuth.Deny(req))
	case "allow":
		to, err := s.cfg.OAuth.Approve(r.Context(), req, *v.Person, m)
		if err != nil {
			return err
		}
		return toClient(w, r, to)
	}
	s.fail(w, r, http.StatusBadRequest, "Choose allow or deny.")
	return nil
}

// request validates the authorization request. When it is invalid it
// answers (an error page, or the error redirect once the redirect URI is
// trusted) and returns ok false.
func (s *Server) request(w http.ResponseWriter, r *http.Request, q url.Values) (oauth.Request, bool, error) {
	req, err := s.cfg.OAuth.ParseRequest(r.Context(), q)
	ok, err := s.requestError(w, r, err)
	return req, ok, err
}

// requestError answers an invalid authorization request and returns ok
// false; ok is true when err is nil.
func (s *Server) requestError(w http.ResponseWriter, r *http.Request, err error) (bool, error) {
	var re *oauth.RequestError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &re) && re.Redirect != "":
		return false, toClient(w, r, re.Redirect)
	case errors.As(err, &re):
		s.fail(w, r, http.StatusBadRequest, "This authorization request cannot be used: "+re.Description+".")
		return false, nil
	}
	return false, err
}

func membership(ms []taskd.Membership, slug string) (taskd.Membership, bool) {
	for _, m := range ms {
		if m.Account.Slug == slug {
			return m, true
		}
	}
	return taskd.Membership{}, false
}

// scopeTexts says in plain words what each scope allows.
var scopeTexts = map[string]string{
	"projects_read": "See your projects", "projects_write": "Create, edit, archive and reopen projects",
	"tasks_read": "See tasks and subtasks", "tasks_write": "Create, edit, complete, reopen and delete tasks",
	"costs_read": "See time and costs", "costs_write": "Record time and costs",
	"tags_read": "See tags", "tags_write": "Create and change tags",
	"comments_read": "Read comments", "comments_write": "Write, edit and delete comments",
	"files_read": "Download files", "files_write": "Upload and delete files",
	"users_read": "See the people in the account", "users_write": "Invite and change people",
	"contacts_read": "See contacts", "contacts_write": "Change contacts",
	"administrative": "Manage webhooks and read the account's change history",
}

func scopeText(scope string) string {
	if t, ok := scopeTexts[scope]; ok {
		return t
	}
	return scope
}
