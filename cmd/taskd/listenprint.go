package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
)

// summary names a delivery's events without trusting them: what a
// refused delivery was, to tell which webhook sent it.
func summary(body []byte) string {
	var events []struct {
		Event  string                    `json:"event"`
		Object struct{ Type, ID string } `json:"object"`
	}
	if json.Unmarshal(body, &events) != nil {
		return "not a JSON array"
	}
	if len(events) == 0 {
		return "no events"
	}
	parts := make([]string, 0, min(3, len(events)))
	for _, ev := range events[:min(3, len(events))] {
		parts = append(parts, ev.Event+" "+ev.Object.Type+" "+ev.Object.ID)
	}
	if len(events) > 3 {
		parts = append(parts, fmt.Sprintf("and %d more", len(events)-3))
	}
	return strings.Join(parts, ", ")
}

// printDelivery prints one line per event, with the event's id (what a
// receiver deduplicates on: a batch may be sent again), then its fields:
// "old → new" for a change, the value for a new object, "was" and the
// value for a deleted one. from names the delivery (its id and path).
func printDelivery(out io.Writer, from, verdict string, body []byte) {
	var events []struct {
		ID     string `json:"id"`
		Event  string `json:"event"`
		Object struct {
			Type, ID, Page string
		} `json:"object"`
		User struct {
			Email string `json:"email"`
		} `json:"user_from"`
		New map[string]any `json:"new"`
		Old map[string]any `json:"old"`
	}
	if err := json.Unmarshal(body, &events); err != nil {
		fmt.Fprintf(out, "%s  %s (%s): not a JSON array: %s\n", clock(), from, verdict, bytes.TrimSpace(body))
		return
	}
	if len(events) == 0 {
		what := "no events"
		if isURLCheck(body) {
			what = "URL check answered"
		}
		fmt.Fprintf(out, "%s  %s (%s; %s)\n", clock(), what, from, verdict)
		return
	}
	for _, ev := range events {
		fmt.Fprintf(out, "%s  event %s  %-15s %s %s by %s  (%s; %s)\n", clock(), ev.ID, ev.Event, ev.Object.Type, ev.Object.ID, ev.User.Email, from, verdict)
		for _, line := range fieldLines(ev.New, ev.Old) {
			fmt.Fprintln(out, "    "+strings.ReplaceAll(line, "\n", " "))
		}
	}
}

// fieldLines are an event's fields, by name.
func fieldLines(changed, old map[string]any) []string {
	keys := slices.Collect(maps.Keys(changed))
	for k := range old {
		if _, ok := changed[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		was, hadOld := old[k]
		v, hasNew := changed[k]
		switch {
		case hadOld && hasNew:
			lines[i] = fmt.Sprintf("%s: %s → %s", k, show(was), show(v))
		case hasNew:
			lines[i] = fmt.Sprintf("%s: %s", k, show(v))
		default:
			lines[i] = fmt.Sprintf("%s: was %s", k, show(was))
		}
	}
	return lines
}

// none is how an empty value prints.
const none = "(none)"

// show renders a field's value readably: a person by name (or e-mail; no
// one as "(nobody)"), a set of tags ({"id": "title"}) by its titles, a list
// comma-joined, an empty value as "(none)", and anything else as JSON.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return none
	case string:
		if x == "" {
			return none
		}
		return x
	case []any:
		if len(x) == 0 {
			return none
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		if len(x) == 0 {
			return none
		}
		if email, ok := x["email"].(string); ok {
			if email == taskd.Nobody.Email {
				return "(nobody)"
			}
			if name, _ := x["name"].(string); name != "" {
				return name
			}
			return email
		}
		if titles, ok := titlesByID(x); ok {
			return strings.Join(titles, ", ")
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// titlesByID reads a set of tags, {"id": "title"}, as its titles in the
// order of their ids; ok is false for any other object.
func titlesByID(m map[string]any) (titles []string, ok bool) {
	ids := make([]int64, 0, len(m))
	byID := map[int64]string{}
	for k, v := range m {
		id, err := strconv.ParseInt(k, 10, 64)
		title, isText := v.(string)
		if err != nil || !isText {
			return nil, false
		}
		ids = append(ids, id)
		byID[id] = title
	}
	slices.Sort(ids)
	for _, id := range ids {
		titles = append(titles, byID[id])
	}
	return titles, true
}
