package quickadd

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxLine is the longest line Parse reads, in bytes.
const MaxLine = 2000

// Line is a parsed line: the task's name and the shortcuts it held.
type Line struct {
	Name string
	// Assignee is the word after "@" ("" when none), to resolve with
	// MatchPerson.
	Assignee string
	// Priority is set by "!low", "!normal", "!high", "!urgent" or
	// "!1".."!10"; nil when the line names none.
	Priority *int
	// Due and Start are days (midnight UTC); zero when the line names
	// none.
	Due, Start time.Time
	// Tags are the words after "#", in order, to resolve with MatchTag.
	Tags []string
}

// Error is a line Parse refuses, with a message for the person who typed it.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func refuse(format string, args ...any) error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// The named priorities: the domain's priorities run from 0 to 10, 1 by
// default; 7 and above show as high.
var namedPriorities = map[string]int{"low": 0, "normal": 1, "high": 8, "urgent": 10}

// Parse reads a line typed into the one-line add field. today is the day
// (in the viewer's time zone, as midnight UTC) that relative dates count
// from. Words that are not shortcuts stay in the name, in order; a word
// starting with a backslash stays in the name without it.
func Parse(line string, today time.Time) (Line, error) {
	var l Line
	if len(line) > MaxLine {
		return l, refuse("The line is too long: at most %d bytes (as many letters without accents)", MaxLine)
	}
	if !utf8.ValidString(line) {
		return l, refuse("The line is not valid text")
	}
	words := strings.Fields(line)
	var name []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		lower := strings.ToLower(w)
		switch {
		case strings.HasPrefix(w, `\`) && len(w) > 1:
			name = append(name, w[1:])
		case len(w) > 1 && w[0] == '@':
			if l.Assignee != "" {
				return l, refuse("Only one assignee: %s and %s", "@"+l.Assignee, w)
			}
			l.Assignee = w[1:]
		case len(w) > 1 && w[0] == '#' && !allDigits(w[1:]):
			l.Tags = append(l.Tags, w[1:])
		case len(w) > 1 && w[0] == '!' && isPriority(lower[1:]):
			if l.Priority != nil {
				return l, refuse("Only one priority: %s is the second", w)
			}
			p := priority(lower[1:])
			l.Priority = &p
		case lower == "due" || lower == "start":
			day, used := readDate(words[i+1:], today)
			if used == 0 {
				name = append(name, w)
				continue
			}
			dst := &l.Due
			if lower == "start" {
				dst = &l.Start
			}
			if !dst.IsZero() {
				return l, refuse("Only one %s date: %q is the second", lower, strings.Join(words[i:i+1+used], " "))
			}
			*dst = day
			i += used
		default:
			name = append(name, w)
		}
	}
	l.Name = strings.Join(name, " ")
	if l.Name == "" {
		return l, refuse("The task needs a name besides its shortcuts")
	}
	return l, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isPriority(s string) bool {
	if _, ok := namedPriorities[s]; ok {
		return true
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 10 && s[0] != '0' && s[0] != '+'
}

func priority(s string) int {
	if p, ok := namedPriorities[s]; ok {
		return p
	}
	n, _ := strconv.Atoi(s)
	return n
}
