package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/oauth"
)

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

// authorize is GET /oauth2/authorize: the sign-in page for a visitor, the
// user-selection page for a signed-in person, and the consent page once an
// account is chosen.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, v *view) error {
	req, ok, err := s.request(w, r, r.URL.Query())
	if !ok {
		return err
	}
	av := &authorizeView{Request: req, Params: req.Params()}
	av.Here = "/oauth2/authorize?" + av.Params.Encode()
	if v.Person == nil {
		v.Title, v.Data = "Sign in", loginView{Next: av.Here, Client: &req.Client}
		return s.render(w, r, "login.html", v)
	}
	ms, err := s.cfg.Accounts.Memberships(r.Context(), v.Person.ID)
	if err != nil {
		return err
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
func (s *Server) authorizeForm(w http.ResponseWriter, r *http.Request, v *view) error {
	req, ok, err := s.request(w, r, r.PostForm)
	if !ok {
		return err
	}
	if v.Person == nil {
		return see303(w, r, "/oauth2/authorize?"+req.Params().Encode())
	}
	slug := r.PostFormValue("account")
	ms, err := s.cfg.Accounts.Memberships(r.Context(), v.Person.ID)
	if err != nil {
		return err
	}
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
	var re *oauth.RequestError
	switch {
	case err == nil:
		return req, true, nil
	case errors.As(err, &re) && re.Redirect != "":
		return req, false, toClient(w, r, re.Redirect)
	case errors.As(err, &re):
		s.fail(w, r, http.StatusBadRequest, "This authorization request cannot be used: "+re.Description+".")
		return req, false, nil
	}
	return req, false, err
}

func membership(ms []taskd.Membership, slug string) (taskd.Membership, bool) {
	for _, m := range ms {
		if m.Account.Slug == slug {
			return m, true
		}
	}
	return taskd.Membership{}, false
}
