package web

import (
	"net/url"
	"strings"
	"testing"
)

// hostileNext are "next" targets that a browser, reading them by the WHATWG
// URL Standard, would resolve to another origin or a script.
var hostileNext = []string{
	"//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "/\\/evil.example",
	"/\t/evil.example", "/\n/evil.example", "/\r\n/evil.example", "/\r/evil.example", "\t//evil.example",
	" //evil.example", "/\x0b/evil.example", "/\x00/evil.example", "/\x7f/evil.example",
	"https://evil.example", "http:evil.example", "HTTPS://evil.example/", "javascript:alert(1)",
	"data:text/html,x", "evil.example", "@evil.example", "//user@evil.example",
	strings.Repeat("/a", 2001),
}

// whatwgHost resolves target against base the way a browser does for a
// Location header (tab and newline removal, C0 and space trimming, "\" read
// as "/"), and returns the host it lands on.
func whatwgHost(base, target string) string {
	target = strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return -1
		case '\\':
			return '/'
		}
		return r
	}, target)
	target = strings.TrimFunc(target, func(r rune) bool { return r <= ' ' })
	b, _ := url.Parse(base)
	u, err := b.Parse(target)
	if err != nil {
		return "unparsable"
	}
	return u.Host
}

func TestLocalPathStaysOnTheServer(t *testing.T) {
	t.Parallel()
	const base = "https://taskd.example/login"
	for _, next := range hostileNext {
		got := localPath(next)
		if got != "/" {
			t.Errorf("localPath(%q) = %q, want /", next, got)
		}
	}
	for _, tc := range []struct{ next, want string }{
		{"/a/acme/project/1/", "/a/acme/project/1/"},
		{"/oauth2/authorize?client_id=x&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=a+b", "/oauth2/authorize?client_id=x&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&state=a+b"},
		{"/a/acme/project/1/2/#com3", "/a/acme/project/1/2/#com3"},
		{"/%2F/evil.example", "/"},                     // decodes to a leading "//": refused to be safe
		{"/%09/evil.example", "/%09/evil.example"},     // an encoded tab is not removed
		{"/%5Cevil.example", "/%5Cevil.example"},       // an encoded backslash is not read as "/"
		{"/a b/ü", "/a%20b/%C3%BC"},                    // re-serialised from its parsed form
		{"/./..//evil.example", "/./..//evil.example"}, // a path on this host, however it resolves
	} {
		got := localPath(tc.next)
		if got != tc.want {
			t.Errorf("localPath(%q) = %q, want %q", tc.next, got, tc.want)
		}
		if h := whatwgHost(base, got); h != "taskd.example" {
			t.Errorf("localPath(%q) = %q lands on %q", tc.next, got, h)
		}
	}
}

// FuzzLocalPath: whatever next holds, the browser stays on the server.
func FuzzLocalPath(f *testing.F) {
	for _, s := range hostileNext {
		f.Add(s)
	}
	f.Add("/a/acme/?x=1#y")
	f.Fuzz(func(t *testing.T, next string) {
		got := localPath(next)
		if h := whatwgHost("https://taskd.example/login", got); h != "taskd.example" {
			t.Fatalf("localPath(%q) = %q lands on %q", next, got, h)
		}
	})
}
