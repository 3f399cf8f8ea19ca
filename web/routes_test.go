package web

import (
	"flag"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/taskd/taskd/mail"
)

var update = flag.Bool("update", false, "rewrite testdata/routes.golden")

// A path value is named for the object it picks, one lowercase word
// without "id": {slug} (the account), {project}, {task}, {comment} ….
var (
	pathValueRE = regexp.MustCompile(`\{([^}]*)\}`)
	nounRE      = regexp.MustCompile(`^[a-z]+$`)
)

// patternList is a mux that only lists the patterns registered on it.
type patternList []string

func (l *patternList) Handle(pattern string, _ http.Handler) { *l = append(*l, pattern) }

// liveOn and hooksOn only turn on the pages of live streams and of
// webhooks; listing the routes never calls them.
type (
	liveOn  struct{ LiveStore }
	hooksOn struct{ WebhookService }
)

// TestRoutesGolden lists every method and pattern Mount registers, with
// every optional part on (live streams, the webhook pages, the mail of
// --dev), sorted, and compares the list with testdata/routes.golden byte
// for byte: moving routes between files keeps every address. Run with
// -update to accept a deliberate change.
func TestRoutesGolden(t *testing.T) {
	s, err := New(Config{Live: liveOn{}, Hooks: hooksOn{}, ShowMail: true, Outbox: &mail.Outbox{}})
	if err != nil {
		t.Fatal(err)
	}
	var got patternList
	s.mount(&got)
	slices.Sort(got)
	if dup := slices.Compact(slices.Clone(got)); len(dup) != len(got) {
		t.Errorf("a pattern is registered twice: %d patterns, %d distinct", len(got), len(dup))
	}
	for _, p := range got {
		for _, m := range pathValueRE.FindAllStringSubmatch(p, -1) {
			if name := m[1]; name != "$" && (strings.HasSuffix(name, "id") || !nounRE.MatchString(name)) {
				t.Errorf("%s: the path value {%s} is not named for what it picks ({project}, {task} …)", p, name)
			}
		}
	}
	text := strings.Join(got, "\n") + "\n"
	const golden = "testdata/routes.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./web -run TestRoutesGolden -update to write it)", err)
	}
	if text != string(want) {
		t.Errorf("the routes differ from %s (-update to accept):\n%s", golden, lineDiff(string(want), text))
	}
}

// lineDiff names the lines only want has (-) and only got has (+).
func lineDiff(want, got string) string {
	in := func(text string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var out strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			out.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			out.WriteString("+ " + l + "\n")
		}
	}
	return out.String()
}
