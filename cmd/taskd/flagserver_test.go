package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/wire"
)

// flagServer is one "taskd serve" run in process by a row of
// TestServeFlagsReachWhatTheyConfigure, with an account made before it
// started.
type flagServer struct {
	base           string // as printed: http(s)://127.0.0.1:port
	st             storage
	slug, key      string // the account and its administrative key
	value          string // the row's value of its flag
	stdout, stderr *syncBuffer
	client         *http.Client // trusts the row's TLS certificate, if any
	stop           func() error // stops serve and returns what it returned
	// expectStopError: the row stopped serve and judged its error itself.
	expectStopError bool
}

var servedRE = regexp.MustCompile(`listening on (https?://[0-9.:]+)`)

// startServe runs "taskd serve args" with the environment env until the
// test ends (or stop), and waits until it listens.
func startServe(t *testing.T, st storage, args []string, env map[string]string, client *http.Client) *flagServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &flagServer{st: st, stdout: &syncBuffer{}, stderr: &syncBuffer{}, client: client}
	done := make(chan error, 1)
	getenv := func(k string) string { return env[k] }
	go func() { done <- run(ctx, append([]string{"serve"}, args...), getenv, s.stdout, s.stderr) }()
	var once sync.Once
	var err error
	s.stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	for {
		if m := servedRE.FindStringSubmatch(s.stdout.String()); m != nil {
			s.base = m[1]
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve %v exited: %v\n%s", args, err, s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil && !s.expectStopError {
			t.Errorf("serve did not shut down cleanly: %v", err)
		}
	})
	return s
}

// account is the account's URL on this server.
func (s *flagServer) account() string { return s.base + "/a/" + s.slug }

// get fetches a path of the server.
func (s *flagServer) get(t *testing.T, path string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	return s.do(t, req)
}

// post sends a form to a path of the server.
func (s *flagServer) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return s.do(t, req)
}

func (s *flagServer) do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	c := s.client
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// call makes a signed account-API call with the server's account key and
// returns the HTTP status and the decoded answer.
func (s *flagServer) call(t *testing.T, key string, params ...string) (int, map[string]any) {
	t.Helper()
	q := url.Values{}
	for i := 0; i < len(params); i += 2 {
		q.Add(params[i], params[i+1])
	}
	enc := q.Encode()
	status, body := s.get(t, "/a/"+s.slug+"/api/admin/v2/?"+enc+"&hash="+wire.Hash(enc, key), nil)
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: not JSON: %s", enc, body)
	}
	return status, m
}

// project makes a project and returns its id.
func (s *flagServer) project(t *testing.T) string {
	t.Helper()
	status, body := s.call(t, s.key, "action", "post_project", "title", "Flags")
	if status != 200 || body["status"] != "ok" {
		t.Fatalf("post_project: %d %v", status, body)
	}
	return body["data"].(map[string]any)["id"].(string)
}

// upload posts a task with one file of size zero bytes, with the query's
// extra parameters signed too.
func (s *flagServer) upload(t *testing.T, pid string, size int, extra ...string) (int, map[string]any) {
	t.Helper()
	status, text := s.do(t, s.uploadRequest(t, pid, bytes.NewReader(multipartFile(size)), extra...))
	var m map[string]any
	json.Unmarshal([]byte(text), &m)
	return status, m
}

// uploadRequest is post_task with a multipart body read from body.
func (s *flagServer) uploadRequest(t *testing.T, pid string, body io.Reader, extra ...string) *http.Request {
	t.Helper()
	q := url.Values{"action": {"post_task"}, "id_project": {pid}, "title": {"Upload"}}
	for i := 0; i < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	enc := q.Encode()
	req, err := http.NewRequest(http.MethodPost, s.account()+"/api/admin/v2/?"+enc+"&hash="+wire.Hash(enc, s.key), body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	return req
}

const boundary = "flagsboundary"

// multipartFile is a multipart body with one file of size zero bytes.
func multipartFile(size int) []byte {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.SetBoundary(boundary)
	part, _ := w.CreateFormFile("attach[0]", "zeros.bin")
	part.Write(make([]byte, size))
	w.Close()
	return b.Bytes()
}

// holdUpload starts an upload whose body stops after the file's first
// bytes, and keeps it in flight until the test ends; the channel closes
// if it is answered before (refused: another upload had the place).
func (s *flagServer) holdUpload(t *testing.T, pid string) <-chan struct{} {
	t.Helper()
	pr, pw := io.Pipe()
	head := multipartFile(1 << 20)
	req := s.uploadRequest(t, pid, pr)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	if _, err := pw.Write(head[:64<<10]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pw.CloseWithError(io.ErrUnexpectedEOF) })
	return answered
}

// freeAddr is a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files
// and returns their paths and a client that trusts the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, client *http.Client) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "taskd test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return certFile, keyFile, &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// hookReceiver is a webhook destination on loopback: it passes every URL
// check, and hands each delivery to the row's handler.
type hookReceiver struct {
	URL     string
	checked chan struct{} // a URL check arrived (buffered: the first only)
}

// newHookReceiver serves deliveries with deliver; a URL check is answered
// by check (OK when nil).
func newHookReceiver(t *testing.T, check, deliver http.HandlerFunc) *hookReceiver {
	t.Helper()
	r := &hookReceiver{checked: make(chan struct{}, 1)}
	ok := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}
	if check == nil {
		check = ok
	}
	if deliver == nil {
		deliver = ok
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if string(body) == "[]" {
			select {
			case r.checked <- struct{}{}:
			default:
			}
			check(w, req)
			return
		}
		deliver(w, req)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	r.URL = "http://" + ln.Addr().String()
	return r
}

// addWebhook adds a webhook of post_task to url and, when that succeeds,
// enables it (a new webhook is disabled); it returns add_webhook's answer.
func (s *flagServer) addWebhook(t *testing.T, url string) map[string]any {
	t.Helper()
	_, body := s.call(t, s.key, "action", "add_webhook", "url", url, "events", "post_task")
	if body["status"] == "ok" {
		wantOK(t, "enable_webhook")(s.call(t, s.key, "action", "enable_webhook", "id", fmt.Sprint(body["id"])))
	}
	return body
}

// waitFor polls cond until it holds; the test fails after a generous bound
// (a hang, not a slowness check).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// errorCode is an account-API answer's status_code, or 0 when ok.
func errorCode(body map[string]any) int {
	if body["status"] == "ok" {
		return 0
	}
	n, _ := body["status_code"].(float64)
	return int(n)
}

// wantOK returns a check that an account-API answer is ok, for a call's
// two results: wantOK(t, what)(s.call(…)).
func wantOK(t *testing.T, what string) func(int, map[string]any) {
	return func(status int, body map[string]any) {
		t.Helper()
		if status != 200 || body["status"] != "ok" {
			t.Fatalf("%s: %d %v", what, status, body)
		}
	}
}
