package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// env reads the process environment; tests pass their own.
type env struct {
	getenv func(string) string
	stdin  io.Reader // taskd import --key - reads the key from it
	stdout io.Writer
	stderr io.Writer
}

// command is one of taskd's commands: a word, or a group and a word
// ("account create").
type command struct {
	name    string
	summary string
	run     func(context.Context, env, []string) error
}

// commands lists every command in the order the usage shows them.
func commands() []command {
	return []command{
		{"serve", "run the server", serve},
		{"migrate", "apply database migrations and exit", migrate},
		{"account create", "create an account and its owner; prints its API key", accountCreate},
		{"user add", "add a person to an account", userAdd},
		{"apikey rotate", "replace an account's administrative API key", apikeyRotate},
		{"client create", "register an OAuth application in an account", clientCreate},
		{"signing-key rotate", "add a new access-token signing key", signingKeyRotate},
		{"master-key new", "print a new random master key, to start a rotation", masterKeyNew},
		{"master-key reseal", "seal every stored secret again with the current master key", masterKeyReseal},
		{"backup", "copy the SQLite database to a file while the server runs", backup},
		{"restore", "put a backup in place of the SQLite database (server stopped)", restore},
		{"import", "copy an account from Worksection or another taskd into this one", importAccount},
		{"listen", "receive webhooks and print them (for trying webhooks)", listen},
		{"version", "print the version, commit and Go version", version},
		{"help", "print this help, or a command's: taskd help COMMAND", nil},
	}
}

// usage is the overview "taskd help" prints.
func usage() string {
	var b strings.Builder
	b.WriteString("taskd — a work-management service: projects, tasks, comments, an account API,\nOAuth 2.0 and webhooks.\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  taskd %-20s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun \"taskd help COMMAND\" or \"taskd COMMAND --help\" for what a command does and\nits flags. Every flag can also be set with the environment variable\nTASKD_<FLAG>, e.g. TASKD_DB for --db.\n")
	return b.String()
}

// run is the whole program with nothing on standard input: it parses
// args, runs one command and returns its error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return runWith(ctx, args, getenv, strings.NewReader(""), stdout, stderr)
}

// runWith is run reading standard input from stdin (main's os.Stdin).
func runWith(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return errors.New("a command is required")
	}
	if isHelp(args[0]) {
		if len(args) == 1 {
			fmt.Fprint(stdout, usage())
			return nil
		}
		c, rest, err := find(args[1:])
		if err != nil {
			return helpFor(e, args[1:], err)
		}
		switch {
		case c.run == nil:
			fmt.Fprint(stdout, usage())
			return nil
		case len(rest) > 0:
			return unknown(strings.Join(args[1:], " "), names(commands()))
		}
		return c.run(ctx, e, []string{"--help"})
	}
	c, rest, err := find(args)
	if err != nil {
		if len(args) > 1 && isHelp(args[1]) {
			return helpFor(e, args[:1], err)
		}
		return err
	}
	if c.run == nil {
		fmt.Fprint(stdout, usage())
		return nil
	}
	return c.run(ctx, e, rest)
}

// find returns the command args name, and the arguments after its name.
// For a group without its word, or a misspelt name, the error lists the
// choices or suggests the nearest name.
func find(args []string) (command, []string, error) {
	all := commands()
	for _, c := range all {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) {
			return c, args[len(words):], nil
		}
	}
	var inGroup []string
	for _, c := range all {
		if group, word, ok := strings.Cut(c.name, " "); ok && group == args[0] {
			inGroup = append(inGroup, word)
		}
	}
	if len(inGroup) > 0 {
		if len(args) == 1 || strings.HasPrefix(args[1], "-") {
			return command{}, nil, fmt.Errorf("%q needs a subcommand: %s (try \"taskd help %s\")", args[0],
				strings.Join(inGroup, ", "), args[0])
		}
		return command{}, nil, unknown(args[0]+" "+args[1], names(all))
	}
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		if near := nearest(args[0]+" "+args[1], names(all)); near != "" {
			return command{}, nil, unknown(args[0]+" "+args[1], []string{near})
		}
	}
	return command{}, nil, unknown(args[0], words(all))
}

// helpFor prints the help of a command group ("taskd help account"), or
// returns notGroup when args name none.
func helpFor(e env, args []string, notGroup error) error {
	var found bool
	for _, c := range commands() {
		if group, _, _ := strings.Cut(c.name, " "); group == args[0] && len(args) == 1 {
			if !found {
				fmt.Fprintf(e.stdout, "Commands of taskd %s:\n", args[0])
				found = true
			}
			fmt.Fprintf(e.stdout, "  taskd %-20s %s\n", c.name, c.summary)
		}
	}
	if found {
		fmt.Fprint(e.stdout, "\nRun \"taskd help COMMAND\" for a command's flags.\n")
		return nil
	}
	return notGroup
}

func names(cs []command) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// words are the commands' first words: what a one-word typo is near.
func words(cs []command) []string {
	var out []string
	for _, c := range cs {
		if w, _, _ := strings.Cut(c.name, " "); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

// unknown reports a name that is not one of known, suggesting the nearest
// when it is close enough to be a typo.
func unknown(name string, known []string) error {
	if near := nearest(name, known); near != "" {
		return fmt.Errorf("unknown command %q; did you mean %q? (taskd help lists the commands)", name, near)
	}
	return fmt.Errorf("unknown command %q (taskd help lists the commands)", name)
}

// nearest returns the name in known closest to s in edit distance, if it
// is within a third of its length (at least 1, at most 3 edits).
func nearest(s string, known []string) string {
	best, bestD := "", 0
	for _, k := range known {
		d := editDistance(s, k)
		if limit := min(3, max(1, len(k)/3)); d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (the names are ASCII), with transposition of neighbours counted as one.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// printJSON writes v as one JSON line.
func printJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
