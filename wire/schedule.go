package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/taskd/taskd"
)

// ParseDayHours reads a day's working hours, decimal or H:MM as cost time
// is written ("8", "7.5", "7,5", "7:30"), 0 to 24, into minutes; errors name
// field.
func ParseDayHours(field, s string) (int64, error) {
	minutes, err := parseMinutes(field, s)
	if err != nil {
		return 0, taskd.Invalid(field, "A day's hours are 0 to 24, as 8, 7.5 or 7:30")
	}
	return minutes, taskd.CheckDayMinutes(field, minutes)
}

// ParseSchedules reads update_users_schedule's data (spec §5, conflict
// C14): a JSON object keyed by member e-mail, each an object whose keys
// are weekdays (mon … sun) or dates (DD.MM.YYYY or YYYY-MM-DD) and whose
// values are hours as ParseDayHours reads them, as a number or a string. A
// date's null or "" takes it back to its weekday's hours. A key given twice
// is refused rather than one silently winning. Errors are invalid, naming
// "data", or the e-mail, weekday or date at fault.
func ParseSchedules(data string) ([]taskd.ScheduleChange, error) {
	bad := taskd.Invalid("data", `data is a JSON object keyed by e-mail, as {"ann@example.com":{"mon":8,"2026-03-09":0}}`)
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad
	}
	var out []taskd.ScheduleChange
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad
		}
		email, err := taskd.NormalizeEmail(tok.(string))
		if err != nil {
			return nil, &taskd.Error{Kind: taskd.KindInvalid, Field: "data", Value: tok.(string), Message: "Invalid e-mail"}
		}
		if slices.ContainsFunc(out, func(c taskd.ScheduleChange) bool { return c.Email == email }) {
			return nil, &taskd.Error{Kind: taskd.KindInvalid, Field: "data", Value: email, Message: "The e-mail is given more than once"}
		}
		ch, err := parseScheduleOf(dec, email, bad)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad
	}
	if len(out) == 0 {
		return nil, taskd.Required("data")
	}
	return out, nil
}

// parseScheduleOf reads one member's object of ParseSchedules.
func parseScheduleOf(dec *json.Decoder, email string, bad error) (taskd.ScheduleChange, error) {
	ch := taskd.ScheduleChange{Email: email, Days: map[string]*int64{}}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ch, bad
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ch, bad
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ch, bad
		}
		value, null, err := hoursText(raw)
		if err != nil {
			return ch, taskd.Invalid(tok.(string), "A day's hours are a number or a string, as 8, \"7.5\" or \"7:30\"")
		}
		key, err := setScheduleDay(&ch, tok.(string), value, null)
		if err != nil {
			return ch, err
		}
		if seen[key] {
			return ch, taskd.Invalid(key, "The day is given more than once for %s", email)
		}
		seen[key] = true
	}
	_, err := dec.Token() // the closing brace
	return ch, err
}

// setScheduleDay sets one key of a schedule change: a weekday (mon …
// sun) or a date (DD.MM.YYYY or YYYY-MM-DD) to the hours value, or, with
// null, a date back to its weekday's hours. It returns the key as the
// change holds it (a weekday's name or a date in taskd.DateLayout); errors
// name the key.
func setScheduleDay(ch *taskd.ScheduleChange, key, value string, null bool) (string, error) {
	raw := key
	key = strings.ToLower(strings.TrimSpace(key))
	day := slices.Index(taskd.WeekdayKeys[:], key)
	if day < 0 { // a date
		var err error
		if key, err = ParseDate(key, key); err != nil || key == "" {
			return "", taskd.Invalid(raw, "A key is a weekday (mon … sun) or a date (DD.MM.YYYY or YYYY-MM-DD)")
		}
	}
	var minutes *int64
	if !null {
		m, err := ParseDayHours(key, value)
		if err != nil {
			return "", err
		}
		minutes = &m
	}
	switch {
	case day >= 0 && minutes == nil:
		return "", taskd.Invalid(key, "A weekday's hours are 0 to 24; none is for dates only")
	case day >= 0:
		ch.Week[day] = minutes
	default:
		if ch.Days == nil {
			ch.Days = map[string]*int64{}
		}
		ch.Days[key] = minutes
	}
	return key, nil
}

// ParseScheduleForm reads a page's change of the schedule of the member
// with the e-mail: the weekdays (mon … sun) and the date the form gives,
// the date with hours ("" takes it back to its weekday's). Keys and values
// are read as update_users_schedule's data reads them.
func ParseScheduleForm(email string, p Params) (taskd.ScheduleChange, error) {
	ch := taskd.ScheduleChange{Email: email}
	for _, key := range taskd.WeekdayKeys {
		if v, ok := p(key); ok {
			if _, err := setScheduleDay(&ch, key, v, strings.TrimSpace(v) == ""); err != nil {
				return ch, err
			}
		}
	}
	if date, ok := p("date"); ok {
		if strings.TrimSpace(date) == "" {
			return ch, taskd.Required("date")
		}
		hours, _ := p("hours")
		if _, err := setScheduleDay(&ch, date, hours, strings.TrimSpace(hours) == ""); err != nil {
			return ch, err
		}
	}
	return ch, nil
}

// hoursText is a JSON value of hours as text: a number or a string; null
// (and "") for none.
func hoursText(raw json.RawMessage) (text string, null bool, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "null":
		return "", true, nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, err
		}
		return s, strings.TrimSpace(s) == "", nil
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		return string(raw), false, nil
	}
	return "", false, io.ErrUnexpectedEOF
}
