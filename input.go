package taskd

import (
	"slices"
	"strings"
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
	return &v, CheckText(name, v)
}

func (p Params) name(field string) (*string, error) {
	v, ok := p(field)
	if !ok {
		return nil, nil
	}
	n, err := CleanName(field, v)
	return &n, err
}

// ParseTaskInput reads title, text, priority, email_user_to, datestart and
// dateend; absent ones stay nil.
func ParseTaskInput(p Params) (in TaskInput, err error) {
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
func ParseCostInput(p Params) (in CostInput, err error) {
	if v, ok := p("is_rate"); ok {
		switch v {
		case "1", "true":
			in.ByRate = true
		case "0", "false", "":
		default:
			return in, Invalid("is_rate", "is_rate is 1 or 0")
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
		c, err := CleanCostComment(v)
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

// ParseProjectInput reads title, text, email_manager, datestart and
// dateend; absent ones stay nil.
func ParseProjectInput(p Params) (in ProjectInput, err error) {
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
		if len(v) > MaxTitleLen || strings.ContainsAny(v, "\r\n") {
			return in, Invalid("company", "A folder's title is one line of at most %d bytes", MaxTitleLen)
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
	if in.DateStart, err = p.date("datestart"); err != nil {
		return in, err
	}
	in.DateEnd, err = p.date("dateend")
	return in, err
}

// ParseCommentText reads a comment's text: required, not blank, trimmed,
// and within the length limit.
func ParseCommentText(p Params) (string, error) {
	v, ok := p("text")
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", Required("text")
	}
	return v, CheckText("text", v)
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
		e, err := NormalizeEmail(part)
		if err != nil {
			return nil, &Error{Kind: KindInvalid, Field: field, Value: strings.TrimSpace(part), Message: "Invalid e-mail"}
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
	list := []string{}
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(list, t) {
			list = append(list, t)
		}
	}
	return &list
}
