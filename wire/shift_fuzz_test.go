package wire_test

import (
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// FuzzShiftParsesBack (issue 46): whatever shift of a task's dates
// taskd.ShiftTaskDates accepts, each date it gives parses back under
// update_task's rule (wire.ParseDate, in both input forms) as itself; and
// it refuses exactly the shifts whose day, counted apart from it, falls
// outside 1900-01-01..2999-12-31.
func FuzzShiftParsesBack(f *testing.F) {
	for _, seed := range []struct {
		start, end int64 // days from 1900-01-01
		days       int
	}{{0, 0, -1}, {401765, 401766, 1}, {401600, 401630, 3650}, {9500, 9510, -3650}, {200000, 200001, 1 << 62}, {5, 6, -1 << 63}} {
		f.Add(seed.start, seed.end, seed.days)
	}
	first := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	const span = 401766 // days from 1900-01-01 to 2999-12-31
	f.Fuzz(func(t *testing.T, start, end int64, days int) {
		start, end = ((start%(span+1))+span+1)%(span+1), ((end%(span+1))+span+1)%(span+1)
		if end < start {
			start, end = end, start
		}
		task := taskd.Task{ID: 1, Name: "T", DateStart: first.AddDate(0, 0, int(start)).Format(taskd.DateLayout), DateEnd: first.AddDate(0, 0, int(end)).Format(taskd.DateLayout)}
		s, e, err := taskd.ShiftTaskDates(task, days)
		// Counted apart: in int64 days from the first date, no overflow
		// once days is within the span (beyond, it leaves from anywhere).
		inside := days >= -span && days <= span && start+int64(days) >= 0 && end+int64(days) <= span
		if (err == nil) != inside {
			t.Fatalf("ShiftTaskDates(%s..%s, %d) = %q..%q, %v; want accepted=%v", task.DateStart, task.DateEnd, days, s, e, err, inside)
		}
		if err != nil {
			if taskd.AsError(err).Field != "days" {
				t.Fatalf("a refusal on %q, want days", taskd.AsError(err).Field)
			}
			return
		}
		for _, d := range []string{s, e} {
			day, perr := time.Parse(taskd.DateLayout, d)
			if perr != nil {
				t.Fatalf("shifted to %q, no date", d)
			}
			for _, in := range []string{d, day.Format(wire.InputLayout)} {
				if back, err := wire.ParseDate("datestart", in); err != nil || back != d {
					t.Fatalf("%s..%s shifted by %d gives %q; update_task reads %q as %q, %v", task.DateStart, task.DateEnd, days, d, in, back, err)
				}
			}
		}
		if want := first.AddDate(0, 0, int(start)+days).Format(taskd.DateLayout); s != want {
			t.Fatalf("start %s shifted by %d = %s, want %s", task.DateStart, days, s, want)
		}
	})
}
