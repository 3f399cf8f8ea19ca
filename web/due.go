package web

import (
	"strconv"
	"time"

	"github.com/taskd/taskd"
)

// dueCue is how near an open task's due date is, in words, from the
// viewer's today: the list, the board and My tasks show it beside the date.
type dueCue struct {
	Text  string // "today", "tomorrow", "in 3 days", "overdue by 2 days"; empty when far or done
	Class string // "overdue", "soon" (today or tomorrow), or empty
}

// cueFarDays is the farthest due date that still gets a cue.
const cueFarDays = 13

// newDueCue places dateEnd (taskd.DateLayout) against today, a date at
// midnight UTC as view.Today gives it. A done task, no date or one that
// does not parse have no cue.
func newDueCue(today time.Time, dateEnd string, status string) dueCue {
	due, err := time.Parse(taskd.DateLayout, dateEnd)
	if err != nil || status == taskd.StatusDone || today.IsZero() {
		return dueCue{}
	}
	days := int(due.Sub(today).Hours() / 24)
	switch {
	case days < 0:
		return dueCue{Text: "overdue by " + plural(-days, "day"), Class: "overdue"}
	case days == 0:
		return dueCue{Text: "today", Class: "soon"}
	case days == 1:
		return dueCue{Text: "tomorrow", Class: "soon"}
	case days <= cueFarDays:
		return dueCue{Text: "in " + plural(days, "day")}
	}
	return dueCue{}
}

// plural is n and the noun, with an s unless n is one.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Today is the viewer's date at midnight UTC (the form due dates are
// compared in), or zero outside an account's pages.
func (v *view) Today() time.Time {
	if v.Nav == nil {
		return time.Time{}
	}
	y, m, d := v.Nav.Now.In(v.Zone()).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
