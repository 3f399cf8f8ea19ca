package web

import (
	"html/template"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// A timeline (timelinepages.go serves it) shows tasks as bars from their
// start to their due date on a table whose columns are days: a window of
// days at a scale, rows grouped by project or assignee. Bars are cells
// spanning their days (colspan), so the chart needs neither inline styles
// (the pages' Content-Security-Policy forbids them) nor JavaScript.

// The scales of a timeline: how many days its window holds, how far the
// earlier and later links move it, and what its header's columns are.
const (
	scaleDay   = "day"   // 4 weeks, a column header per day
	scaleWeek  = "week"  // 12 weeks, a column header per week
	scaleMonth = "month" // 6 months, a column header per month
)

// The groupings of a timeline's rows.
const (
	groupProject  = "project"
	groupAssignee = "assignee"
)

// timelineWindow is the days a timeline shows and how it was asked for.
type timelineWindow struct {
	Scale, Group string
	From         time.Time // the first day shown, midnight UTC
	Days         int       // how many days are shown
	Today        time.Time // the viewer's today
}

// readTimelineWindow reads ?scale=, ?from= and ?group= (defaults: week,
// around today, group); anything it cannot read falls back to the
// default, so that a link edited by hand still shows a timeline.
func readTimelineWindow(q url.Values, today time.Time, group string) timelineWindow {
	w := timelineWindow{Scale: q.Get("scale"), Group: q.Get("group"), Today: today}
	if w.Scale != scaleDay && w.Scale != scaleMonth {
		w.Scale = scaleWeek
	}
	if w.Group != groupProject && w.Group != groupAssignee {
		w.Group = group
	}
	from, err := time.Parse(taskd.DateLayout, q.Get("from"))
	if err != nil || from.Year() < 1900 || from.Year() > 2999 {
		from = w.defaultFrom()
	}
	w.From = w.align(from)
	w.Days = w.length(w.From)
	return w
}

// defaultFrom is where the window starts around today: a week before
// this week (day), two weeks before it (week), or the month before
// (month).
func (w timelineWindow) defaultFrom() time.Time {
	switch w.Scale {
	case scaleDay:
		return mondayOf(w.Today).AddDate(0, 0, -7)
	case scaleMonth:
		return firstOfMonth(w.Today).AddDate(0, -1, 0)
	}
	return mondayOf(w.Today).AddDate(0, 0, -14)
}

// align moves a first day to the start of its week or month.
func (w timelineWindow) align(d time.Time) time.Time {
	if w.Scale == scaleMonth {
		return firstOfMonth(d)
	}
	return mondayOf(d)
}

func (w timelineWindow) length(from time.Time) int {
	switch w.Scale {
	case scaleDay:
		return 28
	case scaleMonth:
		return daysBetween(from, from.AddDate(0, 6, 0))
	}
	return 84
}

// shift is the window moved n steps later (earlier when negative): two
// weeks, four weeks or three months a step.
func (w timelineWindow) shift(n int) time.Time {
	switch w.Scale {
	case scaleDay:
		return w.From.AddDate(0, 0, 14*n)
	case scaleMonth:
		return w.From.AddDate(0, 3*n, 0)
	}
	return w.From.AddDate(0, 0, 28*n)
}

// Last is the window's last day.
func (w timelineWindow) Last() time.Time { return w.From.AddDate(0, 0, w.Days-1) }

// query is the window's query string with some of it changed: from ""
// leaves the window around today.
func (w timelineWindow) query(scale, group string, from time.Time) string {
	v := url.Values{}
	v.Set("scale", scale)
	v.Set("group", group)
	if !from.IsZero() {
		v.Set("from", from.Format(taskd.DateLayout))
	}
	return "?" + v.Encode()
}

// Here is the window's own query string, for the forms that come back to
// it.
func (w timelineWindow) Here() string { return w.query(w.Scale, w.Group, w.From) }

// timelineLink is a link of the timeline's controls; Current marks the
// choice shown.
type timelineLink struct {
	Label, Query string
	Current      bool
}

// Scales are the links to the other scales, keeping the grouping and
// starting near the window's start.
func (w timelineWindow) Scales() []timelineLink {
	var out []timelineLink
	for _, s := range []struct{ name, label string }{{scaleDay, "Days"}, {scaleWeek, "Weeks"}, {scaleMonth, "Months"}} {
		out = append(out, timelineLink{Label: s.label, Query: w.query(s.name, w.Group, time.Time{}), Current: s.name == w.Scale})
	}
	return out
}

// Groups are the links to the groupings.
func (w timelineWindow) Groups() []timelineLink {
	var out []timelineLink
	for _, g := range []struct{ name, label string }{{groupProject, "Project"}, {groupAssignee, "Assignee"}} {
		out = append(out, timelineLink{Label: g.label, Query: w.query(w.Scale, g.name, w.From), Current: g.name == w.Group})
	}
	return out
}

// Earlier, Later and Now move the window.
func (w timelineWindow) Earlier() string { return w.query(w.Scale, w.Group, w.shift(-1)) }
func (w timelineWindow) Later() string   { return w.query(w.Scale, w.Group, w.shift(1)) }
func (w timelineWindow) Now() string     { return w.query(w.Scale, w.Group, time.Time{}) }

// Span says the window's days in words: "16 Nov 2026 to 7 Feb 2027".
func (w timelineWindow) Span() string { return dateText(w.From) + " to " + dateText(w.Last()) }

// TodayCol is today's column (from 0), or -1 when today is not shown.
func (w timelineWindow) TodayCol() int {
	d := daysBetween(w.From, w.Today)
	if d < 0 || d >= w.Days {
		return -1
	}
	return d
}

// Cols are the window's columns, one a day (a table of fixed layout
// shares its width among them).
func (w timelineWindow) Cols() []struct{} { return make([]struct{}, w.Days) }

// timelineHead is a header cell over Span days.
type timelineHead struct {
	Span  int
	Label string
	Title string // the cell's whole date, for its tooltip
	// Class marks a weekend's day (tl-weekend), today (tl-now) or the
	// week or month that holds it (tl-current).
	Class string
}

// Upper is the header's first row: months (days and weeks) or years
// (months).
func (w timelineWindow) Upper() []timelineHead {
	var out []timelineHead
	for i := 0; i < w.Days; {
		d := w.From.AddDate(0, 0, i)
		var next time.Time
		label := d.Format("January 2006")
		if w.Scale == scaleMonth {
			next, label = time.Date(d.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC), d.Format("2006")
		} else {
			next = firstOfMonth(d).AddDate(0, 1, 0)
		}
		n := min(daysBetween(d, next), w.Days-i)
		if n < 5 && w.Scale != scaleMonth {
			label = d.Format("Jan")
		}
		out = append(out, timelineHead{Span: n, Label: label, Title: label})
		i += n
	}
	return out
}

// Lower is the header's second row: each day's date (days), each week's
// Monday (weeks) or each month (months).
func (w timelineWindow) Lower() []timelineHead {
	var out []timelineHead
	today := w.TodayCol()
	for i := 0; i < w.Days; {
		d := w.From.AddDate(0, 0, i)
		h := timelineHead{Span: 1, Label: d.Format("2"), Title: d.Format("Mon 2 Jan 2006")}
		switch w.Scale {
		case scaleDay:
			if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
				h.Class = "tl-weekend"
			}
			if i == today {
				h.Class = "tl-now"
			}
		case scaleWeek:
			h = timelineHead{Span: min(7, w.Days-i), Label: d.Format("2 Jan"), Title: "Week of " + dateText(d)}
		default:
			h = timelineHead{Span: min(daysBetween(d, d.AddDate(0, 1, 0)), w.Days-i), Label: d.Format("Jan"), Title: d.Format("January 2006")}
		}
		if w.Scale != scaleDay && today >= i && today < i+h.Span {
			h.Class = "tl-current"
		}
		out = append(out, h)
		i += h.Span
	}
	return out
}

// timelineBar is a task's row on a timeline: where its bar lies (its
// cells), or its point, and how it is styled.
type timelineBar struct {
	taskRow
	// Cells are the row's cells after its name: empty days, today's
	// column, and the bar's.
	Cells []timelineCell
	// Point is a milestone (a due date alone): a point on its day.
	Point bool
	// ClipStart and ClipEnd mark a bar that runs past the window.
	ClipStart, ClipEnd bool
	Overdue, Done      bool
	// Dates say the task's dates in words, for the bar's name.
	Dates string
	// Other is the assignee (rows by project) or the project (rows by
	// assignee), shown under the name.
	Other string
	// Waits says the tasks on the chart this one depends on, in words
	// ("after Design, starts with Copy"), shown under the name.
	Waits string
}

// Class is the bar's classes.
func (b timelineBar) Class() string {
	c := []string{"tl-bar"}
	if b.Point {
		c[0] = "tl-point"
	}
	for _, x := range []struct {
		on   bool
		name string
	}{{b.ClipStart, "clip-start"}, {b.ClipEnd, "clip-end"}, {b.Overdue, "overdue"}, {b.Done, "done"}} {
		if x.on {
			c = append(c, x.name)
		}
	}
	return strings.Join(c, " ")
}

// Label is the bar's accessible name: the task, its dates, and whether it
// is overdue or done.
func (b timelineBar) Label() string {
	s := b.Name + ": " + b.Dates
	switch {
	case b.Done:
		s += ", done"
	case b.Overdue:
		s += ", overdue"
	}
	return s
}

// timelineGroup is a group of rows under its heading.
type timelineGroup struct {
	Title string
	Rows  []timelineBar
	// Body is the rows' HTML (timelinerows.go).
	Body template.HTML
}

// timelineChart is what a timeline shows of its tasks: the rows in the
// window by group, the tasks without dates, and how many tasks lie before
// and after the window.
type timelineChart struct {
	Groups      []timelineGroup
	Unscheduled []taskRow
	// MoreUnscheduled counts the tasks without dates not listed.
	MoreUnscheduled int
	Before, After   int
	// Arrows are the dependencies between the chart's rows
	// (timelinedeps.go), which timeline.js draws over the bars.
	Arrows []timelineArrow
}

// timelineArrow is a dependency between two tasks' bars: finish-to-start
// or start-to-start (taskd.RelationFinishToStart, RelationStartToStart).
type timelineArrow struct {
	From, To int64
	Type     string
}

// maxUnscheduled bounds the tasks without dates a timeline lists.
const maxUnscheduled = 100

// Rows counts the rows in the window.
func (c *timelineChart) Rows() int {
	n := 0
	for _, g := range c.Groups {
		n += len(g.Rows)
	}
	return n
}

// buildTimeline places tasks on the window, grouped; tasks come in the
// order the rows keep within a group (the store's tree order), and only
// those the viewer may see (the store read them for the viewer).
func buildTimeline(tasks []taskd.Task, w timelineWindow) *timelineChart {
	c := &timelineChart{}
	index := map[string]int{}
	shownIn := map[int64]int{} // the group each row is in, by task
	sub := map[int64]bool{}
	for _, t := range tasks {
		start, hasStart := parseDay(t.DateStart)
		end, hasEnd := parseDay(t.DateEnd)
		if !hasStart && !hasEnd {
			if len(c.Unscheduled) < maxUnscheduled {
				c.Unscheduled = append(c.Unscheduled, taskRow{Task: t})
			} else {
				c.MoreUnscheduled++
			}
			continue
		}
		b := timelineBar{taskRow: taskRow{Task: t}, Done: t.Status == taskd.StatusDone}
		switch {
		case !hasStart:
			start, b.Point = end, true
			b.Dates = "due " + dateText(end)
		case !hasEnd:
			end = start
			b.Dates = "starts " + dateText(start) + ", no due date"
		default:
			b.Dates = dateText(start) + " to " + dateText(end)
		}
		b.Overdue = hasEnd && !b.Done && end.Before(w.Today)
		first, last := daysBetween(w.From, start), daysBetween(w.From, end)
		if last < 0 {
			c.Before++
			continue
		}
		if first >= w.Days {
			c.After++
			continue
		}
		b.ClipStart, b.ClipEnd = first < 0, last >= w.Days
		first, last = max(first, 0), min(last, w.Days-1)
		b.Cells = rowCells(first, last, w.Days, w.TodayCol())
		title, other := t.Project.Name, assignee(t.Assignee)
		if w.Group == groupAssignee {
			title, other = other, title
		}
		b.Other = other
		i, ok := index[title]
		if !ok {
			i = len(c.Groups)
			index[title] = i
			c.Groups = append(c.Groups, timelineGroup{Title: title})
		}
		g := &c.Groups[i]
		in, seen := shownIn[t.ParentID]
		b.Sub = t.ParentID != 0 && seen && in == i
		b.Deep = b.Sub && sub[t.ParentID]
		shownIn[t.ID], sub[t.ID] = i, b.Sub
		g.Rows = append(g.Rows, b)
	}
	slices.SortStableFunc(c.Groups, func(a, b timelineGroup) int {
		if w.Group == groupAssignee && (a.Title == "Unassigned") != (b.Title == "Unassigned") {
			if a.Title == "Unassigned" {
				return 1
			}
			return -1
		}
		return strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title))
	})
	return c
}

// daysBetween counts the days from a to b (negative when b is earlier); both are
// midnight UTC.
func daysBetween(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }

func firstOfMonth(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// dateText is a date in words: "3 Dec 2026".
func dateText(d time.Time) string { return d.Format("2 Jan 2006") }

// timelineCell is a cell of a row: Span empty days, today's column (Now)
// or the bar (Bar).
type timelineCell struct {
	Span     int
	Bar, Now bool
}

// rowCells lays out a row whose bar spans the columns first to last of
// days: today's column, when it is not the bar's, is a cell of its own,
// so that it is marked on every row (a column's style would reach every
// cell that starts in it, whatever it spans).
func rowCells(first, last, days, today int) []timelineCell {
	var out []timelineCell
	empty := func(from, to int) { // the columns from to to-1
		if today >= from && today < to {
			if today > from {
				out = append(out, timelineCell{Span: today - from})
			}
			out = append(out, timelineCell{Span: 1, Now: true})
			from = today + 1
		}
		if to > from {
			out = append(out, timelineCell{Span: to - from})
		}
	}
	empty(0, first)
	out = append(out, timelineCell{Span: last - first + 1, Bar: true})
	empty(last+1, days)
	return out
}
