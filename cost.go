package taskd

import (
	"context"
	"strings"
	"time"
)

// Cost is a line of time and money logged on a task (spec §8): exact
// minutes and minor currency units, by one person, on one day.
type Cost struct {
	ID        int64
	AccountID int64
	ProjectID int64
	TaskID    int64
	Person    PersonRef
	Minutes   int64
	Cents     int64
	Comment   string
	Date      string // YYYY-MM-DD
	IsTimer   bool   // recorded by stopping a timer
	Added     time.Time
	Task      Task // the task, with its project's name
}

// CostInput holds the fields of a cost line to add or change; nil means
// "leave as is".
type CostInput struct {
	Minutes *int64
	Cents   *int64
	Comment *string
	Date    *string // YYYY-MM-DD
	// ByRate computes the money from the person's hourly rate and the
	// time (is_rate=1); Cents is then ignored.
	ByRate bool
	// Import, set by an import only, is recorded with the new line in
	// its transaction (ImportRecord); a change ignores it.
	Import *ImportRecord
}

// MaxCostComment bounds a cost line's comment, in bytes.
const MaxCostComment = 2000

// CleanCostComment trims a comment and checks its length.
func CleanCostComment(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) > MaxCostComment {
		return "", Invalid("comment", "A comment is at most %d bytes", MaxCostComment)
	}
	return s, nil
}

// CheckCostAmounts refuses a line with neither time nor money.
func CheckCostAmounts(minutes, cents int64) error {
	if minutes == 0 && cents == 0 {
		return Required("time")
	}
	return nil
}

// CanLogCost reports whether costs may be logged on t in p: not in an
// archived project. Closed tasks take costs: time is often logged after
// the work is done.
func CanLogCost(p Project) error {
	if p.Status != ProjectActive {
		return Conflict(ReasonProjectArchived, "project", "Project is archived")
	}
	return nil
}

// CheckCostOptions returns nil when the options of p let c be logged by
// hand: added (old nil) or changed from old. today is the date
// (DateLayout) in the zone of the line's person. The options concern time:
// a line of money alone passes them, and so does a line that keeps its
// time and date (a new comment on yesterday's line). Lines recorded by
// stopping a timer are not checked: that time was worked.
//
//   - TimerOnly refuses time given by hand (field "time").
//   - TimeToday refuses time on another date than today (field "date").
func CheckCostOptions(p Project, old *Cost, c Cost, today string) error {
	if c.Minutes == 0 {
		return nil
	}
	timeChanged := old == nil || old.Minutes != c.Minutes
	if p.Options.TimerOnly && timeChanged {
		return Invalid("time", "This project takes time only from the timer: start the timer on the task, and stop it when done")
	}
	if p.Options.TimeToday && c.Date != today && (timeChanged || old.Date != c.Date) {
		return Invalid("date", "This project takes time for today (%s) only", today)
	}
	return nil
}

// CheckTimeLogged returns nil when a task of p with minutes of time
// logged (its own lines and, for a task, its subtasks') may be completed:
// with TimeRequire, only once some time is logged, by anyone. A conflict
// naming "time" otherwise.
func CheckTimeLogged(p Project, minutes int64) error {
	if p.Options.TimeRequire && minutes <= 0 {
		return Conflict(ReasonTimeRequired, "time", "This project needs time logged on a task before it is done: log time on it first")
	}
	return nil
}

// CanChangeCost returns nil when by may change or delete c: the person
// who logged it, or a member who may moderate (owners and admins). Costs
// follow the rule of comments.
func CanChangeCost(by Actor, c Cost) error {
	if by.AccountID != c.AccountID {
		return NotFound("cost")
	}
	if c.Person.ID == by.Person.ID && by.Role.Can(PermWork) {
		return nil
	}
	if by.Role.Can(PermModerate) {
		return nil
	}
	return Forbidden("cost", "Only the person who logged a cost line, an admin or the owner may change it")
}

// Time and money of cost lines are kept exactly: time in whole minutes,
// money in minor units (cents). Neither is ever a float, so totals of any
// number of lines carry no rounding drift.

// Bounds of one cost line.
const (
	MaxCostMinutes = 10_000 * 60      // 10,000 hours
	MaxCostCents   = 1_000_000_000_00 // one billion
	// MaxBudgetMinutes bounds max_time: a million hours.
	MaxBudgetMinutes = 1_000_000 * 60
	// MaxRateCents bounds an hourly rate: a million per hour.
	MaxRateCents = 1_000_000_00
)

// RateMoney is the money of minutes at an hourly rate in minor units,
// rounded to the nearest minor unit (halves up).
func RateMoney(rate, minutes int64) int64 {
	const minutesPerHour = 60
	return (rate*minutes + minutesPerHour/2) / minutesPerHour
}

// CostQuery selects cost lines of one account. Zero fields do not filter.
type CostQuery struct {
	// Viewer is who the lines are for: only those of tasks they see.
	Viewer    Viewer
	ProjectID int64
	// TaskID keeps the lines of the task and of its whole subtree.
	TaskID   int64
	PersonID int64
	From, To string // YYYY-MM-DD, both inclusive
	IsTimer  *bool
	// Filter, when set, is a parsed filter of the costs' query language
	// (filter.ParseCosts).
	Filter Query
	// Limit is how many lines at most, taken as given;
	// MaxCostLines when zero.
	Limit  int
	Offset int
	// Newest lists the newest lines first.
	Newest bool
}

// MaxCostLines bounds one list of cost lines.
const MaxCostLines = 10_000

// CostSum is the time and money of a group of lines.
type CostSum struct {
	Minutes, Cents int64
	Lines          int
}

// Add adds another sum.
func (s *CostSum) Add(o CostSum) {
	s.Minutes += o.Minutes
	s.Cents += o.Cents
	s.Lines += o.Lines
}

// The groups CostSums totals lines by.
const (
	CostByTotal        = ""
	CostByProject      = "project"
	CostByProjectMonth = "project month"
	CostByPerson       = "person"
	CostByDay          = "day"
	CostByTask         = "task"
	CostByTopTask      = "top task" // subtasks and sub-subtasks folded into their top-level task
)

// CostGroup is one group of CostSums: its key and its sum.
type CostGroup struct {
	ID  int64  // project, person or task
	Day string // YYYY-MM-DD, or YYYY-MM for months
	CostSum
}

// Timer is a person's running timer on a task: a start time in the
// database, so it survives restarts. A person has at most one per account.
type Timer struct {
	ID        int64
	AccountID int64
	Person    PersonRef
	Started   time.Time
	Task      Task
}

// Elapsed is the timer's running time at now, never negative.
func (t Timer) Elapsed(now time.Time) time.Duration { return max(now.Sub(t.Started), 0) }

// TimerMinutes is the time a timer stopped after d records: to the
// nearest minute (halves up), at least one, at most MaxCostMinutes.
func TimerMinutes(d time.Duration) int64 {
	m := int64((d + 30*time.Second) / time.Minute)
	return min(max(m, 1), MaxCostMinutes)
}

// CanStartTimer reports whether a timer may run on t in p: an active task
// of an active project.
func CanStartTimer(p Project, t Task) error {
	if err := CanLogCost(p); err != nil {
		return err
	}
	if t.Status == StatusDone {
		return Conflict(ReasonTaskClosed, "task", "Task is closed")
	}
	return nil
}

// CostStore keeps cost lines and timers.
type CostStore interface {
	Costs(ctx context.Context, q CostQuery) ([]Cost, error)
	// Cost is not found ("cost") unless the viewer sees its task.
	Cost(ctx context.Context, v Viewer, id int64) (Cost, error)
	// CostSums totals the query's lines by group (a CostBy constant).
	CostSums(ctx context.Context, q CostQuery, group string) ([]CostGroup, error)
	AddCost(ctx context.Context, by Actor, taskID int64, in CostInput) (Cost, error)
	UpdateCost(ctx context.Context, by Actor, id int64, in CostInput) (Cost, error)
	DeleteCost(ctx context.Context, by Actor, id int64) error
	// SetRate sets a member's hourly rate in minor units (nil: none),
	// which is_rate prices time at; managing people allows it.
	SetRate(ctx context.Context, by Actor, personID int64, rate *int64) error

	// Timers lists the running timers on tasks the viewer sees, oldest
	// first.
	Timers(ctx context.Context, v Viewer) ([]Timer, error)
	// TimerOf is the person's running timer; not found ("timer") when none.
	TimerOf(ctx context.Context, accountID, personID int64) (Timer, error)
	// StartTimer starts by's timer on a task. A timer already running on
	// the same task is left running; one on another task is stopped first
	// and its time recorded, which is returned.
	StartTimer(ctx context.Context, by Actor, taskID int64, zone *time.Location) (Timer, *Cost, error)
	// StopTimer stops a timer (by id; 0: by's own) and records its time as
	// a cost line dated the day it started in zone.
	StopTimer(ctx context.Context, by Actor, timerID int64, comment string, zone *time.Location) (Cost, error)
	// DeleteTimer discards by's timer without recording it.
	DeleteTimer(ctx context.Context, by Actor) error
}
