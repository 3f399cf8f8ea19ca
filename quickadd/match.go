package quickadd

import "strings"

// Person is a member as MatchPerson reads them: the e-mail and the name
// ("" when the member has none).
type Person struct{ Email, Name string }

// Tag is a tag as MatchTag reads them: its id, title and group's title.
type Tag struct {
	ID           int64
	Title, Group string
}

func (p Person) shown() string {
	if p.Name == "" {
		return p.Email
	}
	return p.Name + " (" + p.Email + ")"
}

// MatchPerson finds the member "@word" names: the one whose e-mail is the
// word, else whose e-mail's name (before "@") or a word of whose name is
// exactly the word, else whose e-mail or a word of whose name starts with
// it, letter case aside. No match, or more than one at the first level
// that has any, is refused with a message naming them.
func MatchPerson(word string, people []Person) (Person, error) {
	w := strings.ToLower(word)
	levels := []func(email, local string, names []string) bool{
		func(email, _ string, _ []string) bool { return email == w },
		func(_, local string, names []string) bool { return local == w || contains(names, w) },
		func(email string, _ string, names []string) bool {
			return strings.HasPrefix(email, w) || anyPrefix(names, w)
		},
	}
	for _, at := range levels {
		var found []Person
		for _, m := range people {
			email := strings.ToLower(m.Email)
			local, _, _ := strings.Cut(email, "@")
			if at(email, local, strings.Fields(strings.ToLower(m.Name))) {
				found = append(found, m)
			}
		}
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			names := make([]string, 0, 3)
			for _, m := range found[:min(3, len(found))] {
				names = append(names, m.shown())
			}
			more := ""
			if len(found) > 3 {
				more = " and others"
			}
			return Person{}, refuse("@%s could be %s%s: type more of the name or e-mail", word, strings.Join(names, ", "), more)
		}
	}
	return Person{}, refuse("@%s is nobody in this account: type the start of a member's name or e-mail", word)
}

func contains(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

func anyPrefix(words []string, w string) bool {
	for _, x := range words {
		if strings.HasPrefix(x, w) {
			return true
		}
	}
	return false
}

// MatchTag finds the tag "#word" names among the account's tags of tasks:
// the one whose title is the word, letter case aside, with "-" or "_"
// in the word standing for a space of the title. No such tag, or one in
// each of several groups, is refused with a message.
func MatchTag(word string, tags []Tag) (Tag, error) {
	w := strings.ToLower(word)
	var found []Tag
	for _, t := range tags {
		title := strings.ToLower(t.Title)
		if title == w || strings.ReplaceAll(title, " ", "-") == w || strings.ReplaceAll(title, " ", "_") == w {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return Tag{}, refuse("#%s is no tag of this account: add it on the tags page first", word)
	case 1:
		return found[0], nil
	}
	groups := make([]string, len(found))
	for i, t := range found {
		groups[i] = t.Group
	}
	return Tag{}, refuse("#%s is a tag in several groups (%s): set it on the task's page", word, strings.Join(groups, ", "))
}
