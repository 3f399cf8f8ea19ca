package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// runCLI runs taskd with args and returns what it printed and its error.
func runCLI(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, noEnv, &out, &errOut)
	return out.String(), errOut.String(), err
}

// commandFlags are the flags each command takes: those it uses, and no
// other.
var commandFlags = map[string][]string{
	"serve": {"addr", "api-rate-limit", "api-rate-limit-address", "data", "db", "debug-addr", "demo", "demo-webhook-url", "dev",
		"live-streams", "live-streams-per-person", "log-format", "log-level", "mail-address-changes-per-day", "mail-from", "mail-invitations-per-day",
		"mail-invitations-per-hour", "mail-per-recipient-per-day", "master-key", "max-account-files-mb", "max-file-mb",
		"old-master-keys", "public-url", "shutdown-timeout", "smtp-url", "strict-oauth", "tls-cert", "tls-key",
		"token-rate-limit", "token-rate-limit-address", "trust-proxy", "uploads-per-account", "uploads-per-person",
		"webhook-allow-private", "webhook-lease", "webhook-workers"},
	"migrate":            {"data", "db"},
	"account create":     {"data", "db", "master-key", "name", "owner-email", "owner-first-name", "owner-last-name", "owner-password", "public-url", "slug"},
	"user add":           {"account", "data", "db", "email", "first-name", "last-name", "password", "role"},
	"apikey rotate":      {"account", "data", "db", "master-key"},
	"client create":      {"account", "data", "db", "name", "redirect-uri"},
	"signing-key rotate": {"data", "db", "master-key", "old-master-keys"},
	"master-key new":     nil,
	"master-key reseal":  {"data", "db", "master-key", "old-master-keys"},
	"backup":             {"data", "db", "to"},
	"restore":            {"data", "db", "from"},
	"import":             {"account", "admins", "concurrency", "data", "db", "dry-run", "from", "invite", "json", "key", "key-file", "mail-from", "master-key", "max-answer", "only", "owner-email", "public-url"},
	"listen":             {"addr", "secret"},
	"version":            {"json"},
}

// helpFlagRE is a flag's line in a command's help.
var helpFlagRE = regexp.MustCompile(`(?m)^  --([a-z-]+)( \S+)?$`)

// TestHelpForEveryCommand: "taskd help NAME" and "taskd NAME --help" print
// the command's usage to stdout and succeed, for every command: a
// sentence of what it does, and exactly its own flags, each as --flag.
func TestHelpForEveryCommand(t *testing.T) {
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		want, ok := commandFlags[c.name]
		if !ok {
			t.Errorf("taskd %s: no row in commandFlags", c.name)
		}
		words := strings.Fields(c.name)
		for _, args := range [][]string{append([]string{"help"}, words...), append(words, "--help"), append(words, "-h")} {
			out, errOut, err := runCLI(args...)
			usage := "Usage: taskd " + c.name + " [flags]\n\n"
			if len(want) == 0 {
				usage = "Usage: taskd " + c.name + "\n\n"
			}
			if err != nil || !strings.HasPrefix(out, usage) || errOut != "" {
				t.Errorf("taskd %s: %v, printed %q (stderr %q)", strings.Join(args, " "), err, out, errOut)
				continue
			}
			// A sentence of what it does, then its flags.
			what, flags, _ := strings.Cut(strings.TrimPrefix(out, usage), "\n\n")
			if !strings.HasSuffix(what, ".") || len(what) < 30 {
				t.Errorf("taskd %s: %q does not say what the command does", strings.Join(args, " "), what)
			}
			var got []string
			for _, m := range helpFlagRE.FindAllStringSubmatch(flags, -1) {
				got = append(got, m[1])
			}
			if !slices.Equal(got, want) {
				t.Errorf("taskd %s lists the flags %v, want %v:\n%s", strings.Join(args, " "), got, want, out)
			}
			if len(want) == 0 && flags != "It takes no flags.\n" {
				t.Errorf("taskd %s: %q; want it to say it takes no flags", strings.Join(args, " "), flags)
			}
			if single := regexp.MustCompile(`(^|[\s(])-[a-z]`).FindString(out); single != "" {
				t.Errorf("taskd %s names a flag with one dash (%q):\n%s", strings.Join(args, " "), single, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if len([]rune(line)) > 80 {
					t.Errorf("taskd %s: a line longer than 80 columns: %q", strings.Join(args, " "), line)
				}
			}
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		if out, _, err := runCLI(args...); err != nil || !strings.Contains(out, "taskd backup") || !strings.Contains(out, "taskd version") {
			t.Errorf("taskd %s: %v %q", args, err, out)
		}
	}
	// A group lists its commands.
	for _, args := range [][]string{{"help", "client"}, {"client", "--help"}, {"account", "-h"}} {
		if out, _, err := runCLI(args...); err != nil || !strings.Contains(out, "Commands of taskd "+args[0]) && !strings.Contains(out, "Commands of taskd "+args[1]) {
			t.Errorf("taskd %s: %v %q", args, err, out)
		}
	}
}

// TestCommandLineMistakes: a typo gets a "did you mean", a bad flag its
// error once with a short usage line, a missing flag its name.
func TestCommandLineMistakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sevre"}, `unknown command "sevre"; did you mean "serve"?`},
		{[]string{"clinet", "create"}, `unknown command "clinet create"; did you mean "client create"?`},
		{[]string{"account", "craete"}, `unknown command "account craete"; did you mean "account create"?`},
		{[]string{"acount"}, `unknown command "acount"; did you mean "account"?`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" (taskd help lists the commands)`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"account"}, `"account" needs a subcommand: create`},
		{[]string{"user", "add", "--emial", "a@example.com"}, "unknown flag --emial; did you mean --email?"},
		{[]string{"client", "create", "--account", "acme", "--name", "App"}, "--redirect-uri is required: exact HTTPS redirect URI"},
		{[]string{"account", "create", "--slug", "acme"}, "--owner-email is required: owner's e-mail address"},
		{[]string{"backup"}, "--to is required"},
		{[]string{"restore"}, "--from is required"},
		{[]string{"migrate", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--shutdown-timeout", "soon"}, `invalid value "soon" for --shutdown-timeout: parse error`},
		{[]string{"serve", "--dev=maybe"}, `invalid boolean value "maybe" for --dev`},
		{[]string{"listen", "--addr"}, "--addr needs a value"},
		// A flag of serve's is not another command's.
		{[]string{"backup", "--to", "x.db", "--public-url", "https://x.example"}, "unknown flag --public-url"},
		{[]string{"user", "add", "--master-key", "k"}, "unknown flag --master-key"},
		{[]string{"master-key", "new", "--to", "x"}, "unknown flag --to; taskd master-key new takes no flags"},
	} {
		out, errOut, err := runCLI(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || out != "" || errOut != "" {
			t.Errorf("taskd %s: %v (stdout %q, stderr %q); want an error containing %q and nothing printed",
				strings.Join(tc.args, " "), err, out, errOut, tc.want)
			continue
		}
		if strings.Contains(tc.want, "flag") || strings.Contains(tc.want, "required") || strings.Contains(tc.want, "argument") {
			// Once, with a short usage line, not every flag.
			if n := strings.Count(err.Error(), "usage: taskd "); n != 1 || strings.Contains(err.Error(), "-data") {
				t.Errorf("taskd %s: error %q should carry one short usage line", strings.Join(tc.args, " "), err)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, err := runCLI("version")
	if err != nil || !strings.HasPrefix(out, "taskd ") || !strings.Contains(out, "(commit ") || !strings.Contains(out, "built with go") {
		t.Fatalf("taskd version: %v %q", err, out)
	}
	out, _, err = runCLI("version", "--json")
	if err != nil || !strings.Contains(out, `"version":`) || !strings.Contains(out, `"commit":`) || !strings.Contains(out, `"go":"go`) {
		t.Fatalf("taskd version --json: %v %q", err, out)
	}
}
