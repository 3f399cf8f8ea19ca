package main

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// readmeDemo is the README's demo server, started with its first command,
// and a terminal on its data.
type readmeDemo struct {
	base     string // where serve listens, in place of 127.0.0.1:8080
	hookAddr string // where the demo's webhook points, in place of 127.0.0.1:9000
	printed  *syncBuffer
	key      string // the demo's API key, as printed
	keyLine  string // the line serve --demo prints to paste in place of the README's KEY=PASTE_API_KEY
	term     *terminal
	ports    *strings.Replacer
}

// startReadmeDemo runs the README's "serve --dev --demo" on a free port and
// a fresh data directory, its webhook on another free port.
func startReadmeDemo(t *testing.T) *readmeDemo {
	t.Helper()
	st := storage{data: t.TempDir()}
	d := &readmeDemo{hookAddr: freeAddr(t), term: newTerminal(t, st)}
	args := taskdArgs(t, readmeCommands(t, "# taskd", strings.NewReplacer()).next(t, "serve"))
	if args[0] != "serve" {
		t.Fatalf("the README starts taskd with %q", args)
	}
	d.base, d.printed = startServer(t, st, append(args[1:], "--demo-webhook-url", "http://"+d.hookAddr+"/")...)
	m := demoKeyRE.FindStringSubmatch(d.printed.String())
	if m == nil {
		t.Fatalf("serve --demo printed no API key:\n%s", d.printed)
	}
	d.key = m[1]
	line := printedKeyLineRE.FindStringSubmatch(d.printed.String())
	if line == nil || line[1] != "KEY="+d.key {
		t.Fatalf("serve --demo printed no whole KEY= line for the README:\n%s", d.printed)
	}
	d.keyLine = line[1]
	d.ports = strings.NewReplacer("127.0.0.1:8080", strings.TrimPrefix(d.base, "http://"), "127.0.0.1:9000", d.hookAddr)
	return d
}

var (
	printedKeyLineRE = regexp.MustCompile(`(?m)paste:\s+(KEY=\S*)$`)
	printedListenRE  = regexp.MustCompile(`(?m)^\s+(go run ./cmd/taskd listen .*)$`)
	printedSecretRE  = regexp.MustCompile(`--secret (whsec_\S+)`)
)

// TestReadmeWebhooksInAMinute runs the README's "Webhooks in a minute" as
// printed: the demo's webhook to taskd listen, then a second webhook added
// with add_webhook to the same running listener, and listen restarted with
// both secrets.
func TestReadmeWebhooksInAMinute(t *testing.T) {
	d := startReadmeDemo(t)
	steps := readmeCommands(t, "## Webhooks in a minute", d.ports)
	line := printedListenRE.FindStringSubmatch(d.printed.String())
	if line == nil {
		t.Fatalf("serve --demo printed no listen line:\n%s", d.printed)
	}
	demoSecret := printedSecretRE.FindStringSubmatch(line[1])[1]
	readmeListen := fill(t, steps.next(t, "listen"), "whsec_…", demoSecret)
	if readmeListen != line[1] {
		t.Fatalf("the README's listen line is %q; serve --demo printed %q", readmeListen, line[1])
	}
	_, out, stop := startListen(t, taskdArgs(t, readmeListen)[1:]...)

	d.term.run(t, fill(t, steps.next(t, "KEY="), readmeKey, d.keyLine))
	wantStatusOK(t, "enable_webhook", d.term.runJSON(t, steps.next(t, "action=enable_webhook&id=1")))
	wantStatusOK(t, "post_task", d.term.runJSON(t, steps.next(t, "action=post_task")))
	waitPrinted(t, out, `event \d+  post_task .*\(evt_\d+ on /; signature ok\)`, "name: First")

	added := d.term.runJSON(t, steps.next(t, "action=add_webhook"))
	newSecret, _ := added["secret"].(string)
	if added["status"] != "ok" || added["id"] != float64(2) || !strings.HasPrefix(newSecret, "whsec_") {
		t.Fatalf("add_webhook to the running listener: %v", added)
	}
	wantPrinted(t, out, "URL check answered (check_", " on /second), its signature is by a secret not given (a new webhook?)")

	stop()
	_, out, _ = startListen(t, taskdArgs(t, fill(t, steps.next(t, "listen"), "whsec_…", demoSecret, "whsec_…", newSecret))[1:]...)
	wantStatusOK(t, "enable_webhook", d.term.runJSON(t, steps.next(t, "action=enable_webhook&id=2")))
	wantPrinted(t, out, " on /second; signature ok, secret 2 of 2)")
	wantStatusOK(t, "post_task", d.term.runJSON(t, steps.next(t, "action=post_task")))
	waitPrinted(t, out, `post_task .*\(evt_\d+ on /; signature ok, secret 1 of 2\)`, "name: Second")
	waitPrinted(t, out, `post_task .*\(evt_\d+ on /second; signature ok, secret 2 of 2\)`, "name: Second")
	steps.done(t)
	if strings.Contains(out.String(), "REFUSED") {
		t.Fatalf("listen refused a delivery:\n%s", out)
	}
}

// readmeKey is the README's placeholder for the API key: pasted verbatim
// it signs nothing (docs/decisions.md, issue 33), unlike an ellipsis,
// which looks like a value.
const readmeKey = "KEY=PASTE_API_KEY"

// TestReadmeUsingTheAPI runs the README's "Using the API" lines: as
// printed, the placeholder key signs nothing and the call is refused; with
// the KEY= line serve --demo printed pasted over it, the call answers.
func TestReadmeUsingTheAPI(t *testing.T) {
	d := startReadmeDemo(t)
	steps := readmeCommands(t, "## Using the API", d.ports)
	setKey, call := steps.next(t, readmeKey+";"), steps.next(t, "curl")
	steps.done(t)
	if refused := d.term.runJSON(t, setKey+"\n"+call); refused["status"] == "ok" {
		t.Fatalf("the README's placeholder key signed a call: %v", refused)
	}
	wantStatusOK(t, "get_tasks", d.term.runJSON(t, fill(t, setKey, readmeKey, d.keyLine)+"\n"+call))
}

// TestReadmeOAuthInAMinute runs the README's "OAuth 2.0 in a minute" as
// printed, the browser's part (sign in as the demo owner, pick the account,
// allow) through the pages.
func TestReadmeOAuthInAMinute(t *testing.T) {
	d := startReadmeDemo(t)
	steps := readmeCommands(t, "## OAuth 2.0 in a minute", d.ports)
	client := d.term.runJSON(t, steps.next(t, "client create --account demo"))
	id, secret := client["client_id"].(string), client["client_secret"].(string)

	authURL := fill(t, steps.inline(t, d.base+"/oauth2/authorize?"), "ID", id)
	back := testsite.NewBrowser(t).Consent(d.base, authURL, demoEmail, demoPassword, demoSlug, "allow")
	asked, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	// Where the README says the browser is sent: the redirect URI with the code.
	sent, err := url.Parse(fill(t, steps.inline(t, asked.Query().Get("redirect_uri")+"?"), "…", "CODE", "…", "ISS"))
	if err != nil {
		t.Fatal(err)
	}
	code := back.Query().Get("code")
	if back.Host != sent.Host || back.Path != sent.Path || code == "" ||
		back.Query().Get("state") != sent.Query().Get("state") || back.Query().Get("iss") != d.base {
		t.Fatalf("the browser was sent to %s; the README says %s", back, sent)
	}

	tok := d.term.runJSON(t, fill(t, steps.next(t, "grant_type=authorization_code"), "CODE", code, "ID", id, "SECRET", secret))
	access, _ := tok["access_token"].(string)
	if access == "" {
		t.Fatalf("token exchange: %v", tok)
	}
	me := d.term.runJSON(t, fill(t, steps.next(t, "action=me"), "ACCESS_TOKEN", access))
	wantStatusOK(t, "me", me)
	if !strings.Contains(testsite.JSON(me["data"]), demoEmail) {
		t.Fatalf("me: %v", me)
	}
	steps.done(t)
}

// wantStatusOK fails unless an account-API answer is ok.
func wantStatusOK(t *testing.T, what string, body map[string]any) {
	t.Helper()
	if body["status"] != "ok" {
		t.Fatalf("%s: %v", what, body)
	}
}

// waitPrinted waits until listen has printed an event line that matches
// the pattern, followed by the field line.
func waitPrinted(t *testing.T, out *syncBuffer, pattern, field string) {
	t.Helper()
	re := regexp.MustCompile(pattern + `\n(    .*\n)*` + regexp.QuoteMeta("    "+field+"\n"))
	defer func() {
		if t.Failed() {
			t.Logf("listen printed:\n%s", out)
		}
	}()
	waitFor(t, "listen to print "+pattern+" and "+field, func() bool { return re.MatchString(out.String()) })
}
