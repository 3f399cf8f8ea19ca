package wire

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// Params gives a request's parameters by name, and whether each was sent.
// The account API and the pages both read changes through it, so that a
// change made in a page is validated exactly as the same change through
// the API.
type Params func(name string) (string, bool)

func (p Params) date(name string) (*string, error) {
	v, ok := p(name)
	if !ok {
		return nil, nil
	}
	d, err := ParseDate(name, v)
	return &d, err
}

func (p Params) text(name string) (*string, error) {
	v, ok := p(name)
	if !ok {
		return nil, nil
	}
	return &v, taskd.CheckText(name, v)
}

func (p Params) name(field string) (*string, error) {
	v, ok := p(field)
	if !ok {
		return nil, nil
	}
	n, err := taskd.CleanName(field, v)
	return &n, err
}

// ParseTaskInput reads title, text, priority, email_user_to, datestart and
// dateend; absent ones stay nil.
func ParseTaskInput(p Params) (in taskd.TaskInput, err error) {
	if in.Name, err = p.name("title"); err != nil {
		return in, err
	}
	if in.Text, err = p.text("text"); err != nil {
		return in, err
	}
	if v, ok := p("priority"); ok {
		pr, err := ParsePriority(v)
		if err != nil {
			return in, err
		}
		in.Priority = &pr
	}
	if v, ok := p("email_user_to"); ok {
		in.AssigneeEmail = &v
	}
	if v, ok := p("subscribe"); ok {
		list, err := ParseEmails("subscribe", v)
		if err != nil {
			return in, err
		}
		in.Subscribe = list
	}
	in.Tags = parseTags(p)
	if v, ok := p("hidden"); ok {
		list, err := ParseEmails("hidden", v)
		if err != nil {
			return in, err
		}
		in.Hidden = list
	}
	if in.MaxMinutes, in.MaxCents, err = p.budget(); err != nil {
		return in, err
	}
	if in.DateStart, err = p.date("datestart"); err != nil {
		return in, err
	}
	in.DateEnd, err = p.date("dateend")
	return in, err
}

// budget reads max_time and max_money; absent ones stay nil, and "" or 0
// clears a budget.
func (p Params) budget() (minutes, cents *int64, err error) {
	if v, ok := p("max_time"); ok {
		m, err := ParseBudgetTime(v)
		if err != nil {
			return nil, nil, err
		}
		minutes = &m
	}
	if v, ok := p("max_money"); ok {
		c, err := ParseBudgetMoney(v)
		if err != nil {
			return nil, nil, err
		}
		cents = &c
	}
	return minutes, cents, nil
}

// ParseCostInput reads a cost line's time, money, is_rate, comment and
// date; absent ones stay nil. is_rate=1 prices the time at the person's
// hourly rate, and then money is not read (spec §8).
func ParseCostInput(p Params) (in taskd.CostInput, err error) {
	if v, ok := p("is_rate"); ok {
		switch v {
		case "1", "true":
			in.ByRate = true
		case "0", "false", "":
		default:
			return in, taskd.Invalid("is_rate", "is_rate is 1 or 0")
		}
	}
	if v, ok := p("time"); ok && strings.TrimSpace(v) != "" {
		m, err := ParseCostTime(v)
		if err != nil {
			return in, err
		}
		in.Minutes = &m
	}
	if v, ok := p("money"); ok && !in.ByRate && strings.TrimSpace(v) != "" {
		c, err := ParseMoney(v)
		if err != nil {
			return in, err
		}
		in.Cents = &c
	}
	if v, ok := p("comment"); ok {
		c, err := taskd.CleanCostComment(v)
		if err != nil {
			return in, err
		}
		in.Comment = &c
	}
	if v, ok := p("date"); ok && v != "" {
		d, err := ParseDate("date", v)
		if err != nil {
			return in, err
		}
		in.Date = &d
	}
	return in, nil
}

// ParseProjectInput reads title, text, email_manager, email_user_to,
// company, tags, members, max_time, max_money, the options (options.*) and
// the dates; absent ones stay nil.
func ParseProjectInput(p Params) (in taskd.ProjectInput, err error) {
	if in.Name, err = p.name("title"); err != nil {
		return in, err
	}
	if in.Text, err = p.text("text"); err != nil {
		return in, err
	}
	if v, ok := p("email_manager"); ok {
		in.ManagerEmail = &v
	}
	if v, ok := p("email_user_to"); ok {
		in.AssigneeEmail = &v
	}
	if v, ok := p("company"); ok {
		v = strings.TrimSpace(v)
		if len(v) > taskd.MaxTitleLen || strings.ContainsAny(v, "\r\n") {
			return in, taskd.Invalid("company", "A folder's title is one line of at most %d bytes", taskd.MaxTitleLen)
		}
		in.Folder = &v
	}
	in.Tags = parseTags(p)
	if v, ok := p("members"); ok {
		list, err := ParseEmails("members", v)
		if err != nil {
			return in, err
		}
		in.Members = &list
	}
	if in.MaxMinutes, in.MaxCents, err = p.budget(); err != nil {
		return in, err
	}
	for _, o := range []struct {
		name string
		dst  **bool
	}{{OptionTimeRequire, &in.Options.TimeRequire}, {OptionTimeToday, &in.Options.TimeToday}, {OptionTimerOnly, &in.Options.TimerOnly}} {
		if *o.dst, err = p.flag(o.name); err != nil {
			return in, err
		}
	}
	if in.DateStart, err = p.date("datestart"); err != nil {
		return in, err
	}
	in.DateEnd, err = p.date("dateend")
	return in, err
}

// The parameters of the project options taskd keeps (spec §2.2), as
// post_project and update_project take them and the project's edit form
// sends them.
const (
	OptionTimeRequire = "options.time_require"
	OptionTimeToday   = "options.time_today"
	OptionTimerOnly   = "options.timer_only"
)

// flag reads an option: 1 (or true) on, 0 (or false) off; nil when absent.
func (p Params) flag(name string) (*bool, error) {
	v, ok := p(name)
	if !ok {
		return nil, nil
	}
	switch strings.TrimSpace(v) {
	case "1", "true":
		return new(true), nil
	case "0", "false":
		return new(false), nil
	}
	return nil, taskd.Invalid(name, "An option is 1 (on) or 0 (off)")
}

// ParseCommentText reads a comment's text: required, not blank, trimmed,
// and within the length limit.
func ParseCommentText(p Params) (string, error) {
	v, ok := p("text")
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", taskd.Required("text")
	}
	return v, taskd.CheckText("text", v)
}

// ParseEmails reads a comma list of e-mail addresses (blank entries are
// skipped; a JSON list arrives as a comma list). An invalid address is
// reported with the field and the address.
func ParseEmails(field, v string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		e, err := taskd.NormalizeEmail(part)
		if err != nil {
			return nil, &taskd.Error{Kind: taskd.KindInvalid, Field: field, Value: strings.TrimSpace(part), Message: "Invalid e-mail"}
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// parseTags reads a comma list of tag ids or titles.
func parseTags(p Params) *[]string {
	v, ok := p("tags")
	if !ok {
		return nil
	}
	list := ParseTokens(v)
	if list == nil {
		list = []string{}
	}
	return &list
}

// ParsePriority reads a priority "0".."10"; anything else is invalid.
func ParsePriority(s string) (int, error) {
	bad := taskd.Invalid("priority", "Priority must be an integer from 0 to 10")
	if len(s) == 0 || len(s) > 2 || (len(s) == 2 && s[0] == '0') {
		return 0, bad
	}
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, bad
		}
		n = n*10 + int(r-'0')
	}
	if n < taskd.MinPriority || n > taskd.MaxPriority {
		return 0, bad
	}
	return n, nil
}

// ParsePeriod reads get_events' period: 1m..360m, 1h..72h or 1d..30d.
func ParsePeriod(s string) (time.Duration, error) {
	bad := taskd.Invalid("period", "Period must be 1m..360m, 1h..72h or 1d..30d")
	if len(s) < 2 || len(s) > 4 {
		return 0, bad
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n < 1 || s[0] == '+' || s[0] == '0' {
		return 0, bad
	}
	switch s[len(s)-1] {
	case 'm':
		if n <= 360 {
			return time.Duration(n) * time.Minute, nil
		}
	case 'h':
		if n <= 72 {
			return time.Duration(n) * time.Hour, nil
		}
	case 'd':
		if n <= 30 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	return 0, bad
}
