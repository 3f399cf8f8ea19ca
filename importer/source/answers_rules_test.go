package source

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// answer is a handler that sends the JSON of v with HTTP 200.
func answer(v any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
}

// TestAnswerMessageIsOneShortLine: the message and details of an error
// answer are cut to one line of at most 300 bytes, at a character's
// boundary (decisions.md, "Import: reading the source", Secrets).
func TestAnswerMessageIsOneShortLine(t *testing.T) {
	msg := "Project is invalid\nsecond line " + strings.Repeat("x", 500)
	details := "id_project\r\n" + strings.Repeat("é", 400) // 800 bytes
	c, _ := retryClient(t, answer(map[string]any{"status": "error", "status_code": 4, "message": msg, "message_details": details}), Options{})
	_, err := c.Users(context.Background())
	var ae *APIError
	if !errors.As(err, &ae) {
		t.Fatalf("not an APIError: %v", err)
	}
	if ae.Code != 4 {
		t.Errorf("code %d", ae.Code)
	}
	want := "Project is invalid second line "
	want += strings.Repeat("x", 300-len(want))
	if ae.Message != want {
		t.Errorf("message (%d bytes) %q", len(ae.Message), ae.Message)
	}
	if len(ae.Details) > 300 || len(ae.Details) < 299 || !utf8.ValidString(ae.Details) || !strings.HasPrefix(ae.Details, "id_project") ||
		!strings.HasSuffix(ae.Details, "é") {
		t.Errorf("details (%d bytes) %q", len(ae.Details), ae.Details)
	}
	if s := err.Error(); strings.ContainsAny(s, "\r\n") {
		t.Errorf("the error is more than one line: %q", s)
	}

	// A message of one line of 300 bytes is kept whole.
	exact := strings.Repeat("m", 300)
	c, _ = retryClient(t, answer(map[string]any{"status": "error", "status_code": 4, "message": exact}), Options{})
	if _, err := c.Users(context.Background()); !errors.As(err, &ae) || ae.Message != exact {
		t.Errorf("a message of 300 bytes: %v", err)
	}
}

// TestJSONNestingBound: an answer nested 32 levels deep (objects and arrays,
// the envelope counted) is read; 33 is refused. Brackets inside strings are
// not nesting.
func TestJSONNestingBound(t *testing.T) {
	// The envelope {…} is level 1, data […] 2, the team {…} 3, and the
	// ignored field x holds the rest.
	teams := func(levels int) string {
		n := levels - 3
		return `{"status":"ok","data":[{"id":"1","title":"A[{","type":"company","x":` +
			strings.Repeat("[", n) + `"]]}}"` + strings.Repeat("]", n) + `}]}`
	}
	ctx := context.Background()
	c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(teams(32)))
	}, Options{})
	if got, err := c.Teams(ctx); err != nil || len(got) != 1 || got[0].Title != "A[{" {
		t.Errorf("32 levels: %v %v", got, err)
	}
	c, _ = retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(teams(33)))
	}, Options{})
	if _, err := c.Teams(ctx); err == nil || !strings.Contains(err.Error(), "nests deeper than 32 levels") {
		t.Errorf("33 levels: %v", err)
	}
}

// TestDayFirstDates: DD.MM.YYYY (with or without a time) is day first, a
// day above 12 and one below alike.
func TestDayFirstDates(t *testing.T) {
	ctx := context.Background()
	c, _ := retryClient(t, answer(map[string]any{"status": "ok", "data": []map[string]any{
		{"id": "1", "email": "a@x.example", "name": "A", "date_added": "25.12.2024 14:30"},
		{"id": "2", "email": "b@x.example", "name": "B", "date_added": "05.03.2024"},
	}}), Options{})
	users, err := c.Users(ctx)
	if err != nil || len(users) != 2 {
		t.Fatalf("%v %v", users, err)
	}
	eq(t, "added", []time.Time{users[0].Added, users[1].Added},
		[]time.Time{time.Date(2024, 12, 25, 14, 30, 0, 0, time.UTC), time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)})

	c, _ = retryClient(t, answer(map[string]any{"status": "ok", "data": []map[string]any{
		{"id": "7", "time": "1:30", "money": "0", "date": "13.01.2025", "user_from": map[string]any{"email": "a@x.example"}},
		{"id": "8", "time": "0:10", "money": "0", "date": "02.11.2025", "user_from": map[string]any{"email": "a@x.example"}},
	}}), Options{})
	costs, err := c.Costs(ctx, CostQuery{ProjectID: "3"})
	if err != nil || len(costs) != 2 {
		t.Fatalf("%v %v", costs, err)
	}
	eq(t, "dates", []string{costs[0].Date, costs[1].Date}, []string{"2025-01-13", "2025-11-02"})
}

// TestRetryAfterIsExact: the wait is exactly the answer's Retry-After,
// shorter than the backoff's too: 0 seconds, a date past, 1 second.
func TestRetryAfterIsExact(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, value string
		want        time.Duration
	}{
		{"zero seconds", "0", 0},
		{"a date past", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"a date now", now.Format(http.TimeFormat), 0},
		{"one second", "1", time.Second},
		{"a date 2 s on", now.Add(2 * time.Second).Format(http.TimeFormat), 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			c, s := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					w.Header().Set("Retry-After", tc.value)
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.Write([]byte(okTeams))
			}, Options{Now: func() time.Time { return now }, Retry: RetryPolicy{BaseDelay: 20 * time.Second}})
			if _, err := c.Teams(context.Background()); err != nil {
				t.Fatal(err)
			}
			// The backoff alone would have waited 15 s (jitter 0.5).
			eq(t, "waits", s.d, []time.Duration{tc.want})
		})
	}
}

// TestCostsPerTaskOnCode11: when the source refuses a project's cost lines
// as too many (code 11), they are read per top-level task; another error
// is returned as is.
func TestCostsPerTaskOnCode11(t *testing.T) {
	ctx := context.Background()
	tasks := []Task{{ID: "101", Children: []Task{{ID: "103"}}}, {ID: "102"}}
	line := func(id string) map[string]any {
		return map[string]any{"id": id, "time": "1:00", "money": "0", "date": "2025-01-02", "user_from": map[string]any{"email": "a@x.example"}}
	}
	serve := func(t *testing.T, code int) (*Client, func() []string) {
		var mu sync.Mutex
		var asked []string
		c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			mu.Lock()
			asked = append(asked, q.Get("id_project")+"/"+q.Get("id_task"))
			mu.Unlock()
			switch q.Get("id_task") {
			case "":
				answer(map[string]any{"status": "error", "status_code": code, "message": "Too many lines"})(w, r)
			case "101":
				answer(map[string]any{"status": "ok", "data": []any{line("1"), line("2")}})(w, r)
			case "102":
				answer(map[string]any{"status": "ok", "data": []any{line("3")}})(w, r)
			default:
				answer(map[string]any{"status": "error", "status_code": 4, "message": "Task is invalid"})(w, r)
			}
		}, Options{Concurrency: 1})
		return c, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), asked...) }
	}
	t.Run("code 11", func(t *testing.T) {
		c, asked := serve(t, 11)
		costs, err := c.ProjectCosts(ctx, "26", tasks)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range costs {
			got = append(got, l.ID+" "+l.ProjectID+"/"+l.TaskID)
		}
		eq(t, "lines", got, []string{"1 26/101", "2 26/101", "3 26/102"})
		eq(t, "asked", asked(), []string{"26/", "26/101", "26/102"})
	})
	t.Run("another code", func(t *testing.T) {
		c, asked := serve(t, 4)
		var ae *APIError
		if _, err := c.ProjectCosts(ctx, "26", tasks); !errors.As(err, &ae) || ae.Code != 4 {
			t.Errorf("got %v", err)
		}
		eq(t, "asked", asked(), []string{"26/"})
	})
}
