package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// env reads the process environment; tests pass their own.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

const usage = `taskd — a work-management service: projects, tasks, comments, an account API,
OAuth 2.0 and webhooks.

Usage:
  taskd serve            run the server
  taskd migrate          apply database migrations and exit
  taskd account create   create an account and its owner; prints its API key
  taskd user add         add a person to an account
  taskd apikey rotate    replace an account's administrative API key
  taskd client create    register an OAuth application in an account
  taskd listen           receive webhooks and print them (for trying webhooks)
  taskd signing-key rotate
                         add a new access-token signing key

Run "taskd COMMAND --help" for a command's flags. Every flag can also be set
with the environment variable TASKD_<FLAG>, e.g. TASKD_DB for --db.
`

// run is the whole program: it parses args, runs one command and returns its error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("a command is required")
	}
	cmd, rest := args[0], args[1:]
	if len(rest) > 0 && (cmd == "account" || cmd == "user" || cmd == "apikey" || cmd == "client" || cmd == "signing-key") {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, e, rest)
	case "migrate":
		return migrate(ctx, e, rest)
	case "account create":
		return accountCreate(ctx, e, rest)
	case "user add":
		return userAdd(ctx, e, rest)
	case "apikey rotate":
		return apikeyRotate(ctx, e, rest)
	case "client create":
		return clientCreate(ctx, e, rest)
	case "listen":
		return listen(ctx, e, rest)
	case "signing-key rotate":
		return signingKeyRotate(ctx, e, rest)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", strings.Join(args[:min(2, len(args))], " "))
}

// errHelp reports that --help was asked for and printed.
var errHelp = errors.New("help printed")

// parseFlags parses args after filling each flag from TASKD_<NAME> in the
// environment; the command line wins. --help prints to stdout.
func parseFlags(fs *flag.FlagSet, e env, args []string) error {
	fs.SetOutput(e.stderr)
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := "TASKD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := e.getenv(name); v != "" {
			if err := f.Value.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s: %w", name, err)
			}
		}
	})
	if envErr != nil {
		return envErr
	}
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return errHelp
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// newFlags makes a flag set whose usage names the command.
func newFlags(name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: taskd %s [flags]\n\n%s\n\nFlags (each also read from TASKD_<FLAG>):\n", name, summary)
		fs.PrintDefaults()
	}
	return fs
}

// printJSON writes v as one JSON line.
func printJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
