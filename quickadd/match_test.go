package quickadd

import (
	"errors"
	"strings"
	"testing"
)

func member(first, last, email string) Person {
	return Person{Email: email, Name: strings.TrimSpace(first + " " + last)}
}

var team = []Person{
	member("Dana", "Scully", "dana@x.com"),
	member("Danny", "Ocean", "danny@x.com"),
	member("Fox", "Mulder", "fox.mulder@x.com"),
	member("", "", "walter@x.com"),
	member("Eve", "Fox", "eve@y.org"),
	member("Dan", "Brown", "db@z.net"),
}

func TestMatchPerson(t *testing.T) {
	for _, c := range []struct{ word, email string }{
		{"dana", "dana@x.com"},   // e-mail name exact
		{"dan", "db@z.net"},      // a name word exact, though "dana" and "danny" start with it
		{"DANA", "dana@x.com"},   // letter case aside
		{"scully", "dana@x.com"}, // a word of the name
		{"mul", "fox.mulder@x.com"},
		{"fox.m", "fox.mulder@x.com"},
		{"walt", "walter@x.com"}, // no name: the e-mail
		{"dann", "danny@x.com"},
		{"eve@y.org", "eve@y.org"},
		{"oce", "danny@x.com"},
	} {
		m, err := MatchPerson(c.word, team)
		if err != nil || m.Email != c.email {
			t.Errorf("MatchPerson(%q) = %q, %v; want %q", c.word, m.Email, err, c.email)
		}
	}
	for _, c := range []struct{ word, says string }{
		{"fox", "could be Fox Mulder (fox.mulder@x.com), Eve Fox (eve@y.org)"}, // a name word of two people
		{"d", "could be"},
		{"zed", "is nobody in this account"},
		{"x.com", "is nobody"},
	} {
		_, err := MatchPerson(c.word, team)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, c.says) {
			t.Errorf("MatchPerson(%q) = %v, want an error saying %q", c.word, err, c.says)
		}
	}
}

func TestMatchTag(t *testing.T) {
	stage, kind := "Stage", "Kind"
	tags := []Tag{{ID: 1, Title: "Design", Group: kind}, {ID: 2, Title: "In review", Group: stage},
		{ID: 3, Title: "Bug", Group: kind}, {ID: 4, Title: "bug", Group: stage}}
	for _, c := range []struct {
		word string
		id   int64
	}{{"design", 1}, {"DESIGN", 1}, {"in-review", 2}, {"in_review", 2}} {
		tag, err := MatchTag(c.word, tags)
		if err != nil || tag.ID != c.id {
			t.Errorf("MatchTag(%q) = %d, %v; want %d", c.word, tag.ID, err, c.id)
		}
	}
	for _, c := range []struct{ word, says string }{
		{"des", "is no tag"}, {"inreview", "is no tag"}, {"bug", "several groups (Kind, Stage)"},
	} {
		_, err := MatchTag(c.word, tags)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, c.says) {
			t.Errorf("MatchTag(%q) = %v, want an error saying %q", c.word, err, c.says)
		}
	}
}
