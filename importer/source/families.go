package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/taskd/taskd"
)

// ---- people, teams, contacts, folders ----

type wireUser struct {
	ID         flexString `json:"id"`
	FirstName  flexString `json:"first_name"`
	LastName   flexString `json:"last_name"`
	Name       flexString `json:"name"`
	Title      flexString `json:"title"`
	Group      flexString `json:"group"`
	Department flexString `json:"department"`
	Role       flexString `json:"role"`
	Email      flexString `json:"email"`
	Phone      flexString `json:"phone"`
	Phone2     flexString `json:"phone2"`
	Phone3     flexString `json:"phone3"`
	Phone4     flexString `json:"phone4"`
	Address    flexString `json:"address"`
	Address2   flexString `json:"address2"`
	Contacts   flexString `json:"contacts"`
	Rate       flexString `json:"rate"`
	DateAdded  flexString `json:"date_added"`
	DataAdded  flexString `json:"data_added"` // the docs' misspelling (C27)
}

func convUser(w wireUser) (User, error) {
	var n notes
	l := func(f string, v flexString) string { return n.line(f, v, taskd.MaxTitleLen) }
	u := User{FirstName: l("first_name", w.FirstName), LastName: l("last_name", w.LastName), Name: l("name", w.Name),
		Title: l("title", w.Title), Group: l("group", w.Group), Department: l("department", w.Department),
		Role: strings.ToLower(l("role", w.Role)), Email: n.email("email", w.Email),
		Phone: l("phone", w.Phone), Phone2: l("phone2", w.Phone2), Phone3: l("phone3", w.Phone3), Phone4: l("phone4", w.Phone4),
		Address: l("address", w.Address), Address2: l("address2", w.Address2), Contacts: n.text("contacts", w.Contacts, taskd.MaxTitleLen)}
	var err error
	if u.ID, err = id("id", w.ID); err != nil {
		return u, err
	}
	if w.Rate != "" {
		cents, err := decimal("rate", w.Rate, 100, taskd.MaxRateCents)
		if err != nil {
			return u, err
		}
		u.Rate = fmt.Sprintf("%d.%02d", cents/100, cents%100)
	}
	added := w.DateAdded
	if added == "" {
		added = w.DataAdded
	}
	if u.Added, err = dateTime("date_added", added); err != nil {
		return u, err
	}
	u.Notes = n
	return u, nil
}

func convContact(w wireUser) (Contact, error) {
	u, err := convUser(wireUser{ID: w.ID, FirstName: w.FirstName, LastName: w.LastName, Name: w.Name, Title: w.Title, Group: w.Group,
		Email: w.Email, Phone: w.Phone, Phone2: w.Phone2, Phone3: w.Phone3, Phone4: w.Phone4, Address: w.Address, Address2: w.Address2,
		DateAdded: w.DateAdded, DataAdded: w.DataAdded})
	return Contact{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName, Name: u.Name, Title: u.Title, Group: u.Group, Email: u.Email,
		Phone: u.Phone, Phone2: u.Phone2, Phone3: u.Phone3, Phone4: u.Phone4, Address: u.Address, Address2: u.Address2, Added: u.Added, Notes: u.Notes}, err
}

type wireGroup struct {
	ID     flexString `json:"id"`
	Title  flexString `json:"title"`
	Name   flexString `json:"name"`
	Type   flexString `json:"type"`
	Access flexString `json:"access"`
	Client flexString `json:"client"`
}

func convFolder(w wireGroup) (Folder, error) {
	var n notes
	f := Folder{Title: n.line("title", w.Title, taskd.MaxTitleLen), Type: oneLine(string(w.Type), 32)}
	if f.Title == "" {
		f.Title = n.line("name", w.Name, taskd.MaxTitleLen)
	}
	var err error
	if f.ID, err = id("id", w.ID); err != nil {
		return f, err
	}
	if f.Client, err = flag("client", w.Client); err != nil {
		return f, err
	}
	if f.Title == "" {
		return f, fmt.Errorf("group %s has no title", f.ID)
	}
	return f, nil
}

func convTeam(w wireGroup) (Team, error) {
	f, err := convFolder(w)
	return Team(f), err
}

func convTagGroup(w wireGroup) (TagGroup, error) {
	f, err := convFolder(wireGroup{ID: w.ID, Title: w.Title, Name: w.Name})
	if err != nil {
		return TagGroup{}, err
	}
	g := TagGroup{ID: f.ID, Title: f.Title, Type: strings.ToLower(oneLine(string(w.Type), 16)), Access: strings.ToLower(oneLine(string(w.Access), 16))}
	if g.Type == "" {
		g.Type = "label"
	}
	if g.Access == "" {
		g.Access = "public"
	}
	if g.Type != "status" && g.Type != "label" {
		return g, fmt.Errorf("tag group %s: type %q is neither status nor label", g.ID, g.Type)
	}
	if g.Access != "public" && g.Access != "private" {
		return g, fmt.Errorf("tag group %s: access %q is neither public nor private", g.ID, g.Access)
	}
	return g, nil
}

type wireTag struct {
	ID    flexString      `json:"id"`
	Title flexString      `json:"title"`
	Name  flexString      `json:"name"`
	Group json.RawMessage `json:"group"`
}

func convTag(w wireTag) (Tag, error) {
	var n notes
	t := Tag{Title: n.line("title", w.Title, taskd.MaxTitleLen)}
	if t.Title == "" {
		t.Title = n.line("name", w.Name, taskd.MaxTitleLen)
	}
	var err error
	if t.ID, err = id("id", w.ID); err != nil {
		return t, err
	}
	g := bytes.TrimSpace(w.Group)
	switch {
	case len(g) > 0 && g[0] == '{':
		var wg wireGroup
		if err := json.Unmarshal(g, &wg); err != nil {
			return t, errors.New("group: not a tag group")
		}
		if t.Group, err = convTagGroup(wg); err != nil {
			return t, err
		}
	case len(g) > 0 && string(g) != "null":
		// The Python model's group is a string (C26): its title.
		var s flexString
		if err := json.Unmarshal(g, &s); err != nil {
			return t, errors.New("group: not a tag group")
		}
		t.Group = TagGroup{Title: n.line("group", s, taskd.MaxTitleLen)}
	}
	if t.Title == "" {
		return t, fmt.Errorf("tag %s has no title", t.ID)
	}
	return t, nil
}

// Users reads the account's members (get_users).
func (c *Client) Users(ctx context.Context) ([]User, error) {
	var out []User
	err := c.call(ctx, "get_users", nil, func(r *reading) (err error) {
		out, err = list(r, "users", convUser)
		return err
	})
	return out, err
}

// Teams reads the teams of people (get_user_groups).
func (c *Client) Teams(ctx context.Context) ([]Team, error) {
	var out []Team
	err := c.call(ctx, "get_user_groups", nil, func(r *reading) (err error) {
		out, err = list(r, "teams", convTeam)
		return err
	})
	return out, err
}

// Contacts reads the contacts (get_contacts).
func (c *Client) Contacts(ctx context.Context) ([]Contact, error) {
	var out []Contact
	err := c.call(ctx, "get_contacts", nil, func(r *reading) (err error) {
		out, err = list(r, "contacts", convContact)
		return err
	})
	return out, err
}

// ContactFolders reads the contact folders (get_contact_groups).
func (c *Client) ContactFolders(ctx context.Context) ([]Folder, error) {
	return c.folders(ctx, "get_contact_groups")
}

// ProjectFolders reads the project folders (get_project_groups).
func (c *Client) ProjectFolders(ctx context.Context) ([]Folder, error) {
	return c.folders(ctx, "get_project_groups")
}

func (c *Client) folders(ctx context.Context, action string) ([]Folder, error) {
	var out []Folder
	err := c.call(ctx, action, nil, func(r *reading) (err error) {
		out, err = list(r, "folders", convFolder)
		return err
	})
	return out, err
}

func (k TagKind) valid() error {
	if k != TaskTags && k != ProjectTags {
		return fmt.Errorf("source: tag kind %q is neither task nor project", string(k))
	}
	return nil
}

// TagGroups reads the tag groups of tasks or of projects, in their order
// (get_task_tag_groups, get_project_tag_groups).
func (c *Client) TagGroups(ctx context.Context, kind TagKind) ([]TagGroup, error) {
	if err := kind.valid(); err != nil {
		return nil, err
	}
	var out []TagGroup
	err := c.call(ctx, "get_"+string(kind)+"_tag_groups", nil, func(r *reading) (err error) {
		out, err = list(r, "tag groups", convTagGroup)
		return err
	})
	return out, err
}

// Tags reads the tags of tasks or of projects with their groups, in their
// order (get_task_tags, get_project_tags).
func (c *Client) Tags(ctx context.Context, kind TagKind) ([]Tag, error) {
	if err := kind.valid(); err != nil {
		return nil, err
	}
	var out []Tag
	err := c.call(ctx, "get_"+string(kind)+"_tags", nil, func(r *reading) (err error) {
		out, err = list(r, "tags", convTag)
		return err
	})
	return out, err
}

// ---- projects ----

type wireProject struct {
	ID         flexString      `json:"id"`
	Name       flexString      `json:"name"`
	Page       flexString      `json:"page"`
	Status     flexString      `json:"status"`
	UserFrom   wirePerson      `json:"user_from"`
	UserTo     wirePerson      `json:"user_to"`
	Text       flexString      `json:"text"`
	DateAdded  flexString      `json:"date_added"`
	DateStart  flexString      `json:"date_start"`
	DateEnd    flexString      `json:"date_end"`
	DateClosed flexString      `json:"date_closed"`
	Company    flexString      `json:"company"`
	MaxTime    flexString      `json:"max_time"`
	MaxMoney   flexString      `json:"max_money"`
	Tags       json.RawMessage `json:"tags"`
	Options    json.RawMessage `json:"options"`
	Users      json.RawMessage `json:"users"`
}

func convProject(w wireProject) (Project, error) {
	var n notes
	p := Project{Name: n.line("name", w.Name, taskd.MaxNameLen), Page: oneLine(string(w.Page), 300),
		Status: strings.ToLower(oneLine(string(w.Status), 16)), Text: n.text("text", w.Text, taskd.MaxTextLen),
		Folder: n.line("company", w.Company, taskd.MaxTitleLen)}
	var err error
	if p.ID, err = id("id", w.ID); err != nil {
		return p, err
	}
	wrap := func(err error) error { return fmt.Errorf("project %s: %w", p.ID, err) }
	switch p.Status {
	case "", "active":
		p.Status = "active"
	case "archive", "archived", "closed":
		p.Status = "archive"
	case "pending":
	default:
		return p, wrap(fmt.Errorf("status %q is not a project's", p.Status))
	}
	if p.Author, err = n.person("user_from", w.UserFrom); err != nil {
		return p, wrap(err)
	}
	if p.Manager, err = n.person("user_to", w.UserTo); err != nil {
		return p, wrap(err)
	}
	if p.Added, err = dateTime("date_added", w.DateAdded); err != nil {
		return p, wrap(err)
	}
	if p.Start, err = date("date_start", w.DateStart); err != nil {
		return p, wrap(err)
	}
	if p.End, err = date("date_end", w.DateEnd); err != nil {
		return p, wrap(err)
	}
	if p.Closed, err = dateTime("date_closed", w.DateClosed); err != nil {
		return p, wrap(err)
	}
	if p.MaxMinutes, err = hours("max_time", w.MaxTime, taskd.MaxBudgetMinutes); err != nil {
		return p, wrap(err)
	}
	if p.MaxCents, err = decimal("max_money", w.MaxMoney, 100, taskd.MaxCostCents); err != nil {
		return p, wrap(err)
	}
	if p.Tags, err = n.tags(w.Tags); err != nil {
		return p, wrap(err)
	}
	if p.Options, err = options(w.Options); err != nil {
		return p, wrap(err)
	}
	if p.Members, _, err = n.people("users", w.Users); err != nil {
		return p, wrap(err)
	}
	if p.Name == "" {
		p.Name = "Project " + p.ID
		n.add("name was empty")
	}
	p.Notes = n
	return p, nil
}

// projectExtra is what get_projects and get_project are asked to add.
const projectExtra = "text,options,users"

// Projects reads every project with its text, options and team
// (get_projects, extra=text,options,users). Whether a list without filter
// holds archived projects is not shown for Worksection, so a second call
// with filter=archive is merged in by id.
func (c *Client) Projects(ctx context.Context) ([]Project, error) {
	var all, archived []Project
	read := func(dst *[]Project) dataFunc {
		return func(r *reading) (err error) {
			*dst, err = list(r, "projects", convProject)
			return err
		}
	}
	if err := c.call(ctx, "get_projects", []param{{"extra", projectExtra}}, read(&all)); err != nil {
		return nil, err
	}
	if err := c.call(ctx, "get_projects", []param{{"filter", "archive"}, {"extra", projectExtra}}, read(&archived)); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(all))
	for _, p := range all {
		seen[p.ID] = true
	}
	for _, p := range archived {
		if !seen[p.ID] {
			seen[p.ID] = true
			all = append(all, p)
		}
	}
	return all, nil
}

// Project reads one project (get_project).
func (c *Client) Project(ctx context.Context, projectID string) (Project, error) {
	var out Project
	err := c.call(ctx, "get_project", []param{{"id_project", projectID}, {"extra", projectExtra}}, func(r *reading) (err error) {
		if out, err = one(r, "project", convProject); err != nil {
			return err
		}
		return r.keep(weigh(out))
	})
	return out, err
}

// ---- tasks ----

type wireTask struct {
	ID          flexString      `json:"id"`
	Name        flexString      `json:"name"`
	Page        flexString      `json:"page"`
	Status      flexString      `json:"status"`
	Priority    flexString      `json:"priority"`
	UserFrom    wirePerson      `json:"user_from"`
	UserTo      wirePerson      `json:"user_to"`
	Project     json.RawMessage `json:"project"`
	Parent      json.RawMessage `json:"parent"`
	IDParent    flexString      `json:"id_parent"`
	Text        flexString      `json:"text"`
	DateAdded   flexString      `json:"date_added"`
	DateStart   flexString      `json:"date_start"`
	DateEnd     flexString      `json:"date_end"`
	DateClosed  flexString      `json:"date_closed"`
	TimeEnd     flexString      `json:"time_end"`
	MaxTime     flexString      `json:"max_time"`
	MaxMoney    flexString      `json:"max_money"`
	Tags        json.RawMessage `json:"tags"`
	Files       json.RawMessage `json:"files"`
	Subscribers json.RawMessage `json:"subscribers"`
	Hidden      json.RawMessage `json:"hidden"`
	Relations   json.RawMessage `json:"relations"`
	Child       json.RawMessage `json:"child"`
}

// refID reads an id given bare or as an object with "id".
func refID(field string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var v flexString
	if raw[0] == '{' {
		var o struct {
			ID flexString `json:"id"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return "", fmt.Errorf("%s: not a reference", field)
		}
		v = o.ID
	} else if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("%s: not a reference", field)
	}
	return optID(field, v)
}

func relations(raw json.RawMessage) (from, to []Relation, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "[]" {
		return nil, nil, nil
	}
	var w struct {
		From []struct {
			Type flexString      `json:"type"`
			Task json.RawMessage `json:"task"`
		} `json:"from"`
		To []struct {
			Type flexString      `json:"type"`
			Task json.RawMessage `json:"task"`
		} `json:"to"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, errors.New("relations: not {from, to}")
	}
	conv := func(t flexString, task json.RawMessage) (Relation, error) {
		r := Relation{Type: strings.ToLower(oneLine(string(t), 32))}
		if r.Type == "" {
			r.Type = "finish-to-start"
		}
		if r.Type != "finish-to-start" && r.Type != "start-to-start" {
			return r, fmt.Errorf("relations: type %q is not known", r.Type)
		}
		var err error
		if r.Task, err = refID("relations task", task); err == nil && r.Task == "" {
			err = errors.New("relations: a relation names no task")
		}
		return r, err
	}
	for _, e := range w.From {
		r, err := conv(e.Type, e.Task)
		if err != nil {
			return nil, nil, err
		}
		from = append(from, r)
	}
	for _, e := range w.To {
		r, err := conv(e.Type, e.Task)
		if err != nil {
			return nil, nil, err
		}
		to = append(to, r)
	}
	return from, to, nil
}

// convTask converts a task and, below it, its subtasks, each kept against
// r's bounds as it is converted; level is 1 for a top-level task. Deeper
// than taskd.MaxLevels is refused.
func convTask(w wireTask, projectID, parentID string, level int, r *reading) (Task, error) {
	var n notes
	t := Task{Name: n.line("name", w.Name, taskd.MaxNameLen), Page: oneLine(string(w.Page), 300), Level: level,
		Status: strings.ToLower(oneLine(string(w.Status), 16)), Text: n.text("text", w.Text, taskd.MaxTextLen)}
	var err error
	if t.ID, err = id("id", w.ID); err != nil {
		return t, err
	}
	wrap := func(err error) error { return fmt.Errorf("task %s: %w", t.ID, err) }
	if level > taskd.MaxLevels {
		return t, wrap(fmt.Errorf("tasks nest deeper than %d levels", taskd.MaxLevels))
	}
	switch t.Status {
	case "", "active", "open":
		t.Status = "active"
	case "done", "closed", "completed":
		t.Status = "done"
	default:
		return t, wrap(fmt.Errorf("status %q is not a task's", t.Status))
	}
	if p := strings.TrimSpace(string(w.Priority)); p == "" {
		t.Priority = 1
	} else if _, err := fmt.Sscanf(p, "%d", &t.Priority); err != nil || fmt.Sprint(t.Priority) != p || t.Priority < 0 || t.Priority > taskd.MaxPriority {
		return t, wrap(fmt.Errorf("priority %q is not 0..%d", cut(p, 20), taskd.MaxPriority))
	}
	if t.ProjectID, err = refID("project", w.Project); err != nil {
		return t, wrap(err)
	}
	if t.ProjectID == "" {
		t.ProjectID = projectID
	}
	t.ParentID = parentID
	if parentID == "" && level == 1 {
		// get_task names a subtask's parent; a list's nesting says it.
		if t.ParentID, err = refID("parent", w.Parent); err != nil {
			return t, wrap(err)
		}
		if t.ParentID == "" {
			if t.ParentID, err = optID("id_parent", w.IDParent); err != nil {
				return t, wrap(err)
			}
		}
	}
	if t.Author, err = n.person("user_from", w.UserFrom); err != nil {
		return t, wrap(err)
	}
	if t.Assignee, err = n.person("user_to", w.UserTo); err != nil {
		return t, wrap(err)
	}
	if t.Added, err = dateTime("date_added", w.DateAdded); err != nil {
		return t, wrap(err)
	}
	if t.Start, err = date("date_start", w.DateStart); err != nil {
		return t, wrap(err)
	}
	if t.End, err = date("date_end", w.DateEnd); err != nil {
		return t, wrap(err)
	}
	if t.Closed, err = dateTime("date_closed", w.DateClosed); err != nil {
		return t, wrap(err)
	}
	if t.TimeEnd, err = hhmm("time_end", w.TimeEnd); err != nil {
		return t, wrap(err)
	}
	if t.MaxMinutes, err = hours("max_time", w.MaxTime, taskd.MaxBudgetMinutes); err != nil {
		return t, wrap(err)
	}
	if t.MaxCents, err = decimal("max_money", w.MaxMoney, 100, taskd.MaxCostCents); err != nil {
		return t, wrap(err)
	}
	if t.Tags, err = n.tags(w.Tags); err != nil {
		return t, wrap(err)
	}
	if t.Files, err = n.files(w.Files); err != nil {
		return t, wrap(err)
	}
	if t.Subscribers, _, err = n.people("subscribers", w.Subscribers); err != nil {
		return t, wrap(err)
	}
	if t.Hidden, t.HiddenKnown, err = n.people("hidden", w.Hidden); err != nil {
		return t, wrap(err)
	}
	if t.From, t.To, err = relations(w.Relations); err != nil {
		return t, wrap(err)
	}
	if t.Name == "" {
		t.Name = "Task " + t.ID
		n.add("name was empty")
	}
	t.Notes = n
	if err := r.keep(weigh(t)); err != nil { // its subtasks, each as it comes
		return t, err
	}
	if c := bytes.TrimSpace(w.Child); len(c) > 0 {
		if t.Children, err = convTasks(r, json.NewDecoder(bytes.NewReader(c)), t.ProjectID, t.ID, level+1); err != nil {
			return t, err
		}
	}
	return t, nil
}

// convTasks converts the list of tasks dec is at (null is none), each as
// it is read, with its subtasks (convTask).
func convTasks(r *reading, dec *json.Decoder, projectID, parentID string, level int) ([]Task, error) {
	var out []Task
	err := each(dec, "tasks", func(int) error {
		var w wireTask
		if err := dec.Decode(&w); err != nil {
			return decodeErr("tasks", err)
		}
		t, err := convTask(w, projectID, parentID, level, r)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// taskExtra is what the task reads ask for: plain text, files, subscribers,
// relations, (Worksection needs the word; taskd always nests) subtasks,
// and hidden lists (taskd's extension, issue 36; Worksection ignores an
// extra it does not know).
const taskExtra = "text,files,subscribers,relations,subtasks,hidden"

// Tasks reads a project's tasks as trees (get_tasks, extra=text,files,
// subscribers,relations,subtasks,hidden), open and done.
func (c *Client) Tasks(ctx context.Context, projectID string) ([]Task, error) {
	var out []Task
	err := c.call(ctx, "get_tasks", []param{{"id_project", projectID}, {"extra", taskExtra}}, func(r *reading) (err error) {
		out, err = convTasks(r, r.dec, projectID, "", 1)
		return err
	})
	return out, err
}

// Task reads one task or subtask with its subtasks (get_task). Its Level is
// 1 and its ParentID the source's parent, where the answer names it.
func (c *Client) Task(ctx context.Context, taskID string) (Task, error) {
	var out Task
	err := c.call(ctx, "get_task", []param{{"id_task", taskID}, {"extra", taskExtra}}, func(r *reading) (err error) {
		out, err = one(r, "task", func(w wireTask) (Task, error) { return convTask(w, "", "", 1, r) })
		return err
	})
	return out, err
}

// Walk calls fn on every task of the trees, each before its subtasks.
func Walk(tasks []Task, fn func(*Task)) {
	for i := range tasks {
		fn(&tasks[i])
		Walk(tasks[i].Children, fn)
	}
}

// ---- comments ----

type wireComment struct {
	ID        flexString      `json:"id"`
	Page      flexString      `json:"page"`
	Text      flexString      `json:"text"`
	DateAdded flexString      `json:"date_added"`
	UserFrom  wirePerson      `json:"user_from"`
	Files     json.RawMessage `json:"files"`
	Hidden    json.RawMessage `json:"hidden"`
}

func convComment(w wireComment) (Comment, error) {
	var n notes
	cm := Comment{Page: oneLine(string(w.Page), 300), Text: n.text("text", w.Text, taskd.MaxTextLen)}
	var err error
	if cm.ID, err = id("id", w.ID); err != nil {
		return cm, err
	}
	wrap := func(err error) error { return fmt.Errorf("comment %s: %w", cm.ID, err) }
	if cm.Added, err = dateTime("date_added", w.DateAdded); err != nil {
		return cm, wrap(err)
	}
	if cm.Author, err = n.person("user_from", w.UserFrom); err != nil {
		return cm, wrap(err)
	}
	if cm.Files, err = n.files(w.Files); err != nil {
		return cm, wrap(err)
	}
	if cm.Hidden, cm.HiddenKnown, err = n.people("hidden", w.Hidden); err != nil {
		return cm, wrap(err)
	}
	cm.Notes = n
	return cm, nil
}

// Comments reads a task's comments, oldest first, with their files and,
// from a taskd, their hidden lists (get_comments, extra=files,hidden).
func (c *Client) Comments(ctx context.Context, taskID string) ([]Comment, error) {
	var out []Comment
	err := c.call(ctx, "get_comments", []param{{"id_task", taskID}, {"extra", "files,hidden"}}, func(r *reading) (err error) {
		out, err = list(r, "comments", convComment)
		for i := range out {
			out[i].TaskID = taskID
		}
		return err
	})
	return out, err
}

// ---- costs ----

type wireCost struct {
	ID       flexString      `json:"id"`
	Comment  flexString      `json:"comment"`
	Time     flexString      `json:"time"`
	Money    flexString      `json:"money"`
	Date     flexString      `json:"date"`
	IsTimer  flexString      `json:"is_timer"`
	UserFrom wirePerson      `json:"user_from"`
	Task     json.RawMessage `json:"task"`
}

func convCost(w wireCost) (Cost, error) {
	var n notes
	c := Cost{Comment: n.text("comment", w.Comment, taskd.MaxCostComment)}
	var err error
	if c.ID, err = id("id", w.ID); err != nil {
		return c, err
	}
	wrap := func(err error) error { return fmt.Errorf("cost line %s: %w", c.ID, err) }
	if c.Minutes, err = hours("time", w.Time, taskd.MaxCostMinutes); err != nil {
		return c, wrap(err)
	}
	if c.Cents, err = decimal("money", w.Money, 100, taskd.MaxCostCents); err != nil {
		return c, wrap(err)
	}
	if c.Date, err = date("date", w.Date); err != nil {
		return c, wrap(err)
	}
	if c.IsTimer, err = flag("is_timer", w.IsTimer); err != nil {
		return c, wrap(err)
	}
	if c.Author, err = n.person("user_from", w.UserFrom); err != nil {
		return c, wrap(err)
	}
	if tb := bytes.TrimSpace(w.Task); len(tb) > 0 && tb[0] == '{' {
		var wt struct {
			ID      flexString      `json:"id"`
			Project json.RawMessage `json:"project"`
		}
		if err := json.Unmarshal(tb, &wt); err != nil {
			return c, wrap(errors.New("task: not a task"))
		}
		if c.TaskID, err = optID("task.id", wt.ID); err != nil {
			return c, wrap(err)
		}
		if c.ProjectID, err = refID("task.project", wt.Project); err != nil {
			return c, wrap(err)
		}
	} else if c.TaskID, err = refID("task", w.Task); err != nil {
		return c, wrap(err)
	}
	c.Notes = n
	return c, nil
}

// CostQuery narrows Costs; the zero value is every line of the account.
type CostQuery struct {
	ProjectID, TaskID string
	From, To          string // DD.MM.YYYY or YYYY-MM-DD, both included
}

// Costs reads cost lines (get_costs). taskd refuses more than
// taskd.MaxCostLines matching lines (code 11): ProjectCosts narrows then.
func (c *Client) Costs(ctx context.Context, q CostQuery) ([]Cost, error) {
	var ps []param
	for _, p := range []param{{"id_project", q.ProjectID}, {"id_task", q.TaskID}, {"datestart", q.From}, {"dateend", q.To}} {
		if p.v != "" {
			ps = append(ps, p)
		}
	}
	var out []Cost
	err := c.call(ctx, "get_costs", ps, func(r *reading) (err error) {
		out, err = list(r, "costs", convCost)
		return err
	})
	if err == nil {
		for i := range out {
			if out[i].ProjectID == "" {
				out[i].ProjectID = q.ProjectID
			}
			if out[i].TaskID == "" {
				out[i].TaskID = q.TaskID
			}
		}
	}
	return out, err
}

// ProjectCosts reads a project's cost lines; when the source refuses that
// many at once (code 11), it reads them per top-level task of tasks (each
// with its subtasks' lines), the project's tasks read then when tasks is
// nil.
func (c *Client) ProjectCosts(ctx context.Context, projectID string, tasks []Task) ([]Cost, error) {
	out, err := c.Costs(ctx, CostQuery{ProjectID: projectID})
	var ae *APIError
	if err == nil || !errors.As(err, &ae) || ae.Code != 11 {
		return out, err
	}
	if tasks == nil {
		if tasks, err = c.Tasks(ctx, projectID); err != nil {
			return nil, err
		}
	}
	out = nil
	for _, t := range tasks {
		lines, err := c.Costs(ctx, CostQuery{ProjectID: projectID, TaskID: t.ID})
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	return out, nil
}

// ---- files ----

// Files reads the files of a project (its own, its tasks' and their
// comments') or, with taskID, of a task (its own and its comments')
// (get_files).
func (c *Client) Files(ctx context.Context, projectID, taskID string) ([]File, error) {
	var ps []param
	if projectID != "" {
		ps = append(ps, param{"id_project", projectID})
	}
	if taskID != "" {
		ps = append(ps, param{"id_task", taskID})
	}
	var out []File
	err := c.call(ctx, "get_files", ps, func(r *reading) (err error) {
		var n notes
		out, err = list(r, "files", n.file)
		return err
	})
	return out, err
}

// OwnFiles is all without the files of attached (by id): a project's own
// files are get_files' list without its tasks' and comments'.
func OwnFiles(all []File, attached ...[]File) []File {
	skip := map[string]bool{}
	for _, l := range attached {
		for _, f := range l {
			skip[f.ID] = true
		}
	}
	var out []File
	for _, f := range all {
		if !skip[f.ID] {
			out = append(out, f)
		}
	}
	return out
}
