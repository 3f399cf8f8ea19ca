package web_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
)

// BenchmarkCalendarPages serves, over HTTP on loopback to a signed-in
// owner, the calendar of a project of 5,000 tasks due over 2027 (about
// 420 a month), its activity (5,000 events) and the owner's iCalendar
// feed of them. "empty" is the month of a project without tasks, the
// baseline the others are read against (issue 35).
func BenchmarkCalendarPages(b *testing.B) {
	for _, backend := range testdb.Backends() {
		b.Run(backend, func(b *testing.B) {
			s := testsite.On(b, testdb.New(b, backend))
			by, empty, big, tags := benchProjects(b, s, "To do")
			fillProject(b, s, by, big.ID, tags)
			u := s.SignedIn(testsite.OwnerEmail)
			prof := u.Get(s.Base + "/profile")
			shown := regexp.MustCompile(`id="shown-secret">([^<]+)<`).FindStringSubmatch(u.Submit(s.Base, prof, "/profile/calendar-feed", nil).Body)
			if shown == nil {
				b.Fatal("no feed address")
			}
			base := s.Base + "/a/" + s.Slug
			for _, tc := range []struct{ name, url, want string }{
				{"empty", base + empty.Page() + "calendar?date=2027-03-01", "</html>"},
				{"month", base + big.Page() + "calendar?date=2027-03-01", "</html>"},
				{"week", base + big.Page() + "calendar?view=week&date=2027-03-01", "</html>"},
				{"activity", base + big.Page() + "activity", "</html>"},
				{"ical feed", shown[1], "END:VCALENDAR"},
			} {
				b.Run(tc.name, func(b *testing.B) {
					var size int
					for b.Loop() {
						var body string
						status := 0
						if strings.Contains(tc.url, "/ical/") {
							res, err := http.Get(tc.url)
							if err != nil {
								b.Fatal(err)
							}
							raw, err := io.ReadAll(res.Body)
							res.Body.Close()
							if err != nil {
								b.Fatal(err)
							}
							body, status = string(raw), res.StatusCode
						} else {
							p := u.Get(tc.url)
							body, status = p.Body, p.Status
						}
						if status != 200 || !strings.Contains(body, tc.want) {
							b.Fatalf("%s: %d", tc.name, status)
						}
						size = len(body)
					}
					b.ReportMetric(float64(size), "bytes/page")
				})
			}
		})
	}
}
