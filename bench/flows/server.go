package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/taskd/taskd/wire"
)

const (
	slug        = "flows"
	email       = "owner@flows.example"
	password    = "flows-password-1"
	redirectURI = "https://app.example/callback"
)

// server is a running `taskd serve` and what the flows need of it.
type server struct {
	cmd                    *exec.Cmd
	dir                    string
	base                   string // http://127.0.0.1:PORT
	key                    string // the account's API key
	clientID, clientSecret string
	project                string // the id of the project the API flows use
	task                   string // the id of the task update_task and post_comment change
	refresh                string // the refresh token of the last token set
}

// cli runs a taskd command and decodes its JSON answer.
func cli(bin string, out any, args ...string) error {
	b, err := exec.Command(bin, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("taskd %s: %w: %s", args[0], err, ee.Stderr)
		}
		return fmt.Errorf("taskd %s: %w", args[0], err)
	}
	return json.Unmarshal(b, out)
}

// startServer creates the account and the client and starts taskd serve
// on the database of dbURL (SQLite in a temporary directory when empty),
// with serveArgs added to its flags.
func startServer(ctx context.Context, bin, dbURL string, serveArgs ...string) (*server, error) {
	dir, err := os.MkdirTemp("", "taskd-flows-")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir}
	storage := []string{"--data", dir}
	if dbURL != "" {
		storage = append(storage, "--db", dbURL)
	}
	var acct map[string]string
	if err := cli(bin, &acct, append([]string{"account", "create", "--slug", slug, "--name", "Flows",
		"--owner-email", email, "--owner-password", password}, storage...)...); err != nil {
		return nil, err
	}
	s.key = acct["api_key"]
	var cl map[string]string
	if err := cli(bin, &cl, append([]string{"client", "create", "--account", slug, "--name", "Flows app",
		"--redirect-uri", redirectURI}, storage...)...); err != nil {
		return nil, err
	}
	s.clientID, s.clientSecret = cl["client_id"], cl["client_secret"]
	if s.key == "" || s.clientID == "" || s.clientSecret == "" {
		return nil, fmt.Errorf("account or client not created: %v %v", acct, cl)
	}
	args := append([]string{"serve", "--dev", "--log-level", "warn", "--addr", "127.0.0.1:0"}, storage...)
	s.cmd = exec.Command(bin, append(args, serveArgs...)...)
	s.cmd.Stderr = os.Stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	listening := regexp.MustCompile(`taskd listening on (http://127\.0\.0\.1:\d+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.base = <-found:
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("taskd serve did not start")
	}
	for i := 0; ; i++ {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if i == 100 {
			s.stop()
			return nil, errors.New("/healthz did not answer")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s, nil
}

func (s *server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		_ = s.cmd.Wait()
	}
	os.RemoveAll(s.dir)
}

// apiCall calls the account API with the hash signature (GET) or the Admin
// header (POST) and returns the body, failing unless the status is ok.
func (s *server) apiCall(ctx context.Context, method, action string, q url.Values) (string, error) {
	endpoint := s.base + "/a/" + slug + "/api/admin/v2/"
	q.Set("action", action)
	var req *http.Request
	var err error
	if method == http.MethodGet {
		enc := q.Encode()
		req, err = http.NewRequestWithContext(ctx, method, endpoint+"?"+enc+"&hash="+wire.Hash(enc, s.key), nil)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, endpoint, strings.NewReader(q.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", wire.AdminHeader(s.key, action, time.Now()))
		}
	}
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if !strings.Contains(string(b), `"status":"ok"`) {
		return "", fmt.Errorf("%s answered %d: %.300s", action, resp.StatusCode, b)
	}
	return string(b), nil
}

var idRE = regexp.MustCompile(`"id":"(\d+)"`)

// seed creates the project the API flows use, with 20 tasks.
func (s *server) seed(ctx context.Context) error {
	body, err := s.apiCall(ctx, http.MethodPost, "post_project", url.Values{"title": {"Flows"}})
	if err != nil {
		return err
	}
	m := idRE.FindStringSubmatch(body)
	if m == nil {
		return fmt.Errorf("no project id in %.200s", body)
	}
	s.project = m[1]
	for i := range 20 {
		body, err := s.apiCall(ctx, http.MethodPost, "post_task", url.Values{"id_project": {s.project}, "title": {fmt.Sprintf("Task %d", i)}})
		if err != nil {
			return err
		}
		if m := idRE.FindStringSubmatch(body); m != nil {
			s.task = m[1] // update_task and post_comment change the last
		}
	}
	if s.task == "" {
		return errors.New("no task id in post_task's answers")
	}
	return nil
}

// browser is a cookie-keeping client that does not follow redirects.
func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// visit sends a request as a browser navigating this site would, and
// returns the status, the Location and the body.
func visit(ctx context.Context, c *http.Client, method, u string, form url.Values) (int, string, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return 0, "", "", err
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b), err
}

// want checks a step's status.
func want(status, code int, body string) error {
	if status != code {
		return fmt.Errorf("status %d, want %d: %.300s", status, code, body)
	}
	return nil
}

// submit sends a form as a browser would, with extra fields (a button).
func submit(ctx context.Context, c *http.Client, base string, f form, extra url.Values) (int, string, string, error) {
	v := url.Values{}
	for k, vs := range f.Fields {
		v[k] = append([]string(nil), vs...)
	}
	for k, vs := range extra {
		v[k] = vs
	}
	if f.Method == http.MethodGet {
		return visit(ctx, c, http.MethodGet, base+f.Action+"?"+v.Encode(), nil)
	}
	return visit(ctx, c, http.MethodPost, base+f.Action, v)
}

func (s *server) flows() []flow {
	return []flow{
		{"authorization-code flow", s.authorizationCode},
		{"refresh grant", s.refreshGrant},
		{"post_task", func(ctx context.Context, step func(string, func() error) error) error {
			return step("post_task", func() error {
				_, err := s.apiCall(ctx, http.MethodPost, "post_task", url.Values{"id_project": {s.project}, "title": {"One more"}})
				return err
			})
		}},
		{"update_task", func(ctx context.Context, step func(string, func() error) error) error {
			return step("update_task", func() error {
				_, err := s.apiCall(ctx, http.MethodPost, "update_task", url.Values{"id_task": {s.task}, "title": {"Renamed " + rand.Text()[:6]}})
				return err
			})
		}},
		{"post_comment", func(ctx context.Context, step func(string, func() error) error) error {
			return step("post_comment", func() error {
				_, err := s.apiCall(ctx, http.MethodPost, "post_comment", url.Values{"id_task": {s.task}, "text": {"A word"}})
				return err
			})
		}},
		{"get_tasks", func(ctx context.Context, step func(string, func() error) error) error {
			get := func() error {
				_, err := s.apiCall(ctx, http.MethodGet, "get_tasks", url.Values{"id_project": {s.project}})
				return err
			}
			// post_task ran just before: the first answer is computed, the second cached.
			if err := step("get_tasks (uncached)", get); err != nil {
				return err
			}
			return step("get_tasks (cached)", get)
		}},
	}
}

// authorizationCode runs the flow of docs/oauth.md in a fresh browser.
func (s *server) authorizationCode(ctx context.Context, step func(string, func() error) error) error {
	c := browser()
	verifier := rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {s.clientID}, "response_type": {"code"}, "redirect_uri": {redirectURI},
		"state": {"st-" + rand.Text()}, "scope": {"tasks_read tasks_write"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	var page, location, code string
	if err := step("sign-in page", func() error {
		st, _, body, err := visit(ctx, c, http.MethodGet, s.base+"/oauth2/authorize?"+q.Encode(), nil)
		if err != nil {
			return err
		}
		page = body
		return want(st, 200, body)
	}); err != nil {
		return err
	}
	if err := step("sign in", func() error {
		f, err := formWith(page, "next", "")
		if err != nil {
			return err
		}
		st, loc, body, err := submit(ctx, c, s.base, f, url.Values{"email": {email}, "password": {password}})
		if err != nil {
			return err
		}
		location = loc
		return want(st, 303, body)
	}); err != nil {
		return err
	}
	if err := step("account choice page", func() error {
		st, _, body, err := visit(ctx, c, http.MethodGet, s.base+location, nil)
		if err != nil {
			return err
		}
		page = body
		return want(st, 200, body)
	}); err != nil {
		return err
	}
	f, err := formWith(page, "account", slug)
	if err != nil {
		return err
	}
	if f.Method == http.MethodPost { // the old pages: a POST that redirects to the consent page
		if err := step("choose account (POST)", func() error {
			st, loc, body, err := submit(ctx, c, s.base, f, nil)
			location = loc
			if err != nil {
				return err
			}
			return want(st, 303, body)
		}); err != nil {
			return err
		}
		if err := step("consent page", func() error {
			st, _, body, err := visit(ctx, c, http.MethodGet, s.base+location, nil)
			page = body
			if err != nil {
				return err
			}
			return want(st, 200, body)
		}); err != nil {
			return err
		}
	} else if err := step("choose account: consent page", func() error {
		st, _, body, err := submit(ctx, c, s.base, f, nil)
		page = body
		if err != nil {
			return err
		}
		return want(st, 200, body)
	}); err != nil {
		return err
	}
	if err := step("allow", func() error {
		f, err := formWith(page, "account", slug)
		if err != nil {
			return err
		}
		st, loc, body, err := submit(ctx, c, s.base, f, url.Values{"decision": {"allow"}})
		if err != nil {
			return err
		}
		if err := want(st, 303, body); err != nil {
			return err
		}
		u, err := url.Parse(loc)
		if err != nil || !strings.HasPrefix(loc, redirectURI+"?") || u.Query().Get("state") != q.Get("state") {
			return fmt.Errorf("redirect %q is not the client's with the state", loc)
		}
		code = u.Query().Get("code")
		return nil
	}); err != nil {
		return err
	}
	return step("token", func() error {
		return s.token(ctx, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI},
			"code_verifier": {verifier}})
	})
}

func (s *server) refreshGrant(ctx context.Context, step func(string, func() error) error) error {
	return step("refresh grant", func() error {
		return s.token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {s.refresh}})
	})
}

// token calls the token endpoint with the client's credentials in the
// body and keeps the refresh token.
func (s *server) token(ctx context.Context, v url.Values) error {
	refresh, err := s.tokenSet(ctx, http.DefaultClient, v)
	if err == nil {
		s.refresh = refresh
	}
	return err
}

// tokenSet calls the token endpoint through c with the client's
// credentials in the body and returns the new refresh token.
func (s *server) tokenSet(ctx context.Context, c *http.Client, v url.Values) (string, error) {
	v.Set("client_id", s.clientID)
	v.Set("client_secret", s.clientSecret)
	st, _, body, err := visit(ctx, c, http.MethodPost, s.base+"/oauth2/token", v)
	if err != nil {
		return "", err
	}
	if err := want(st, 200, body); err != nil {
		return "", err
	}
	var set struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal([]byte(body), &set); err != nil || set.AccessToken == "" || set.RefreshToken == "" {
		return "", fmt.Errorf("no token set in %.200s", body)
	}
	return set.RefreshToken, nil
}

// withDatabase returns the URL with its database replaced.
func withDatabase(admin, db string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", err
	}
	u.Path = "/" + db
	return u.String(), nil
}
