package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd/wire"
)

// server is one taskd serve process, measured alone.
type server struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	debug  string // the profiles' address, with --profile
	client *http.Client
}

// storage is where the account lives: --data, and --db for PostgreSQL.
type storage struct {
	data, db string
}

func (s storage) flags() []string {
	f := []string{"--data", s.data}
	if s.db != "" {
		f = append(f, "--db", s.db)
	}
	return f
}

var listening = regexp.MustCompile(`taskd listening on (http://127\.0\.0\.1:[0-9]+) `)

// start runs bin serve on st and waits for /healthz; with profiles, it
// serves Go's profiles too.
func start(ctx context.Context, bin string, st storage, profiles bool) (*server, error) {
	args := append([]string{"serve", "--dev", "--log-level", "warn", "--addr", "127.0.0.1:0",
		"--api-rate-limit", "1000000000", "--api-rate-limit-address", "1000000000"}, st.flags()...)
	debug := ""
	if profiles {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		debug = ln.Addr().String()
		ln.Close()
		args = append(args, "--debug-addr", debug)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	s := &server{cmd: cmd, debug: debug}
	select {
	case s.base = <-found:
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, fmt.Errorf("taskd serve did not start: %s", stderr.String())
	}
	jar, _ := cookiejar.New(nil)
	s.client = &http.Client{Jar: jar, Timeout: 10 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for range 100 {
		if res, err := s.client.Get(s.base + "/healthz"); err == nil {
			res.Body.Close()
			return s, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("/healthz did not answer")
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// memory reads the server's resident set now (VmRSS) and at its peak so
// far (VmHWM), in bytes.
func (s *server) memory() (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	return rss, peak, nil
}

// account is the measured account on a server.
type account struct {
	*server
	slug, key string
}

// call signs an action (hash) and reads its whole answer; an answer
// that is not "status":"ok" is an error.
func (a account) call(pairs ...string) ([]byte, error) {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Set(pairs[i], pairs[i+1])
	}
	q := v.Encode()
	res, err := a.client.Get(a.base + "/a/" + a.slug + "/api/admin/v2/?" + q + "&hash=" + wire.Hash(q, a.key))
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	if !strings.HasPrefix(string(body), `{"status":"ok"`) {
		return nil, fmt.Errorf("%s: HTTP %d %.200s", q, res.StatusCode, body)
	}
	return body, nil
}

// post sends an action with the Admin header.
func (a account) post(action string, pairs ...string) error {
	v := url.Values{"action": {action}}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Set(pairs[i], pairs[i+1])
	}
	req, err := http.NewRequest(http.MethodPost, a.base+"/a/"+a.slug+"/api/admin/v2/", strings.NewReader(v.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", wire.AdminHeader(a.key, action, time.Now()))
	res, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if !strings.HasPrefix(string(body), `{"status":"ok"`) {
		return fmt.Errorf("%s: %.200s", action, body)
	}
	return nil
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs the owner in to the pages.
func (a account) signIn(email, password string) error {
	res, err := a.client.Get(a.base + "/login")
	if err != nil {
		return err
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		return errors.New("no csrf field on /login")
	}
	res, err = a.client.PostForm(a.base+"/login", url.Values{"email": {email}, "password": {password}, "csrf": {string(m[1])}})
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusFound {
		return fmt.Errorf("sign-in answered HTTP %d", res.StatusCode)
	}
	return nil
}

// page reads a page of the signed-in owner.
func (a account) page(path string) ([]byte, error) {
	res, err := a.client.Get(a.base + "/a/" + a.slug + path)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: HTTP %d", path, res.StatusCode)
	}
	return body, err
}

// profile saves the server's profile of name (with the query) to file.
func (s *server) profile(name, query, file string) error {
	res, err := http.Get("http://" + s.debug + "/debug/pprof/" + name + "?" + query)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
