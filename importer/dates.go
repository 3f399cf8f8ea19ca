package importer

import (
	"fmt"
	"time"

	"github.com/taskd/taskd"
)

// dated is a source object whose dates are read: how the report names it
// (family, source id, what) and whether it is mapped here already.
type dated struct {
	family, id, what string
	mapped           bool
}

// date is the one rule of every date the importer reads from the source:
// a task's or a project's date_start and date_end, a cost line's date, an
// object's date_added (added). A date taskd keeps (taskd.CheckDate:
// FirstDate to LastDate, or none) is written as the source has it. Any
// other is not written, and the summary names the object, the field and
// the source's value: an object made now is made without it, and a mapped
// one keeps its own date, whatever an earlier run wrote or someone set
// here since, rather than lose it.
//
// kept is what the fingerprint holds: the date, or "" for one not kept.
// write is what the input writes: the date, "" (none) for an object made
// now, nil (left as it is) for a mapped one.
func (r *run) date(o dated, field, value string) (kept string, write *string) {
	if r.dateKept(o, field, value, value) {
		return value, &value
	}
	if o.mapped {
		return "", nil
	}
	none := ""
	return "", &none
}

// added is the source's creation date of an object the run makes (o is
// not mapped: a mapped object keeps its own), by the rule of date: one
// whose day taskd does not keep is reported, and the object is made with
// the date of the run (the zero time), as when the source gives none.
func (r *run) added(o dated, at time.Time) time.Time {
	if at.IsZero() || o.mapped || r.dateKept(o, "date_added", at.UTC().Format(taskd.DateLayout), at.UTC().Format("2006-01-02 15:04")) {
		return at
	}
	return time.Time{}
}

// dateKept says whether day (DateLayout) is a date taskd keeps; when not,
// it reports the field of o and value, the source's, and what is done.
func (r *run) dateKept(o dated, field, day, value string) bool {
	if taskd.CheckDate(field, day) == nil {
		return true
	}
	then := "imported without it"
	switch {
	case o.mapped:
		then = "left as it is here"
	case field == "date_added":
		then = "dated when it is made here"
	}
	r.sum.Skipped = append(r.sum.Skipped, Skip{Family: o.family, SourceID: o.id, Field: field, Value: value,
		Reason: fmt.Sprintf("the %s %s of %s is not a date taskd keeps (%s to %s): %s", field, value, o.what,
			taskd.FirstDate, taskd.LastDate, then)})
	return false
}
