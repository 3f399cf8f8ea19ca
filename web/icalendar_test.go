package web

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestICalText escapes TEXT values as RFC 5545 §3.3.11 says.
func TestICalText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"plain", "Write copy", "Write copy"},
		{"comma and semicolon", "a, b; c", `a\, b\; c`},
		{"backslash", `C:\dir`, `C:\\dir`},
		{"line breaks", "one\r\ntwo\nthree\rfour", `one\ntwo\nthree\nfour`},
		{"controls left out", "a\x00b\x1bc\x7fd\te", "abcd\te"},
		{"colon stays", "Due: Fri", "Due: Fri"},
	} {
		if got := icalText(c.in); got != c.want {
			t.Errorf("%s: icalText(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// TestICalFolding folds lines at 75 octets without splitting a UTF-8
// sequence, and unfolding gives the line back (§3.1).
func TestICalFolding(t *testing.T) {
	t.Parallel()
	for _, value := range []string{
		strings.Repeat("a", 200),
		strings.Repeat("ё", 100), // 2 octets each
		strings.Repeat("界", 77),  // 3 octets each
		strings.Repeat("a😀", 40), // 4-octet runes at odd offsets
		strings.Repeat("x", 75-len("SUMMARY:")),
		strings.Repeat("x", 76-len("SUMMARY:")),
	} {
		var w icalWriter
		w.line("SUMMARY", value)
		out := w.b.String()
		if !strings.HasSuffix(out, "\r\n") {
			t.Fatalf("no CRLF at the end of %q", out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
		for i, l := range lines {
			if len(l) > 75 {
				t.Errorf("line %d is %d octets", i, len(l))
			}
			if !utf8.ValidString(l) {
				t.Errorf("line %d splits a character: %q", i, l)
			}
			if i > 0 && !strings.HasPrefix(l, " ") {
				t.Errorf("continuation line %d does not start with a space", i)
			}
		}
		if got := strings.ReplaceAll(strings.TrimSuffix(out, "\r\n"), "\r\n ", ""); got != "SUMMARY:"+value {
			t.Errorf("unfolded %q, want %q", got, "SUMMARY:"+value)
		}
		if len("SUMMARY:"+value) <= 75 && len(lines) != 1 {
			t.Errorf("a line of %d octets was folded", len("SUMMARY:"+value))
		}
	}
}

// TestFeedSecret reads only what can be a secret from the feed's path.
func TestFeedSecret(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("aZ0-_", 8) + "abc"
	if tok, ok := feedSecret(good + ".ics"); !ok || tok != good {
		t.Fatalf("feedSecret(%q) = %q, %v", good+".ics", tok, ok)
	}
	for _, bad := range []string{"", ".ics", good, good + ".ICS", good + "a.ics", good[1:] + ".ics", strings.Repeat("a", 42) + "=.ics",
		strings.Repeat("a", 42) + "/.ics", strings.Repeat("é", 21) + "a.ics", strings.Repeat("a", 42) + "%.ics", good + ".ics.ics"} {
		if _, ok := feedSecret(bad); ok {
			t.Errorf("feedSecret(%q) took it", bad)
		}
	}
}
