package taskd_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/taskd/taskd"
)

// TestCleanFileName: the last element of any path, without what a header
// or a file system would read otherwise, bounded, never empty.
func TestCleanFileName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf":             "report.pdf",
		`C:\Users\me\report.pdf`: "report.pdf",
		"../../etc/passwd":       "passwd",
		`"quoted" name.txt`:      "quoted name.txt",
		"line\r\nbreak.txt":      "linebreak.txt",
		"  .hidden  ":            "hidden",
		"..":                     "file",
		"":                       "file",
		"/":                      "file",
		"spoof\u202etxt.exe":     "spooftxt.exe",
		"звіт.pdf":               "звіт.pdf",
		"bad\xffbyte.txt":        "badbyte.txt",
		strings.Repeat("é", 200): strings.Repeat("é", 127),
	} {
		if got := taskd.CleanFileName(in); got != want {
			t.Errorf("CleanFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCleanFileName: whatever comes in, the name is valid UTF-8, one path
// element of at most MaxFileName bytes, without quotes, backslashes or
// control characters, and cleaning it again changes nothing.
func FuzzCleanFileName(f *testing.F) {
	for _, s := range []string{"report.pdf", `a\b/c"d`, "..", "x\x00y", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name := taskd.CleanFileName(s)
		if name == "" || len(name) > taskd.MaxFileName || !utf8.ValidString(name) || strings.ContainsAny(name, `/\"`) ||
			strings.IndexFunc(name, unicode.IsControl) >= 0 || name == "." || name == ".." {
			t.Fatalf("CleanFileName(%q) = %q", s, name)
		}
		if again := taskd.CleanFileName(name); again != name {
			t.Fatalf("CleanFileName(%q) = %q, again %q", s, name, again)
		}
	})
}
