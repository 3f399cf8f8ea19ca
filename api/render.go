package api

import (
	"encoding/json"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// taskOut is the spec's Task shape plus id, and text and project where asked.
type taskOut struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Page      string            `json:"page"`
	Status    string            `json:"status"`
	Priority  string            `json:"priority"`
	UserFrom  any               `json:"user_from"` // a name (token path) or a person (admin path)
	UserTo    any               `json:"user_to"`
	FromMe    *int              `json:"from_me,omitempty"`
	ToMe      *int              `json:"to_me,omitempty"`
	DateAdded string            `json:"date_added"`
	DateStart *string           `json:"date_start,omitempty"`
	DateEnd   *string           `json:"date_end,omitempty"`
	Text      *string           `json:"text,omitempty"`
	Project   *taskd.ProjectRef `json:"project,omitempty"`
	// Tags are the task's tags, {"id": "title"}, when it has any.
	Tags tagObject `json:"tags,omitempty"`
	// MaxTime (hours) and MaxMoney are the budget, bare numbers, when set.
	MaxTime  json.Number `json:"max_time,omitempty"`
	MaxMoney json.Number `json:"max_money,omitempty"`
	// Subscribers are with extra=subscribers.
	Subscribers []taskd.PersonRef `json:"subscribers,omitzero"`
	// Hidden are who alone may see the task with its author, with
	// extra=hidden: its own list, empty when it lists nobody.
	Hidden []taskd.PersonRef `json:"hidden,omitzero"`
	// Files are the task's own files, with extra=files.
	Files []fileRef `json:"files,omitzero"`
	// Relations are the task's dependencies, with extra=relations.
	Relations *relationsOut `json:"relations,omitempty"`
	// CustomFields are the task's custom field values, with
	// extra=custom_fields and when a change set some.
	CustomFields []customValueOut `json:"custom_fields,omitzero"`
	Child        []taskOut        `json:"child,omitempty"`
}

// taskView says which optional parts a task rendering carries.
type taskView struct {
	viewer  int64 // person for from_me/to_me; 0 for admin-key calls
	text    bool
	project bool
	// subscribers, when set, are shown by task (extra=subscribers).
	subscribers map[int64][]taskd.PersonRef
	// tags are the tasks' tags, by task.
	tags map[int64][]taskd.Tag
	// files, when set, are the tasks' own files, by task (extra=files).
	files map[int64][]fileRef
	// values, when set, are the tasks' custom field values, by task.
	values map[int64][]taskd.FieldValue
	// relations, when set, are the tasks' relations (extra=relations).
	relations map[int64]taskd.TaskRelations
	// hidden, when set, are the tasks' hidden lists (extra=hidden).
	hidden map[int64][]taskd.PersonRef
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (v taskView) render(t taskd.Task) taskOut {
	out := taskOut{
		ID: strconv.FormatInt(t.ID, 10), Name: t.Name, Page: t.Page(), Status: t.Status,
		Priority: strconv.Itoa(t.Priority), UserFrom: t.Author, UserTo: t.Assignee,
		DateAdded: wire.FormatDateTime(t.DateAdded),
	}
	if v.viewer != 0 { // the token path: the interface's names with from_me/to_me
		fromMe, toMe := flag(t.Author.ID == v.viewer), flag(t.Assignee.ID == v.viewer)
		out.UserFrom, out.UserTo, out.FromMe, out.ToMe = t.Author.Name, t.Assignee.Name, &fromMe, &toMe
	}
	out.Tags = tagMap(v.tags[t.ID])
	out.MaxTime, out.MaxMoney = budget(t.MaxMinutes, t.MaxCents)
	if v.files != nil {
		out.Files = v.files[t.ID]
		if out.Files == nil {
			out.Files = []fileRef{}
		}
	}
	if v.values != nil {
		out.CustomFields = renderValues(v.values[t.ID])
	}
	if v.relations != nil {
		out.Relations = renderRelations(v.relations[t.ID])
	}
	if v.subscribers != nil {
		out.Subscribers = v.subscribers[t.ID]
		if out.Subscribers == nil {
			out.Subscribers = []taskd.PersonRef{}
		}
	}
	if v.hidden != nil {
		out.Hidden = listOf(v.hidden, t.ID)
	}
	switch {
	case t.ParentID == 0:
		out.DateStart, out.DateEnd = &t.DateStart, &t.DateEnd
	case v.viewer == 0:
		// A subtask on the administrative path: its dates when set, the
		// full form of spec/account-api.md §2.1. The token path's Task
		// shape (spec/interface.md) gives subtasks none.
		if t.DateStart != "" {
			out.DateStart = &t.DateStart
		}
		if t.DateEnd != "" {
			out.DateEnd = &t.DateEnd
		}
	}
	if v.text {
		out.Text = &t.Text
	}
	if v.project {
		out.Project = &t.Project
	}
	if len(t.Children) > 0 {
		out.Child = make([]taskOut, len(t.Children))
		for i, c := range t.Children {
			out.Child[i] = v.render(c)
		}
	}
	return out
}

func (v taskView) renderAll(tasks []taskd.Task) []taskOut {
	out := make([]taskOut, len(tasks))
	for i, t := range tasks {
		out[i] = v.render(t)
	}
	return out
}

type projectOut struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Page       string          `json:"page"`
	Status     string          `json:"status"`
	UserFrom   taskd.PersonRef `json:"user_from"`
	UserTo     taskd.PersonRef `json:"user_to"`
	Text       *string         `json:"text,omitempty"`
	DateAdded  string          `json:"date_added"`
	DateStart  string          `json:"date_start,omitempty"`
	DateEnd    string          `json:"date_end,omitempty"`
	DateClosed string          `json:"date_closed,omitempty"`
	// Company is the project's folder.
	Company string `json:"company,omitempty"`
	// Tags are the project's tags, {"id": "title"}, when it has any.
	Tags tagObject `json:"tags,omitempty"`
	// MaxTime (hours) and MaxMoney are the budget, bare numbers, when set.
	MaxTime  json.Number `json:"max_time,omitempty"`
	MaxMoney json.Number `json:"max_money,omitempty"`
	// Users is the project's team, with extra=users.
	Users []taskd.PersonRef `json:"users,omitzero"`
	// CustomFields are the project's custom field values, with
	// extra=custom_fields and when a change set some.
	CustomFields []customValueOut `json:"custom_fields,omitzero"`
	// Options are the project's options, 0/1 flags, with extra=options.
	Options *optionsOut `json:"options,omitempty"`
}

// optionsOut are the project options taskd keeps (spec §2.2), named as
// the options.* parameters, bare 0 or 1 (C23: an object, as the docs
// show).
type optionsOut struct {
	TimeRequire int `json:"time_require"`
	TimeToday   int `json:"time_today"`
	TimerOnly   int `json:"timer_only"`
}

func renderOptions(o taskd.ProjectOptions) *optionsOut {
	return &optionsOut{TimeRequire: flag(o.TimeRequire), TimeToday: flag(o.TimeToday), TimerOnly: flag(o.TimerOnly)}
}

func renderProject(p taskd.Project, withText bool) projectOut {
	out := projectOut{
		ID: strconv.FormatInt(p.ID, 10), Name: p.Name, Page: p.Page(), Status: p.Status,
		UserFrom: p.Author, UserTo: p.Manager, DateAdded: wire.FormatDateTime(p.DateAdded),
		DateStart: p.DateStart, DateEnd: p.DateEnd, Company: p.Folder,
	}
	out.MaxTime, out.MaxMoney = budget(p.MaxMinutes, p.MaxCents)
	if withText {
		out.Text = &p.Text
	}
	if !p.DateClosed.IsZero() {
		out.DateClosed = wire.FormatDateTime(p.DateClosed)
	}
	return out
}

// budget writes max_time in hours and max_money in units as bare
// numbers; "" (left out) when not set.
func budget(minutes, cents int64) (maxTime, maxMoney json.Number) {
	if minutes != 0 {
		maxTime = json.Number(wire.FormatHours(minutes))
	}
	if cents != 0 {
		maxMoney = json.Number(wire.FormatUnits(cents))
	}
	return maxTime, maxMoney
}

type commentOut struct {
	ID        string          `json:"id"`
	Page      string          `json:"page"`
	Text      string          `json:"text"`
	DateAdded string          `json:"date_added"`
	UserFrom  taskd.PersonRef `json:"user_from"`
	// Files are the comment's files, with extra=files.
	Files []fileRef `json:"files,omitzero"`
	// Hidden are who alone may see the comment with its author, with
	// extra=hidden.
	Hidden []taskd.PersonRef `json:"hidden,omitzero"`
}

func renderComment(c taskd.Comment) commentOut {
	return commentOut{ID: strconv.FormatInt(c.ID, 10), Page: c.Page(), Text: c.Text,
		DateAdded: wire.FormatDateTime(c.DateAdded), UserFrom: c.Author}
}

// renderEach renders every element of a list.
func renderEach[T, U any](list []T, render func(T) U) []U {
	out := make([]U, len(list))
	for i, v := range list {
		out[i] = render(v)
	}
	return out
}
