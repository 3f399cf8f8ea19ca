package web

import (
	"net/http"
	"net/url"
	"strings"
)

// see303 answers with a redirect to a page of this server (Post/Redirect/
// Get). Whatever to holds, the browser stays on this server: a target
// localPath does not accept becomes "/". Redirects to an OAuth client go
// through toClient instead.
func see303(w http.ResponseWriter, r *http.Request, to string) error {
	http.Redirect(w, r, localPath(to), http.StatusSeeOther)
	return nil
}

// toClient redirects to an OAuth client's redirect URI; uri must come from
// package oauth, which validated it against the client's registered URIs.
func toClient(w http.ResponseWriter, r *http.Request, uri string) error {
	http.Redirect(w, r, uri, http.StatusSeeOther)
	return nil
}

// localPath returns next when it is a path on this server, else "/".
// Browsers read URLs by the WHATWG URL Standard: they drop TAB, CR and LF
// anywhere in the string, strip leading and trailing C0 controls and spaces,
// and read "\" as "/" in http(s) URLs, so "/\t/evil.example" or
// "/\evil.example" would take the user to another origin. Any control
// character, backslash, scheme, host or leading "//" is refused, and what
// passes is re-serialised from its parsed form, so the Location header holds
// exactly what was checked.
func localPath(next string) string {
	if next == "" || next[0] != '/' || len(next) > 4000 {
		return "/"
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return "/"
	}
	out := u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		out += "#" + u.EscapedFragment()
	}
	if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") {
		return "/"
	}
	return out
}
