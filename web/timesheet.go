package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// timesheetRoutes are the addresses of the timesheet and its CSV.
func (s *Server) timesheetRoutes() []route {
	return []route{
		{"GET /a/{slug}/timesheet", s.page(s.inAccount(taskd.PermRead, s.timesheet))},
		{"GET /a/{slug}/timesheet.csv", s.page(s.inAccount(taskd.PermRead, s.timesheetCSV))},
	}
}

// The timesheet's bounds.
const (
	timesheetPage    = 100 // lines to a page
	timesheetDays    = 28  // the default range: four weeks ending today
	maxTimesheetDays = 731 // the longest range: two years
)

// timesheetFilter is what the timesheet shows, read from its query string:
// person, project, from, to (YYYY-MM-DD) and page. Values that do not
// parse fall back to the defaults, so that a link edited by hand still
// shows a timesheet.
type timesheetFilter struct {
	Person, Project int64  // 0: everyone, every project
	From, To        string // YYYY-MM-DD, both inclusive
	Page            int    // from 1
	// Note says why the dates differ from those asked for; "" when not.
	Note string

	from, to time.Time
}

// readTimesheetFilter reads the query string; today is the viewer's date.
func readTimesheetFilter(q url.Values, today time.Time) timesheetFilter {
	var f timesheetFilter
	f.Person, _ = taskd.ParseID(q.Get("person"), "person")
	f.Project, _ = taskd.ParseID(q.Get("project"), "project")
	to, ok := parseDay(q.Get("to"))
	if !ok {
		to = today
	}
	from, ok := parseDay(q.Get("from"))
	if !ok {
		from = to.AddDate(0, 0, 1-timesheetDays)
	}
	if from.After(to) {
		from, to = to, from
		f.Note = "The dates were the wrong way round and have been swapped."
	}
	if to.Sub(from) > maxTimesheetDays*24*time.Hour {
		from = to.AddDate(0, 0, -maxTimesheetDays)
		f.Note = "A timesheet covers at most two years, so this one starts on " + from.Format(taskd.DateLayout) + "."
	}
	f.from, f.to = from, to
	f.From, f.To = from.Format(taskd.DateLayout), to.Format(taskd.DateLayout)
	f.Page, _ = strconv.Atoi(q.Get("page"))
	f.Page = max(f.Page, 1)
	return f
}

// parseDay reads a date as wire.ParseDate does; false when there is none.
func parseDay(s string) (time.Time, bool) {
	d, err := wire.ParseDate("date", s)
	if err != nil || d == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(taskd.DateLayout, d)
	return t, err == nil
}

// query is the filter as a query string, at a page (1 or less: none).
func (f timesheetFilter) query(page int) string {
	v := url.Values{"from": {f.From}, "to": {f.To}}
	if f.Person != 0 {
		v.Set("person", strconv.FormatInt(f.Person, 10))
	}
	if f.Project != 0 {
		v.Set("project", strconv.FormatInt(f.Project, 10))
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return v.Encode()
}

// timesheetScope is what a viewer's timesheet draws on: the account's
// members and the projects the viewer sees, and the query those allow.
type timesheetScope struct {
	People   []taskd.Member
	Projects []taskd.Project
	query    taskd.CostQuery
}

// readTimesheet reads the timesheet's scope and the request's filter: the
// lines and projects the viewer sees (taskd.Viewer). A person or project
// that is not one to choose is dropped from the filter.
func (s *Server) readTimesheet(ctx context.Context, r *http.Request, v *view, me member) (timesheetScope, timesheetFilter, error) {
	acct := me.Account
	f := readTimesheetFilter(r.URL.Query(), s.today(v))
	sc := timesheetScope{query: taskd.CostQuery{Viewer: me.viewer(), From: f.From, To: f.To}}
	var err error
	if sc.People, err = s.cfg.Accounts.Members(ctx, acct.ID); err != nil {
		return sc, f, err
	}
	if sc.Projects, err = s.cfg.Projects.Projects(ctx, me.viewer(), ""); err != nil {
		return sc, f, err
	}
	if !slices.ContainsFunc(sc.People, func(p taskd.Member) bool { return p.ID == f.Person }) {
		f.Person = 0
	}
	if !slices.ContainsFunc(sc.Projects, func(p taskd.Project) bool { return p.ID == f.Project }) {
		f.Project = 0
	}
	sc.query.PersonID, sc.query.ProjectID = f.Person, f.Project
	return sc, f, nil
}

// timesheetView is the timesheet page: the filter, the totals, the chart
// and a page of lines.
type timesheetView struct {
	timesheetScope
	Filter      timesheetFilter
	Base, Path  string // the account's path and the timesheet's
	Total       taskd.CostSum
	ByPerson    []sumRow
	ByProject   []sumRow
	ByWeek      []weekTotal
	Chart       weekChart
	Lines       []timesheetLine
	Pages       int
	Prev, Next  string // the neighbouring pages' addresses, "" at an end
	CSV         string // the CSV export of the same filter
	ClearFilter string // the default timesheet, when the filter is not
}

// timesheetLine is a line as the timesheet shows it.
type timesheetLine struct {
	taskd.Cost
	Who string // the person's name, e-mail or formerMember
}

// timesheet is GET /a/{slug}/timesheet: the time and money logged in the
// account, filtered by person, project and dates, with totals by person,
// project and week and the lines newest first, a page at a time.
func (s *Server) timesheet(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	ctx := r.Context()
	sc, f, err := s.readTimesheet(ctx, r, v, me)
	if err != nil {
		return err
	}
	base := s.cfg.accountPath(me.Account)
	tv := &timesheetView{timesheetScope: sc, Base: base, Path: base + "/timesheet"}
	if err := s.timesheetTotals(ctx, tv, f); err != nil {
		return err
	}
	tv.Pages = max(1, (tv.Total.Lines+timesheetPage-1)/timesheetPage)
	f.Page = min(f.Page, tv.Pages)
	q := sc.query
	q.Limit, q.Offset, q.Newest = timesheetPage, (f.Page-1)*timesheetPage, true
	lines, err := s.cfg.Costs.Costs(ctx, q)
	if err != nil {
		return err
	}
	names := memberNames(sc.People)
	for _, c := range lines {
		tv.Lines = append(tv.Lines, timesheetLine{Cost: c, Who: lineWho(c, names)})
	}
	tv.Filter, tv.CSV = f, base+"/timesheet.csv?"+f.query(0)
	if f.Page > 1 {
		tv.Prev = tv.Path + "?" + f.query(f.Page-1)
	}
	if f.Page < tv.Pages {
		tv.Next = tv.Path + "?" + f.query(f.Page+1)
	}
	if r.URL.RawQuery != "" {
		tv.ClearFilter = tv.Path
	}
	v.Title, v.Data = "Timesheet", tv
	return s.render(w, r, "timesheet.html", v)
}

// timesheetTotals fills the overall total and the totals by person,
// project and week, each a link to the timesheet narrowed to it.
func (s *Server) timesheetTotals(ctx context.Context, tv *timesheetView, f timesheetFilter) error {
	sums := map[string][]taskd.CostGroup{}
	for _, group := range []string{taskd.CostByTotal, taskd.CostByPerson, taskd.CostByProject, taskd.CostByDay} {
		g, err := s.cfg.Costs.CostSums(ctx, tv.query, group)
		if err != nil {
			return err
		}
		sums[group] = g
	}
	for _, g := range sums[taskd.CostByTotal] {
		tv.Total.Add(g.CostSum)
	}
	byPerson := func(id int64) string { n := f; n.Person = id; return tv.Path + "?" + n.query(0) }
	byProject := func(id int64) string { n := f; n.Project = id; return tv.Path + "?" + n.query(0) }
	var err error
	if tv.ByPerson, err = s.personRows(ctx, sums[taskd.CostByPerson], tv.People, byPerson); err != nil {
		return err
	}
	tv.ByProject = projectRows(sums[taskd.CostByProject], tv.Projects, byProject)
	tv.ByWeek = byWeek(sums[taskd.CostByDay], f.from, f.to)
	tv.Chart = newWeekChart(tv.ByWeek)
	return nil
}

// csvHeader is the timesheet CSV's first row.
var csvHeader = []string{"date", "person", "email", "project", "task", "comment", "hours", "time", "money", "timer"}

// timesheetCSV is GET /a/{slug}/timesheet.csv: every line of the
// timesheet's filter, oldest first, as a CSV download; 400 when more than
// taskd.MaxCostLines match.
func (s *Server) timesheetCSV(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	ctx := r.Context()
	sc, f, err := s.readTimesheet(ctx, r, v, me)
	if err != nil {
		return err
	}
	total, err := s.cfg.Costs.CostSums(ctx, sc.query, taskd.CostByTotal)
	if err != nil {
		return err
	}
	if len(total) == 1 && total[0].Lines > taskd.MaxCostLines {
		s.fail(w, r, http.StatusBadRequest, fmt.Sprintf("More than %d lines match these filters, too many for one file. Narrow the dates and download again.", taskd.MaxCostLines))
		return nil
	}
	q := sc.query
	q.Limit = taskd.MaxCostLines
	lines, err := s.cfg.Costs.Costs(ctx, q)
	if err != nil {
		return err
	}
	names := memberNames(sc.People)
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(csvHeader)
	for _, c := range lines {
		cw.Write(csvRow(c, lineWho(c, names)))
	}
	if cw.Flush(); cw.Error() != nil {
		return cw.Error()
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="timesheet-`+f.From+"-"+f.To+`.csv"`)
	_, err = w.Write(buf.Bytes())
	return err
}

// csvRow is a line as a row of csvHeader, every cell guarded by csvCell.
func csvRow(c taskd.Cost, who string) []string {
	timer := "no"
	if c.IsTimer {
		timer = "yes"
	}
	row := []string{c.Date, who, c.Person.Email, c.Task.Project.Name, c.Task.Name, c.Comment,
		decimalHours(c.Minutes), wire.FormatCostTime(c.Minutes), wire.FormatMoney(c.Cents), timer}
	for i, cell := range row {
		row[i] = csvCell(cell)
	}
	return row
}

// csvCell guards a cell against formula injection: a spreadsheet runs a
// cell starting with =, +, -, @, TAB or CR as a formula, so such a cell
// gets a leading apostrophe and is read as text.
func csvCell(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}

// decimalHours writes minutes as hours with two decimal places, rounded
// to the nearest hundredth (halves up) in integer arithmetic: 90 is
// "1.50", 1 is "0.02".
func decimalHours(minutes int64) string {
	sign := ""
	if minutes < 0 {
		sign, minutes = "-", -minutes
	}
	hundredths := (minutes*100 + 30) / 60
	return fmt.Sprintf("%s%d.%02d", sign, hundredths/100, hundredths%100)
}
