package testsite

import (
	"html"
	"net/url"
	"regexp"
	"testing"
)

var (
	inputRE    = regexp.MustCompile(`<input\b([^>]*)>`)
	attrRE     = regexp.MustCompile(`\b([a-z-]+)(?:="([^"]*)")?`)
	textareaRE = regexp.MustCompile(`(?s)<textarea\b[^>]*\bname="([^"]+)"[^>]*>(.*?)</textarea>`)
	selectRE   = regexp.MustCompile(`(?s)<select\b[^>]*\bname="([^"]+)"[^>]*>(.*?)</select>`)
	optionRE   = regexp.MustCompile(`<option\b([^>]*)>`)
)

// FormValues returns what a browser without JavaScript sends when the
// first form of p posting to action with a field named field is submitted
// as shown: its inputs' values (text, date, hidden …; check boxes and
// radio buttons only when checked), its text areas' text and its lists'
// selected options (else their first). It fails the test when p has no
// such form.
func (p Page) FormValues(t testing.TB, action, field string) url.Values {
	t.Helper()
	for _, m := range formRE.FindAllStringSubmatch(p.Body, -1) {
		if html.UnescapeString(m[1]) != action {
			continue
		}
		f := url.Values{}
		for _, in := range inputRE.FindAllStringSubmatch(m[2], -1) {
			a := attrs(in[1])
			switch a["type"] {
			case "submit", "button", "file", "reset":
				continue
			case "checkbox", "radio":
				if _, on := a["checked"]; !on {
					continue
				}
			}
			if name, ok := a["name"]; ok {
				f.Add(name, a["value"])
			}
		}
		for _, ta := range textareaRE.FindAllStringSubmatch(m[2], -1) {
			f.Add(html.UnescapeString(ta[1]), html.UnescapeString(ta[2]))
		}
		for _, sel := range selectRE.FindAllStringSubmatch(m[2], -1) {
			chosen, found := "", false
			for i, o := range optionRE.FindAllStringSubmatch(sel[2], -1) {
				a := attrs(o[1])
				if _, on := a["selected"]; (on && !found) || i == 0 {
					chosen, found = a["value"], on
				}
			}
			f.Add(html.UnescapeString(sel[1]), chosen)
		}
		if f.Has(field) {
			return f
		}
	}
	t.Fatalf("no form posting to %s with %s in page (HTTP %d):\n%s", action, field, p.Status, p.Body)
	return nil
}

// attrs reads a tag's attributes, unescaped; a bare attribute is "".
func attrs(s string) map[string]string {
	out := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(s, -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}
