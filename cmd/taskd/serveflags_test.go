package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
)

// flagRow is one flag of serve: the value it is given (not its default),
// what else serve needs for the row, and what the value must change.
type flagRow struct {
	flag string
	// set returns the flag's value, the default arguments to leave out
	// (by flag name) and arguments to add; it may prepare the storage.
	set   func(t *testing.T, st storage) (value string, drop, add []string)
	check func(t *testing.T, s *flagServer)
	// client, when set, is how the check reaches the server (TLS).
	client *http.Client
}

// envRows are the flags also started with their value in the
// environment: a secret, a bool, a string, a duration, an int, a file and
// the database URL.
var envRows = map[string]bool{"master-key": true, "dev": true, "log-level": true, "webhook-lease": true,
	"api-rate-limit": true, "tls-cert": true, "db": true}

// notDev are the arguments of a server outside --dev, behind a TLS proxy.
var notDev = []string{"--trust-proxy", "--public-url", "https://taskd.example"}

// TestServeFlagsReachWhatTheyConfigure starts the real serve command, in
// process, once per flag with a value other than its default, and
// observes the value's effect over HTTP or on disk. A flag parsed but not
// passed on to what it configures fails its row. The same value given as
// TASKD_<FLAG> in the environment is started too for one flag of each
// kind of value (envRows): every flag reads its environment through one
// function, parseFlags, which TestFlagsReadTheirEnvironment covers for
// every kind, so starting a server for each flag twice (66 starts, 8
// minutes of a CI run under -race) proved nothing more.
func TestServeFlagsReachWhatTheyConfigure(t *testing.T) {
	for _, row := range serveFlagRows(t) {
		hows := []string{"flag"}
		if envRows[row.flag] {
			hows = append(hows, "env")
		}
		for _, how := range hows {
			t.Run(row.flag+"/"+how, func(t *testing.T) {
				st := storage{data: testdb.New(t, "sqlite").Dir, masterKey: testdb.MasterKeyBase64()} // migrated already
				if row.flag == "db" {
					st.db = testdb.New(t, "postgres").URL
				}
				slug := testaccount.UniqueSlug("flags")
				acct := cliJSON(t, st, "account", "create", "--slug", slug, "--owner-email", slug+"@example.com", "--owner-password", password)
				value, drop, add := row.set(t, st)
				args, env := serveArgs(st, drop, add), map[string]string{}
				if how == "flag" {
					args = append(args, "--"+row.flag+"="+value)
				} else {
					env[envName(row.flag)] = value
				}
				s := startServe(t, st, args, env, row.client)
				s.slug, s.key, s.value = slug, acct["api_key"], value
				row.check(t, s)
			})
		}
	}
}

// serveArgs are the arguments every row starts serve with, but those
// named in drop, and add after them.
func serveArgs(st storage, drop, add []string) []string {
	all := append([]string{"--dev", "--addr", "127.0.0.1:0", "--log-level", "warn"}, st.args()...)
	var out []string
	for i := 0; i < len(all); i++ {
		name := strings.TrimPrefix(all[i], "--")
		hasValue := name != "dev"
		if slices.Contains(drop, name) {
			if hasValue {
				i++
			}
			continue
		}
		out = append(out, all[i])
		if hasValue {
			i++
			out = append(out, all[i])
		}
	}
	return append(out, add...)
}

// value returns a row's set for a fixed value and nothing else.
func value(v string, add ...string) func(*testing.T, storage) (string, []string, []string) {
	return func(*testing.T, storage) (string, []string, []string) { return v, nil, add }
}

func serveFlagRows(t *testing.T) []flagRow {
	certFile, keyFile, tlsClient := selfSigned(t)
	var mail *mailServer // the smtp-url row's
	rows := []flagRow{
		{flag: "addr", set: func(t *testing.T, _ storage) (string, []string, []string) {
			return freeAddr(t), []string{"addr"}, nil
		}, check: func(t *testing.T, s *flagServer) {
			if want := "http://" + s.value; s.base != want {
				t.Fatalf("listening on %s, want %s", s.base, want)
			}
			if status, _ := s.get(t, "/healthz", nil); status != 200 {
				t.Fatalf("/healthz at the address: %d", status)
			}
		}},
		{flag: "data", set: func(t *testing.T, st storage) (string, []string, []string) {
			return st.data, []string{"data"}, nil
		}, check: func(t *testing.T, s *flagServer) {
			if _, err := os.Stat(filepath.Join(s.st.data, "taskd.db")); err != nil {
				t.Fatalf("no database in the data directory: %v", err)
			}
			wantOK(t, "the account made in the data directory")(s.call(t, s.key, "action", "get_projects"))
		}},
		{flag: "master-key", set: func(t *testing.T, st storage) (string, []string, []string) {
			return st.masterKey, []string{"master-key"}, nil
		}, check: func(t *testing.T, s *flagServer) {
			wantOK(t, "the key sealed under the master key")(s.call(t, s.key, "action", "get_projects"))
			if _, err := os.Stat(filepath.Join(s.st.data, "master.key")); err == nil {
				t.Fatal("a master.key was made although the key was given")
			}
		}},
		{flag: "old-master-keys", set: func(t *testing.T, st storage) (string, []string, []string) {
			return st.masterKey, []string{"master-key"}, []string{"--master-key", newMasterKey(t)}
		}, check: func(t *testing.T, s *flagServer) {
			wantOK(t, "the key sealed under the old master key")(s.call(t, s.key, "action", "get_projects"))
		}},
		{flag: "public-url", set: value("http://tasks.example:8443"), check: func(t *testing.T, s *flagServer) {
			_, body := s.get(t, "/.well-known/oauth-authorization-server", nil)
			var meta map[string]any
			if json.Unmarshal([]byte(body), &meta); meta["issuer"] != "http://tasks.example:8443" {
				t.Fatalf("issuer %v, want the public URL", meta["issuer"])
			}
		}},
		{flag: "dev", set: func(*testing.T, storage) (string, []string, []string) {
			return "true", []string{"dev"}, notDev
		}, check: func(t *testing.T, s *flagServer) {
			if status, _ := s.get(t, "/dev/mail", nil); status != 200 {
				t.Fatalf("/dev/mail with --dev: %d", status)
			}
		}},
		{flag: "demo", set: value("true"), check: func(t *testing.T, s *flagServer) {
			m := demoKeyRE.FindStringSubmatch(s.stdout.String())
			if m == nil {
				t.Fatalf("no demo key printed:\n%s", s.stdout.String())
			}
			s.slug = "demo"
			if status, body := s.call(t, m[1], "action", "get_projects"); status != 200 || len(body["data"].([]any)) != 2 {
				t.Fatalf("the demo's projects: %d %v", status, body)
			}
		}},
		{flag: "demo-webhook-url", set: value("http://127.0.0.1:9999/hooks", "--demo"), check: func(t *testing.T, s *flagServer) {
			if !strings.Contains(s.stdout.String(), "listen --addr 127.0.0.1:9999 --secret whsec_") {
				t.Fatalf("the demo's receiver is not on port 9999:\n%s", s.stdout.String())
			}
			s.slug = "demo"
			_, body := s.call(t, demoKeyRE.FindStringSubmatch(s.stdout.String())[1], "action", "get_webhooks")
			if hooks, _ := body["data"].([]any); len(hooks) != 1 || hooks[0].(map[string]any)["url"] != s.value {
				t.Fatalf("the demo's webhooks: %v", body)
			}
		}},
		{flag: "tls-cert", set: value(certFile, "--tls-key", keyFile), client: tlsClient, check: checkTLS},
		{flag: "tls-key", set: value(keyFile, "--tls-cert", certFile), client: tlsClient, check: checkTLS},
		{flag: "trust-proxy", set: value("true", "--api-rate-limit-address", "1", "--token-rate-limit-address", "2"), check: checkTrustProxy},
		{flag: "log-format", set: value("json"), check: func(t *testing.T, s *flagServer) {
			if l := s.stderr.String(); !strings.Contains(l, `"level":"WARN"`) {
				t.Fatalf("the log is not JSON:\n%s", l)
			}
		}},
		{flag: "log-level", set: func(*testing.T, storage) (string, []string, []string) {
			return "debug", []string{"log-level"}, nil
		}, check: func(t *testing.T, s *flagServer) {
			s.get(t, "/healthz", nil)
			waitFor(t, "the request's line in the log", func() bool { return strings.Contains(s.stderr.String(), "path=/healthz") })
		}},
		{flag: "shutdown-timeout", set: value("1ms"), check: checkShutdownTimeout},
		{flag: "webhook-allow-private", set: func(*testing.T, storage) (string, []string, []string) {
			return "true", []string{"dev"}, notDev
		}, check: func(t *testing.T, s *flagServer) {
			if body := s.addWebhook(t, newHookReceiver(t, nil, nil).URL); body["status"] != "ok" {
				t.Fatalf("a webhook on loopback with --webhook-allow-private: %v", body)
			}
		}},
		{flag: "webhook-workers", set: value("1"), check: checkWebhookWorkers},
		{flag: "webhook-lease", set: value("1h"), check: checkWebhookLease},
		{flag: "api-rate-limit", set: value("1"), check: func(t *testing.T, s *flagServer) {
			checkAddressNotLimited(t, func() int {
				status, _ := s.get(t, "/a/"+s.slug+"/api/admin/v2/?action=get_projects", nil)
				return status
			})
			checkSecondRefused(t, func() (int, bool) {
				status, body := s.call(t, s.key, "action", "get_projects")
				return status, errorCode(body) == 24
			})
		}},
		{flag: "api-rate-limit-address", set: value("1"), check: func(t *testing.T, s *flagServer) {
			checkSecondRefused(t, func() (int, bool) {
				status, body := s.get(t, "/a/"+s.slug+"/api/admin/v2/?action=get_projects", nil)
				return status, strings.Contains(body, `"status_code":24`)
			})
		}},
		{flag: "token-rate-limit", set: value("1"), check: func(t *testing.T, s *flagServer) {
			checkAddressNotLimited(t, func() int {
				status, _ := s.post(t, "/oauth2/token", url.Values{"grant_type": {"refresh_token"}})
				return status
			})
			app := cliJSON(t, s.st, "client", "create", "--account", s.slug, "--name", "App", "--redirect-uri", "https://app.example/cb")
			form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"none"},
				"client_id": {app["client_id"]}, "client_secret": {app["client_secret"]}}
			checkSecondRefused(t, func() (int, bool) {
				status, body := s.post(t, "/oauth2/token", form)
				return status, strings.Contains(body, "too_many_requests")
			})
		}},
		{flag: "token-rate-limit-address", set: value("1"), check: func(t *testing.T, s *flagServer) {
			checkSecondRefused(t, func() (int, bool) {
				status, body := s.post(t, "/oauth2/token", url.Values{"grant_type": {"refresh_token"}})
				return status, strings.Contains(body, "too_many_requests")
			})
		}},
		{flag: "mail-invitations-per-hour", set: value("1"), check: checkInvitationsLimited(1, "in the last hour")},
		{flag: "mail-invitations-per-day", set: value("2"), check: checkInvitationsLimited(2, "in the last day")},
		{flag: "mail-per-recipient-per-day", set: value("1"), check: func(t *testing.T, s *flagServer) {
			other := testaccount.UniqueSlug("flags-other")
			key := cliJSON(t, s.st, "account", "create", "--slug", other, "--owner-email", other+"@example.com", "--owner-password", password)["api_key"]
			to := testaccount.UniqueSlug("invitee") + "@example.com"
			wantOK(t, "the first invitation")(s.call(t, s.key, "action", "add_user", "email", to))
			s.slug = other
			if status, body := s.call(t, key, "action", "add_user", "email", to); status != 429 || errorCode(body) != 24 ||
				!strings.Contains(fmt.Sprint(body["message"]), "This address has been sent as much mail") {
				t.Fatalf("a second mail to the address in a day: %d %v", status, body)
			}
		}},
		{flag: "mail-address-changes-per-day", set: value("1"), check: checkAddressChangesLimited},
		{flag: "uploads-per-person", set: value("1"), check: func(t *testing.T, s *flagServer) {
			checkUploadRefused(t, s, s.project(t), "You have 1 uploads in progress")
		}},
		{flag: "uploads-per-account", set: value("1"), check: func(t *testing.T, s *flagServer) {
			other := testaccount.UniqueSlug("uploader") + "@example.com"
			cliJSON(t, s.st, "user", "add", "--account", s.slug, "--email", other, "--password", password)
			checkUploadRefused(t, s, s.project(t), "The account has 1 uploads in progress", "email_user_from", other)
		}},
		{flag: "live-streams-per-person", set: value("1"), check: checkLiveStreamsLimited("You have another page with live updates open")},
		{flag: "live-streams", set: value("4"), check: checkLiveStreamsLimited("Your account has as many pages with live updates open")},
		// The two allowances of files are given different values in each
		// row, and each refusal names its own, so that a swap shows.
		{flag: "max-file-mb", set: value("1"), check: func(t *testing.T, s *flagServer) {
			pid := s.project(t)
			wantOK(t, "a file of 1 MB")(s.upload(t, pid, 1<<20))
			wantRefused(t, "a file of 1 MB and a byte with --max-file-mb 1", "A file is at most 1 MB")(s.upload(t, pid, 1<<20+1))
		}},
		{flag: "max-account-files-mb", set: value("2", "--max-file-mb", "1"), check: func(t *testing.T, s *flagServer) {
			pid := s.project(t)
			wantRefused(t, "a file of 1 MB and a byte with --max-file-mb 1", "A file is at most 1 MB")(s.upload(t, pid, 1<<20+1))
			wantOK(t, "the first file of 1 MB")(s.upload(t, pid, 1<<20))
			wantOK(t, "the second file of 1 MB, filling the account's 2 MB")(s.upload(t, pid, 1<<20))
			wantRefused(t, "a byte more than the account's 2 MB", "allowance of 2 MB")(s.upload(t, pid, 1))
		}},
		{flag: "strict-oauth", set: value("true"), check: func(t *testing.T, s *flagServer) {
			if status, _ := s.get(t, "/oauth2/token?grant_type=authorization_code", nil); status != http.StatusMethodNotAllowed {
				t.Fatalf("a GET token request with --strict-oauth: %d", status)
			}
		}},
		{flag: "debug-addr", set: func(t *testing.T, _ storage) (string, []string, []string) {
			return freeAddr(t), nil, nil
		}, check: func(t *testing.T, s *flagServer) {
			res, err := http.Get("http://" + s.value + "/debug/pprof/")
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("profiles: %v %v", res, err)
			}
			res.Body.Close()
		}},
		{flag: "smtp-url", set: func(t *testing.T, _ storage) (string, []string, []string) {
			mail = newMailServer(t)
			return "smtp://" + mail.Addr().String(), nil, nil
		}, check: func(t *testing.T, s *flagServer) { checkMailServerReached(t, s, mail) }},
	}
	if os.Getenv(testdb.EnvPostgres) != "" {
		rows = append(rows, flagRow{flag: "db", set: func(t *testing.T, st storage) (string, []string, []string) {
			return st.db, []string{"db"}, nil
		}, check: func(t *testing.T, s *flagServer) {
			if !strings.Contains(s.stdout.String(), "postgres database") {
				t.Fatalf("serve says:\n%s", s.stdout.String())
			}
			wantOK(t, "the account made in PostgreSQL")(s.call(t, s.key, "action", "get_projects"))
		}})
	}
	return rows
}
