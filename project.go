package taskd

import (
	"strconv"
	"strings"
	"time"
)

// Project statuses.
const (
	ProjectActive  = "active"
	ProjectArchive = "archive"
)

// Project groups tasks within an account.
type Project struct {
	ID         int64
	AccountID  int64
	Name       string
	Text       string
	Status     string
	Author     PersonRef
	Manager    PersonRef // Nobody when unset
	DateAdded  time.Time
	DateStart  string
	DateEnd    string
	DateClosed time.Time
	Folder     string    // the project folder's title ("company"); "" for none
	Assignee   PersonRef // default assignee of new tasks; ID 0 when none was chosen
	// MaxMinutes and MaxCents are the project's budget (max_time,
	// max_money); 0 when not set.
	MaxMinutes int64
	MaxCents   int64
	// Options are the project's rules of logging time (spec §2.2).
	Options ProjectOptions
}

// ProjectOptions are a project's restriction options (spec §2.2,
// options.* of post_project and update_project) that taskd keeps: the
// rules of logging time. The rules they imply are CheckCostOptions and
// CheckTimeLogged; both apply to everyone, whatever their role.
type ProjectOptions struct {
	// TimeRequire: a task is completed only once time is logged on it
	// (or, for a task, on one of its subtasks).
	TimeRequire bool
	// TimeToday: time is logged by hand only on today's date, in the
	// zone of the person it is logged for.
	TimeToday bool
	// TimerOnly: time is logged only by stopping a timer, never by hand.
	TimerOnly bool
}

// OptionsInput holds the options to change; nil means "leave as is".
type OptionsInput struct {
	TimeRequire, TimeToday, TimerOnly *bool
}

// Apply sets the options the input holds.
func (in OptionsInput) Apply(o *ProjectOptions) {
	for _, f := range []struct {
		v   *bool
		dst *bool
	}{{in.TimeRequire, &o.TimeRequire}, {in.TimeToday, &o.TimeToday}, {in.TimerOnly, &o.TimerOnly}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
}

// CanSetProjectStatus reports whether p may be archived (close_project)
// or activated: a conflict (ReasonAlreadyInState) when it already has the
// status.
func CanSetProjectStatus(p Project, status string) error {
	switch {
	case p.Status != status:
		return nil
	case status == ProjectArchive:
		return Conflict(ReasonAlreadyInState, "project", "Project is already archived")
	default:
		return Conflict(ReasonAlreadyInState, "project", "Project is already active")
	}
}

// Progress is how far a project's tasks are, as one viewer sees them.
type Progress struct {
	Open, Done int
	// NextDue is the nearest due date (DateLayout) of an open task; ""
	// when none has one.
	NextDue string
}

// Percent is the share of the tasks that are done, rounded down; 0 with
// no tasks.
func (p Progress) Percent() int {
	if p.Open+p.Done == 0 {
		return 0
	}
	return p.Done * 100 / (p.Open + p.Done)
}

// ProjectPage is the page of a project, relative to the account URL (compat).
func ProjectPage(id int64) string { return "/project/" + strconv.FormatInt(id, 10) + "/" }

// Page is the project's page relative to the account URL.
func (p Project) Page() string { return ProjectPage(p.ID) }

// Ref is the short form used inside tasks and events.
func (p Project) Ref() ProjectRef { return ProjectRef{ID: p.ID, Name: p.Name} }

// ProjectRef is a project as shown inside other objects: {"id","name","page"}.
type ProjectRef struct {
	ID   int64
	Name string
}

// ProjectInput holds the fields of a project to create or change; nil means
// "leave as is". ManagerEmail is an account member's e-mail or NOONE.
type ProjectInput struct {
	Name         *string
	Text         *string
	ManagerEmail *string
	DateStart    *string // storage form, already parsed
	DateEnd      *string
	// Folder is the project folder's title, made when missing; "" takes
	// the project out of its folder.
	Folder *string
	// AssigneeEmail is the default assignee of new tasks: a member's
	// e-mail, ANY or NOONE.
	AssigneeEmail *string
	// Members, when set, is the whole project team, by e-mail.
	Members *[]string
	// Tags, when set, are the project's whole set of tags (ids or exact
	// titles).
	Tags *[]string
	// MaxMinutes and MaxCents set the budget; 0 clears it.
	MaxMinutes *int64
	MaxCents   *int64
	// Options sets the options given.
	Options OptionsInput
	// Files are uploads of the author's, not attached yet, to attach to
	// the new project in the same transaction (on creation).
	Files []int64
	// Fields are values of the account's custom fields of projects, as
	// TaskInput.Fields.
	Fields map[int64]string
	// Import, set by an import only, is recorded with the new project in
	// its transaction (ImportRecord); a change ignores it.
	Import *ImportRecord
}

// MaxNameLen and MaxTextLen bound names and texts, in bytes.
const (
	MaxNameLen = 500
	MaxTextLen = 100_000
)

// CleanName trims a name and checks it is present and not too long.
func CleanName(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Required(field)
	}
	if len(s) > MaxNameLen {
		return "", Invalid(field, "Value is longer than %d bytes", MaxNameLen)
	}
	return s, nil
}

// CheckText checks the length of a free text.
func CheckText(field, s string) error {
	if len(s) > MaxTextLen {
		return Invalid(field, "Value is longer than %d bytes", MaxTextLen)
	}
	return nil
}
