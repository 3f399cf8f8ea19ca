package storetest

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

// shiftSeed is the seed of testShiftKeepsTheDateRule: TASKD_SHIFT_SEED,
// else fixed.
func shiftSeed() uint64 {
	if s, err := strconv.ParseUint(os.Getenv("TASKD_SHIFT_SEED"), 10, 64); err == nil {
		return s
	}
	return 46
}

// testShiftKeepsTheDateRule (issue 46) is a property test: a chain
// a → b → c → d → e with dates near both ends of the range is shifted
// again and again by random days (up to 3650 either way, and ones far
// beyond). After a shift taken, every date written passes taskd.CheckDate
// and UpdateTask takes each task's dates back as they are; a shift
// refused is invalid on "days", names a task of the chain, and leaves
// every date and the events as they were.
func testShiftKeepsTheDateRule(t *testing.T, f0 *Fixture) {
	ctx, s, by := t.Context(), f0.Store, f0.Owner
	f := newRelFixture(t, f0)
	seed := shiftSeed()
	r := rand.New(rand.NewPCG(seed, 46))
	dates := map[string][2]string{"b": {"2995-01-10", "2995-02-01"}, "c": {"", "1905-03-01"}, "d": {"1950-05-05", ""}, "e": {"2500-01-01", "2500-12-31"}}
	for n, ds := range dates {
		must(s.UpdateTask(ctx, by, f.task[n].ID, taskd.TaskInput{DateStart: &ds[0], DateEnd: &ds[1]}))(t)
	}
	for _, pair := range [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "e"}} {
		f.mustAdd(t, pair[0], pair[1], taskd.RelationFinishToStart)
	}
	read := func() map[string][2]string {
		t.Helper()
		out := map[string][2]string{}
		for n := range dates {
			got := must(s.Task(ctx, by.Viewer(), f.task[n].ID))(t)
			out[n] = [2]string{got.DateStart, got.DateEnd}
		}
		return out
	}
	taken, refused := 0, 0
	for i := range 60 {
		days := r.IntN(2*3650+1) - 3650
		switch i % 10 {
		case 3:
			days = r.IntN(20) - 10 // near a bound, a day or two decides
		case 7:
			days = int(r.Int64()) // far beyond any date, either way
		}
		before, evs := read(), len(f.events(t, by.Viewer()))
		_, err := s.ShiftDependents(ctx, by, f.task["a"].ID, days)
		after := read()
		if err != nil {
			refused++
			e := taskd.AsError(err)
			if e.Kind != taskd.KindInvalid || e.Field != "days" || !strings.Contains(e.Message, "Nothing was shifted") {
				t.Fatalf("shift %d by %d: %v, want invalid on days", i, days, err)
			}
			if !f.namesOne(e.Message, "b", "c", "d", "e") {
				t.Errorf("shift %d by %d: %q names no task of the chain", i, days, e.Message)
			}
			for n := range dates {
				if after[n] != before[n] {
					t.Errorf("shift %d by %d refused, yet %s moved %v → %v", i, days, n, before[n], after[n])
				}
			}
			if got := len(f.events(t, by.Viewer())); got != evs {
				t.Errorf("shift %d by %d refused, yet %d events were written", i, days, got-evs)
			}
			continue
		}
		taken++
		for n, ds := range after {
			for _, d := range ds {
				if err := taskd.CheckDate("date", d); err != nil {
					t.Fatalf("shift %d by %d wrote %s's date %q: %v", i, days, n, d, err)
				}
			}
			if _, err := s.UpdateTask(ctx, by, f.task[n].ID, taskd.TaskInput{DateStart: &ds[0], DateEnd: &ds[1]}); err != nil {
				t.Fatalf("shift %d by %d: UpdateTask refuses %s's own dates %v: %v", i, days, n, ds, err)
			}
		}
	}
	t.Logf("seed %d: %d shifts taken, %d refused", seed, taken, refused)
	if taken == 0 || refused == 0 {
		t.Errorf("%d shifts taken, %d refused: want some of each (seed %d)", taken, refused, seed)
	}
}

// namesOne reports whether msg names one of the named tasks by number.
func (f *relFixture) namesOne(msg string, names ...string) bool {
	for _, n := range names {
		if strings.Contains(msg, "#"+itoa(f.task[n].ID)+" ") {
			return true
		}
	}
	return false
}
