package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The README's steps, run as printed: its shell blocks are read from
// README.md, so that a change to them changes what the tests run.

// readmeSteps are the shell commands of one section of README.md, in
// order; a command continued with a trailing backslash is one command.
type readmeSteps struct {
	text  string // the section, for what its prose prints
	cmds  []string
	ports *strings.Replacer
}

var (
	shellBlockRE = regexp.MustCompile("(?s)```sh\n(.*?)```")
	inlineCodeRE = regexp.MustCompile("`([^`\n]+)`")
)

// readmeSection returns the README's section under the heading (a whole
// line, such as "## Webhooks in a minute"), up to the next "## ".
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut("\n"+string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section
}

// readmeCommands returns the commands of the section under heading, with
// the README's addresses (127.0.0.1:8080 for serve, 127.0.0.1:9000 for
// listen) replaced by the test's as ports says.
func readmeCommands(t *testing.T, heading string, ports *strings.Replacer) *readmeSteps {
	t.Helper()
	s := &readmeSteps{text: readmeSection(t, heading), ports: ports}
	for _, m := range shellBlockRE.FindAllStringSubmatch(s.text, -1) {
		for _, line := range strings.Split(strings.TrimSuffix(strings.ReplaceAll(m[1], "\\\n", ""), "\n"), "\n") {
			s.cmds = append(s.cmds, ports.Replace(line))
		}
	}
	if len(s.cmds) == 0 {
		t.Fatalf("the README's %q has no shell commands", heading)
	}
	return s
}

// next returns the next command; the test fails unless it contains want
// (what the test expects that step to do).
func (s *readmeSteps) next(t *testing.T, want string) string {
	t.Helper()
	if len(s.cmds) == 0 {
		t.Fatalf("the README has no more commands; want one with %q", want)
	}
	cmd := s.cmds[0]
	s.cmds = s.cmds[1:]
	if !strings.Contains(cmd, want) {
		t.Fatalf("the README's next command is %q; want one with %q", cmd, want)
	}
	return cmd
}

// done fails the test if commands the test did not run are left.
func (s *readmeSteps) done(t *testing.T) {
	t.Helper()
	if len(s.cmds) > 0 {
		t.Fatalf("the README has commands this test does not run: %q", s.cmds)
	}
}

// inline returns the section's first inline code that starts with prefix
// (after the ports are replaced), such as a URL the reader opens.
func (s *readmeSteps) inline(t *testing.T, prefix string) string {
	t.Helper()
	for _, m := range inlineCodeRE.FindAllStringSubmatch(s.text, -1) {
		if code := s.ports.Replace(m[1]); strings.HasPrefix(code, prefix) {
			return code
		}
	}
	t.Fatalf("the README's section has no `%s…`", prefix)
	return ""
}

// fill replaces the placeholders the README prints (ID, whsec_…) with
// values: each pair's placeholder at its first place left, so a
// placeholder given twice fills two places in order. A placeholder that
// is a word is replaced only as a whole word. The test fails if one is
// missing.
func fill(t *testing.T, cmd string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		re := regexp.QuoteMeta(pairs[i])
		if regexp.MustCompile(`^\w+$`).MatchString(pairs[i]) {
			re = `\b` + re + `\b`
		}
		at := regexp.MustCompile(re).FindStringIndex(cmd)
		if at == nil {
			t.Fatalf("the README's command %q lacks the placeholder %s", cmd, pairs[i])
		}
		cmd = cmd[:at[0]] + pairs[i+1] + cmd[at[1]:]
	}
	return cmd
}

// taskdArgs are the arguments of a README line that runs taskd.
func taskdArgs(t *testing.T, cmd string) []string {
	t.Helper()
	rest, ok := strings.CutPrefix(cmd, "go run ./cmd/taskd ")
	if !ok || strings.ContainsAny(rest, `"'$;`) {
		t.Fatalf("%q is not a plain taskd command", cmd)
	}
	return strings.Fields(rest)
}

// terminal is a shell session, as a reader of the README types commands
// into: what one command sets (KEY, sign) the next uses. "go run
// ./cmd/taskd" runs this test binary as taskd (TestMain), on the test's
// data directory (TASKD_DATA).
type terminal struct {
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *syncBuffer
}

func newTerminal(t *testing.T, st storage) *terminal {
	t.Helper()
	cmd := exec.Command("sh")
	cmd.Env = append(os.Environ(), "TASKD_TEST_AS_TASKD=1", "TASKD_DATA="+st.data)
	term := &terminal{stderr: &syncBuffer{}}
	cmd.Stderr = term.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.in, term.out = in, bufio.NewReader(out)
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return term
}

// doneMark ends each command's output.
const doneMark = "__readme_command_done__"

// run types one command and returns what it printed to stdout.
func (term *terminal) run(t *testing.T, cmd string) string {
	t.Helper()
	self := "'" + strings.ReplaceAll(os.Args[0], "'", `'\''`) + "'"
	fmt.Fprintf(term.in, "%s\nprintf '\\n%s\\n'\n", strings.ReplaceAll(cmd, "go run ./cmd/taskd", self), doneMark)
	var out strings.Builder
	for {
		line, err := term.out.ReadString('\n')
		if err != nil {
			t.Fatalf("the shell ended during %q: %v\n%s", cmd, err, term.stderr)
		}
		if line == doneMark+"\n" {
			return strings.TrimSuffix(out.String(), "\n")
		}
		out.WriteString(line)
	}
}

// runJSON runs a command that prints one JSON object and decodes it.
func (term *terminal) runJSON(t *testing.T, cmd string) map[string]any {
	t.Helper()
	out := term.run(t, cmd)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%q printed %q, want a JSON object (stderr: %s)", cmd, out, term.stderr)
	}
	return v
}
