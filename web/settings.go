package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/secret"
)

// settingsRoutes are the addresses of a person's applications and of an
// account's settings: its API clients and its administrative key.
func (s *Server) settingsRoutes() []route {
	return []route{
		{"GET /settings/applications", s.page(s.applications)},
		{"POST /settings/applications/revoke", s.form(s.revokeApplication)},
		{"GET /a/{slug}/settings", s.page(s.inAccount(taskd.PermSettings, s.settingsIndex))},
		{"GET /a/{slug}/settings/{$}", s.page(s.inAccount(taskd.PermSettings, s.settingsIndex))},
		{"GET /a/{slug}/settings/api", s.page(s.inAccount(taskd.PermSettings, s.clients))},
		{"POST /a/{slug}/settings/api", s.form(s.inAccount(taskd.PermSettings, s.createClient))},
		{"POST /a/{slug}/settings/api/rotate", s.form(s.inAccount(taskd.PermSettings, s.rotateClient))},
		{"POST /a/{slug}/settings/api/delete", s.form(s.inAccount(taskd.PermSettings, s.deleteClient))},
		{"GET /a/{slug}/settings/apikey", s.page(s.inAccount(taskd.PermSettings, s.apiKey))},
		{"POST /a/{slug}/settings/apikey", s.form(s.inAccount(taskd.PermSettings, s.rotateAPIKey))},
	}
}

// clientsView is the API settings page.
type clientsView struct {
	Account taskd.Account
	Clients []taskd.Client
	Shown   *flash // a secret just made, shown once
	Error   string
	Name    string
	URIs    string
}

func (s *Server) clients(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	return s.renderClients(w, r, v, http.StatusOK, &clientsView{Account: acct, Shown: s.takeFlash(w, r)})
}

func (s *Server) renderClients(w http.ResponseWriter, r *http.Request, v *view, status int, cv *clientsView) error {
	list, err := s.cfg.Apps.Clients(r.Context(), cv.Account.ID)
	if err != nil {
		return err
	}
	cv.Clients = list
	v.Title, v.Data = "API applications", cv
	return s.renderStatus(w, r, status, "clients.html", v)
}

func (s *Server) settingsPath(acct taskd.Account) string { return "/a/" + acct.Slug + "/settings/api" }

func (s *Server) createClient(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	name, uris := r.PostFormValue("name"), r.PostFormValue("redirect_uris")
	c, sec, err := oauth.NewClient(acct.ID, name, strings.Fields(uris))
	var e *taskd.Error
	if errors.As(err, &e) && e.Kind != taskd.KindInternal {
		return s.renderClients(w, r, v, http.StatusUnprocessableEntity, &clientsView{Account: acct, Error: e.Message, Name: name, URIs: uris})
	}
	if err != nil {
		return err
	}
	if c, err = s.cfg.Apps.CreateClient(r.Context(), c); err != nil {
		return err
	}
	s.setFlash(w, flash{ClientID: c.ClientID, Secret: sec})
	return see303(w, r, s.settingsPath(acct))
}

func (s *Server) rotateClient(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	id := r.PostFormValue("client_id")
	sec, hash := oauth.NewSecret()
	if err := s.cfg.Apps.SetClientSecret(r.Context(), acct.ID, id, hash); err != nil {
		return s.failWith(w, r, err)
	}
	s.setFlash(w, flash{ClientID: id, Secret: sec})
	return see303(w, r, s.settingsPath(acct))
}

func (s *Server) deleteClient(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	if err := s.cfg.Apps.DeleteClient(r.Context(), acct.ID, r.PostFormValue("client_id")); err != nil {
		return s.failWith(w, r, err)
	}
	return see303(w, r, s.settingsPath(acct))
}

// authorized is one application a person authorized, over all its grants.
type authorized struct {
	ClientID   string
	ClientName string
	Accounts   []string
	Scopes     []string
	First      time.Time
	LastUsed   time.Time
}

func (s *Server) applications(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login?next="+url.QueryEscape(r.URL.Path))
	}
	grants, err := s.cfg.Apps.PersonGrants(r.Context(), v.Person.ID)
	if err != nil {
		return err
	}
	var list []*authorized
	byClient := map[string]*authorized{}
	for _, g := range grants {
		a := byClient[g.ClientID]
		if a == nil {
			a = &authorized{ClientID: g.ClientID, ClientName: g.ClientName, First: g.Added, LastUsed: g.Updated}
			byClient[g.ClientID] = a
			list = append(list, a)
		}
		a.Accounts = appendNew(a.Accounts, g.AccountSlug)
		for _, sc := range g.Scopes {
			a.Scopes = appendNew(a.Scopes, sc)
		}
		if g.Added.Before(a.First) {
			a.First = g.Added
		}
	}
	v.Title, v.Data = "Authorized applications", list
	return s.render(w, r, "applications.html", v)
}

func (s *Server) revokeApplication(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	err := s.cfg.Apps.RevokeClientGrants(r.Context(), v.Person.ID, r.PostFormValue("client_id"))
	if err != nil && !taskd.IsNotFound(err) {
		return err
	}
	return see303(w, r, "/settings/applications")
}

func appendNew(list []string, s string) []string {
	if taskd.HasScope(list, s) {
		return list
	}
	return append(list, s)
}

// settingsIndex is GET /a/{slug}/settings: the account's settings pages.
// Data says whether the webhook pages are served.
func (s *Server) settingsIndex(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	v.Title, v.Data = "Settings", s.cfg.Hooks != nil
	return s.render(w, r, "settings.html", v)
}

// apiKeyView is the administrative-key page.
type apiKeyView struct {
	Shown *flash
	// None: the account has no key, revoked with the trust of the person
	// it was shown to (taskd.TrustEnded).
	None bool
}

// apiKey is the administrative-key page: rotate, and see the new key once.
func (s *Server) apiKey(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	v.Title, v.Data = "Administrative API key", apiKeyView{Shown: s.takeFlash(w, r), None: len(me.Account.APIKey) == 0}
	return s.render(w, r, "apikey.html", v)
}

func (s *Server) rotateAPIKey(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	key := secret.APIKey()
	if err := s.cfg.Accounts.SetAPIKey(r.Context(), acct.ID, s.cfg.Sealer.SealAPIKey(acct.Slug, key), me.Member.ID); err != nil {
		return err
	}
	s.setFlash(w, flash{Secret: key, Message: "A new key was made; the old one stopped working."})
	return see303(w, r, s.cfg.accountPath(acct)+"/settings/apikey")
}
