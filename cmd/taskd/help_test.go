package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLI runs taskd with args and returns what it printed and its error.
func runCLI(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, noEnv, &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestHelpForEveryCommand: "taskd help NAME" and "taskd NAME --help" print
// the command's usage to stdout and succeed, for every command.
func TestHelpForEveryCommand(t *testing.T) {
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		words := strings.Fields(c.name)
		for _, args := range [][]string{append([]string{"help"}, words...), append(words, "--help"), append(words, "-h")} {
			out, errOut, err := runCLI(args...)
			if err != nil || !strings.HasPrefix(out, "Usage: taskd "+c.name+" [flags]") || errOut != "" {
				t.Errorf("taskd %s: %v, printed %q (stderr %q)", strings.Join(args, " "), err, out, errOut)
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
		{[]string{"serve", "--shutdown-timeout", "soon"}, `invalid value "soon" for flag -shutdown-timeout`},
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
