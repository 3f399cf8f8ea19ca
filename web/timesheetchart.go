package web

// The timesheet's totals by person and by project, named for the page,
// and by ISO week, with the chart of hours per week drawn from them.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// sumRow is one row of the totals by person or by project.
type sumRow struct {
	Name string
	// Link is the timesheet of this person or project alone, with the
	// same dates.
	Link string
	taskd.CostSum
}

// weekTotal is one ISO week (Monday to Sunday) of the timesheet and the
// time and money logged in it.
type weekTotal struct {
	Start, End string // YYYY-MM-DD, the Monday and the Sunday
	Label      string // the ISO week, "2026-W10"
	taskd.CostSum
}

// mondayOf is the Monday of d's ISO week.
func mondayOf(d time.Time) time.Time {
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// byWeek folds sums by day into the ISO weeks from from to to: every week
// of the range, those without lines with a zero sum. Days outside the
// range are left out.
func byWeek(days []taskd.CostGroup, from, to time.Time) []weekTotal {
	var weeks []weekTotal
	index := map[string]int{}
	for w := mondayOf(from); !w.After(to); w = w.AddDate(0, 0, 7) {
		year, week := w.ISOWeek()
		index[w.Format(taskd.DateLayout)] = len(weeks)
		weeks = append(weeks, weekTotal{Start: w.Format(taskd.DateLayout), End: w.AddDate(0, 0, 6).Format(taskd.DateLayout),
			Label: fmt.Sprintf("%04d-W%02d", year, week)})
	}
	for _, g := range days {
		d, err := time.Parse(taskd.DateLayout, g.Day)
		if err != nil {
			continue
		}
		if i, ok := index[mondayOf(d).Format(taskd.DateLayout)]; ok {
			weeks[i].Add(g.CostSum)
		}
	}
	return weeks
}

// weekChart is the hours per week as SVG bars, one column per week of the
// range; an empty week is a bar of height zero over its grey slot.
type weekChart struct {
	Width, Height int // of the viewBox
	BarWidth      int
	Bars          []weekBar
	// Label is the chart's accessible name: what it shows, in words.
	Label string
	// First and Last name the first and last week, under the chart.
	First, Last string
}

// weekBar is one week's bar.
type weekBar struct {
	X, Y, Height int
	Title        string
}

// The chart's geometry, in viewBox units.
const (
	weekChartHeight = 60
	weekBarStep     = 12
	weekBarWidth    = 10
)

// newWeekChart draws the weeks' time, the highest week at full height.
func newWeekChart(weeks []weekTotal) weekChart {
	c := weekChart{Width: max(len(weeks), 1) * weekBarStep, Height: weekChartHeight, BarWidth: weekBarWidth}
	var peak, total int64
	busiest := -1
	for i, w := range weeks {
		total += w.Minutes
		if w.Minutes > peak {
			peak, busiest = w.Minutes, i
		}
	}
	for i, w := range weeks {
		h := 0
		if peak > 0 {
			h = int(w.Minutes * weekChartHeight / peak)
		}
		if w.Minutes > 0 {
			h = max(h, 1) // a little time still shows
		}
		c.Bars = append(c.Bars, weekBar{X: i * weekBarStep, Y: weekChartHeight - h, Height: h,
			Title: fmt.Sprintf("%s (%s to %s): %s", w.Label, w.Start, w.End, wire.FormatCostTime(w.Minutes))})
	}
	if len(weeks) == 0 {
		return c
	}
	c.First, c.Last = weeks[0].Label, weeks[len(weeks)-1].Label
	c.Label = fmt.Sprintf("Hours per week from %s to %s: %s in %d weeks", c.First, c.Last, wire.FormatCostTime(total), len(weeks))
	if busiest >= 0 {
		c.Label += fmt.Sprintf(", the most in %s (%s)", weeks[busiest].Label, wire.FormatCostTime(peak))
	}
	return c
}

// personRows names the sums by person, the most time first. Members go by
// their name, with a link to their timesheet; a person no longer a member
// by e-mail, or as "Former member" when taskd no longer knows them.
func (s *Server) personRows(ctx context.Context, groups []taskd.CostGroup, people []taskd.Member, link func(id int64) string) ([]sumRow, error) {
	names := memberNames(people)
	var rows []sumRow
	for _, g := range groups {
		name, ok := names[g.ID]
		row := sumRow{Name: name, CostSum: g.CostSum}
		if ok {
			row.Link = link(g.ID)
		} else {
			p, err := s.cfg.Accounts.PersonByID(ctx, g.ID)
			switch {
			case err == nil && p.Email != "":
				row.Name = p.Email
			case err == nil || taskd.IsNotFound(err):
				row.Name = formerMember
			default:
				return nil, err
			}
		}
		rows = append(rows, row)
	}
	return mostFirst(rows), nil
}

// formerMember names a person taskd no longer knows.
const formerMember = "Former member"

// memberNames are the members' names by id.
func memberNames(people []taskd.Member) map[int64]string {
	names := make(map[int64]string, len(people))
	for _, m := range people {
		names[m.ID] = m.DisplayName()
	}
	return names
}

// lineWho names a line's person: a member by name, anyone else by e-mail
// or as formerMember.
func lineWho(c taskd.Cost, members map[int64]string) string {
	if name, ok := members[c.Person.ID]; ok {
		return name
	}
	if c.Person.Email != "" {
		return c.Person.Email
	}
	return formerMember
}

// projectRows names the sums by project, the most time first.
func projectRows(groups []taskd.CostGroup, projects []taskd.Project, link func(id int64) string) []sumRow {
	names := map[int64]string{}
	for _, p := range projects {
		names[p.ID] = p.Name
	}
	var rows []sumRow
	for _, g := range groups {
		name, ok := names[g.ID]
		if !ok {
			name = fmt.Sprintf("Project %d", g.ID)
		}
		rows = append(rows, sumRow{Name: name, Link: link(g.ID), CostSum: g.CostSum})
	}
	return mostFirst(rows)
}

// mostFirst orders rows by time, then money, the most first, then by name.
func mostFirst(rows []sumRow) []sumRow {
	slices.SortStableFunc(rows, func(a, b sumRow) int {
		return cmp.Or(cmp.Compare(b.Minutes, a.Minutes), cmp.Compare(b.Cents, a.Cents), cmp.Compare(a.Name, b.Name))
	})
	return rows
}
