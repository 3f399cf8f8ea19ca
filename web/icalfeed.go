package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// CalendarStore keeps what the calendar's pages read beyond tasks: the
// hashes of the people's iCalendar feed secrets and the accounts'
// activity feeds (issue 35).
type CalendarStore interface {
	SetICalToken(ctx context.Context, personID int64, hash string) (time.Time, error)
	ICalTokenSet(ctx context.Context, personID int64) (time.Time, error)
	ICalPerson(ctx context.Context, hash string) (taskd.Person, error)
	Activity(ctx context.Context, q taskd.ActivityQuery) ([]taskd.StoredEvent, error)
}

// The feed's bounds: the secret's size (256 bits, base64url without
// padding: 43 characters), the days it covers around today, and the tasks
// it lists per account.
const (
	feedRandomBytes = 32
	feedChars       = 43
	feedPastDays    = 366
	feedFutureDays  = 2 * 366
	feedTasks       = 5000
)

// feedView is the profile page's calendar feed: whether the person has
// one, since when, and its URL right after it was made (shown once: the
// store keeps its hash only).
type feedView struct {
	Set   time.Time
	URL   string
	Error string
}

// feedOf is the person's feed for the profile page; nil when the pages
// have no calendar store.
func (s *Server) feedOf(ctx context.Context, personID int64) (*feedView, error) {
	if s.cfg.Calendar == nil {
		return nil, nil
	}
	at, err := s.cfg.Calendar.ICalTokenSet(ctx, personID)
	if taskd.IsNotFound(err) {
		return &feedView{}, nil
	}
	return &feedView{Set: at}, err
}

// rotateFeed is POST /profile/calendar-feed: a new secret for the
// person's feed, which ends the old one's URL, shown once on the page
// this answers with (never in a redirect's URL, nor logged).
func (s *Server) rotateFeed(w http.ResponseWriter, r *http.Request, v *view) error {
	if v.Person == nil {
		return see303(w, r, "/login")
	}
	if s.cfg.Calendar == nil {
		s.Error(w, r, http.StatusNotFound)
		return nil
	}
	token := secret.Token(feedRandomBytes)
	at, err := s.cfg.Calendar.SetICalToken(r.Context(), v.Person.ID, secret.HashToken(token))
	if err != nil {
		return err
	}
	pv := &profileView{Person: *v.Person, Zones: commonZones, Feed: &feedView{Set: at, URL: s.publicBase(r) + "/ical/" + token + ".ics"}}
	v.Title, v.Data = "Your profile", pv
	return s.render(w, r, "profile.html", v)
}

// publicBase is the server's public URL, without a trailing slash.
func (s *Server) publicBase(r *http.Request) string {
	if s.cfg.AccountURL != nil {
		return strings.TrimSuffix(s.cfg.AccountURL("x"), "/a/x")
	}
	return "http://" + r.Host
}

// feedSecret reads the secret of a feed's path element, "{secret}.ics";
// false when it cannot be one, so that nothing else reaches the store.
func feedSecret(name string) (string, bool) {
	token, ok := strings.CutSuffix(name, ".ics")
	if !ok || len(token) != feedChars {
		return "", false
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", false
		}
	}
	return token, true
}

// icalFeed is GET /ical/{feed}: the person's tasks with a due date, in
// every account they are a member of, as the store shows them to that
// person now (a person removed from an account no longer gets its
// tasks). An unknown, rotated or malformed secret is "not found", the
// same answer whatever the cause. The secret is never logged: errors are
// logged without the path.
func (s *Server) icalFeed(w http.ResponseWriter, r *http.Request) {
	token, ok := feedSecret(r.PathValue("feed"))
	var p taskd.Person
	var err error
	if ok && s.cfg.Calendar != nil {
		p, err = s.cfg.Calendar.ICalPerson(r.Context(), secret.HashToken(token))
	}
	if !ok || s.cfg.Calendar == nil || taskd.IsNotFound(err) {
		http.Error(w, "There is no such calendar.", http.StatusNotFound)
		return
	}
	var body []byte
	if err == nil {
		body, err = s.icalOf(r.Context(), p, s.publicBase(r))
	}
	if err != nil {
		s.cfg.Log.ErrorContext(r.Context(), "calendar feed failed", "person", p.ID, "err", err)
		http.Error(w, "Something went wrong on our side. Please try again.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Disposition", `inline; filename="taskd.ics"`)
	w.Write(body)
}

// icalOf is the person's feed, with links under the public URL: a VCALENDAR with one all-day VEVENT per
// task on its due date (RFC 5545 §3.6.1).
func (s *Server) icalOf(ctx context.Context, p taskd.Person, public string) ([]byte, error) {
	ms, err := s.cfg.Accounts.Memberships(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	window := taskd.QueryAnd{Parts: []taskd.Query{
		taskd.QueryCond{Field: taskd.FieldDateEnd, Op: ">=", Date: today.AddDate(0, 0, -feedPastDays).Format(taskd.DateLayout)},
		taskd.QueryCond{Field: taskd.FieldDateEnd, Op: "<=", Date: today.AddDate(0, 0, feedFutureDays).Format(taskd.DateLayout)},
	}}
	var w icalWriter
	w.line("BEGIN", "VCALENDAR")
	w.line("VERSION", "2.0")
	w.line("PRODID", "-//taskd//Tasks due//EN")
	w.line("CALSCALE", "GREGORIAN")
	w.line("METHOD", "PUBLISH")
	w.text("X-WR-CALNAME", "taskd: "+p.DisplayName())
	host := strings.TrimPrefix(strings.TrimPrefix(public, "https://"), "http://")
	for _, mb := range ms {
		v := taskd.PersonViewer(mb.Account.ID, p.ID, mb.Role)
		tasks, err := s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: v, Filter: window, ActiveProjects: true, Sort: taskd.SortDue, Limit: feedTasks})
		if err != nil {
			return nil, err
		}
		base := public + s.cfg.accountPath(mb.Account)
		for _, t := range tasks {
			day, err := time.Parse(taskd.DateLayout, t.DateEnd)
			if err != nil {
				continue
			}
			w.line("BEGIN", "VEVENT")
			w.line("UID", "task-"+strconv.FormatInt(t.ID, 10)+"@"+host)
			w.stamp("DTSTAMP", now)
			w.date("DTSTART", day)
			w.date("DTEND", day.AddDate(0, 0, 1))
			summary := t.Name
			if t.Status == taskd.StatusDone {
				summary = "✓ " + summary
			}
			w.text("SUMMARY", summary)
			w.text("DESCRIPTION", t.Project.Name+" · "+mb.Account.Name+"\n"+t.Text)
			w.line("URL", base+t.Page())
			w.line("TRANSP", "TRANSPARENT")
			w.line("END", "VEVENT")
		}
	}
	w.line("END", "VCALENDAR")
	return w.b.Bytes(), nil
}
