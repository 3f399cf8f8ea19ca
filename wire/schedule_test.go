package wire_test

import (
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// TestParseSchedules: update_users_schedule's data as the Python SDK's
// README sends it (weekday keys, bare numbers), with dates in both input
// forms, hours as strings, and null for "back to the week"; every
// malformed part is refused naming it.
func TestParseSchedules(t *testing.T) {
	t.Parallel()
	got, err := wire.ParseSchedules(`{"Ann@Example.com":{"mon":8,"tue":"7.5","fri":"4:30","SAT":0},
		"bob@example.com":{"09.03.2026":0,"2026-03-14":"6","2026-03-15":null,"2026-03-16":""}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Email != "ann@example.com" || got[1].Email != "bob@example.com" {
		t.Fatalf("changes: %+v", got)
	}
	ann := got[0]
	for day, want := range map[time.Weekday]int64{time.Monday: 480, time.Tuesday: 450, time.Friday: 270, time.Saturday: 0} {
		if ann.Week[day] == nil || *ann.Week[day] != want {
			t.Errorf("ann's %s: %v, want %d", day, ann.Week[day], want)
		}
	}
	if ann.Week[time.Sunday] != nil || ann.Week[time.Wednesday] != nil || len(ann.Days) != 0 {
		t.Errorf("ann's change sets more than it names: %+v", ann)
	}
	bob := got[1]
	if len(bob.Days) != 4 || *bob.Days["2026-03-09"] != 0 || *bob.Days["2026-03-14"] != 360 ||
		bob.Days["2026-03-15"] != nil || bob.Days["2026-03-16"] != nil {
		t.Errorf("bob's dates: %+v", bob.Days)
	}

	for _, c := range []struct{ data, field, value string }{
		{``, "data", ""},
		{`[]`, "data", ""},
		{`{}`, "data", ""},
		{`{"ann@example.com":8}`, "data", ""},
		{`{"not an e-mail":{"mon":8}}`, "data", "not an e-mail"},
		{`{"ann@example.com":{"mon":8},"ANN@example.com":{"tue":8}}`, "data", "ann@example.com"},
		{`{"ann@example.com":{"monday":8}}`, "monday", ""},
		{`{"ann@example.com":{"mon":25}}`, "mon", ""},
		{`{"ann@example.com":{"mon":-1}}`, "mon", ""},
		{`{"ann@example.com":{"mon":null}}`, "mon", ""},
		{`{"ann@example.com":{"mon":true}}`, "mon", ""},
		{`{"ann@example.com":{"mon":8,"MON":7}}`, "mon", ""},
		{`{"ann@example.com":{"31.02.2026":8}}`, "31.02.2026", ""},
		{`{"ann@example.com":{"2026-03-09":8,"09.03.2026":7}}`, "2026-03-09", ""},
		{`{"ann@example.com":{"mon":8}} x`, "data", ""},
	} {
		_, err := wire.ParseSchedules(c.data)
		e := taskd.AsError(err)
		if err == nil || e.Kind != taskd.KindInvalid || e.Field != c.field || e.Value != c.value {
			t.Errorf("ParseSchedules(%s) = %v, want invalid naming %q (value %q)", c.data, err, c.field, c.value)
		}
	}
}

// TestParseProjectOptions: options.* read 1 and 0 (true and false), leave
// absent options alone, and refuse anything else naming the option.
func TestParseProjectOptions(t *testing.T) {
	t.Parallel()
	params := func(kv ...string) wire.Params {
		return func(name string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == name {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	in, err := wire.ParseProjectInput(params(wire.OptionTimeRequire, "1", wire.OptionTimerOnly, "false"))
	if err != nil {
		t.Fatal(err)
	}
	if o := in.Options; o.TimeRequire == nil || !*o.TimeRequire || o.TimerOnly == nil || *o.TimerOnly || o.TimeToday != nil {
		t.Fatalf("options: %+v", o)
	}
	for _, v := range []string{"", "2", "yes", "on"} {
		_, err := wire.ParseProjectInput(params(wire.OptionTimeToday, v))
		if e := taskd.AsError(err); err == nil || e.Kind != taskd.KindInvalid || e.Field != wire.OptionTimeToday {
			t.Errorf("options.time_today=%q: %v", v, err)
		}
	}
}
