package main

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
)

// form is an HTML form as a browser would submit it.
type form struct {
	Method, Action string
	Fields         url.Values
	Buttons        []url.Values // the name/value of each submit button
}

var (
	formRE  = regexp.MustCompile(`(?s)<form\b([^>]*)>(.*?)</form>`)
	inputRE = regexp.MustCompile(`<(input|button)\b([^>]*)>`)
	attrRE  = regexp.MustCompile(`([a-zA-Z-]+)="([^"]*)"`)
)

func attrs(s string) map[string]string {
	m := map[string]string{}
	for _, a := range attrRE.FindAllStringSubmatch(s, -1) {
		m[strings.ToLower(a[1])] = html.UnescapeString(a[2])
	}
	return m
}

// forms parses the forms of a page.
func forms(page string) []form {
	var out []form
	for _, f := range formRE.FindAllStringSubmatch(page, -1) {
		fa := attrs(f[1])
		fm := form{Method: strings.ToUpper(fa["method"]), Action: fa["action"], Fields: url.Values{}}
		if fm.Method == "" {
			fm.Method = "GET"
		}
		for _, in := range inputRE.FindAllStringSubmatch(f[2], -1) {
			a := attrs(in[2])
			switch {
			case in[1] == "button" || a["type"] == "submit":
				if a["name"] != "" {
					fm.Buttons = append(fm.Buttons, url.Values{a["name"]: {a["value"]}})
				}
			case a["name"] != "":
				fm.Fields.Add(a["name"], a["value"])
			}
		}
		out = append(out, fm)
	}
	return out
}

// formWith returns the first form of the page whose fields hold name=value
// (any value when value is empty).
func formWith(page, name, value string) (form, error) {
	for _, f := range forms(page) {
		if v, ok := f.Fields[name]; ok && (value == "" || (len(v) > 0 && v[0] == value)) {
			return f, nil
		}
	}
	return form{}, fmt.Errorf("no form with %s=%q on the page", name, value)
}
