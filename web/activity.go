package web

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// Activity (issue 35): a project's or a person's recent changes, the
// events the viewer sees (the store applies the rule of get_events and
// webhooks), in words with links, newest first, a page at a time.

// activityPage is how many events one page shows.
const activityPage = 50

// activityView is an activity page.
type activityView struct {
	Heading string
	// Of is the project's or the person's page.
	Of, OfName string
	Items      []activityItem
	// Older is the next page's link; "" on the last.
	Older string
	// Newest links back to the first page; "" on it.
	Newest string
}

// activityItem is one event in words: who, what, the object's name and
// link, and what follows it.
type activityItem struct {
	When   time.Time
	Who    string
	Verb   string // "completed", "changed the due date of" …
	Object string // the task's or project's name
	Link   string // "" when the object is gone
	Rest   string // " to Fri 4 Dec", ": the priority to 7" …
}

// projectActivity is GET /a/{slug}/project/{project}/activity[?before=id].
func (s *Server) projectActivity(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	base := s.cfg.accountPath(me.Account)
	av := &activityView{Heading: p.Name + ": activity", Of: base + p.Page(), OfName: p.Name}
	q := taskd.ActivityQuery{Viewer: me.viewer(), ProjectID: p.ID}
	return s.renderActivity(w, r, v, me, q, av, base+p.Page()+"activity")
}

// personActivity is GET /a/{slug}/people/{person}/activity[?before=id]:
// the changes a member made, those the viewer sees.
func (s *Server) personActivity(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	id, err := taskd.ParseID(r.PathValue("person"), "member")
	var who taskd.Member
	if err == nil {
		who, err = s.cfg.Accounts.Member(r.Context(), me.Account.ID, id)
	}
	if err != nil {
		return s.failWith(w, r, err)
	}
	base := s.cfg.accountPath(me.Account)
	av := &activityView{Heading: who.DisplayName() + ": activity", Of: base + "/people/" + strconv.FormatInt(id, 10) + "/schedule", OfName: who.DisplayName()}
	q := taskd.ActivityQuery{Viewer: me.viewer(), PersonID: id}
	return s.renderActivity(w, r, v, me, q, av, base+"/people/"+strconv.FormatInt(id, 10)+"/activity")
}

// renderActivity reads a page of q's events, older than ?before= when
// given (what does not parse is the first page), and shows them.
func (s *Server) renderActivity(w http.ResponseWriter, r *http.Request, v *view, me member, q taskd.ActivityQuery, av *activityView, path string) error {
	ctx := r.Context()
	if before, err := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64); err == nil && before > 0 {
		q.Before = before
		av.Newest = path
	}
	q.Limit = activityPage + 1
	if s.cfg.Calendar == nil {
		s.Error(w, r, http.StatusNotFound)
		return nil
	}
	evs, err := s.cfg.Calendar.Activity(ctx, q)
	if err != nil {
		return err
	}
	if len(evs) > activityPage {
		evs = evs[:activityPage]
		av.Older = path + "?before=" + strconv.FormatInt(evs[len(evs)-1].ID, 10)
	}
	bodies := make([]taskd.EventBody, len(evs))
	var ids []int64
	for i, e := range evs {
		if bodies[i], err = taskd.DecodeEventBody(e.Body); err != nil {
			return err
		}
		if id := eventTaskID(bodies[i]); id != 0 {
			ids = append(ids, id)
		}
	}
	names, err := s.taskNames(ctx, me.viewer(), ids)
	if err != nil {
		return err
	}
	base := s.cfg.accountPath(me.Account)
	for i, e := range evs {
		av.Items = append(av.Items, describeEvent(e.Time, bodies[i], names, base))
	}
	v.Title, v.Data = av.Heading, av
	return s.render(w, r, "activity.html", v)
}

// taskNames are the names of the tasks, those the viewer sees and that
// still exist, by id.
func (s *Server) taskNames(ctx context.Context, viewer taskd.Viewer, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	tasks, err := s.cfg.Tasks.Tasks(ctx, taskd.TaskQuery{Viewer: viewer, Filter: taskd.QueryCond{Field: taskd.FieldID, Op: "in", Ints: ids}})
	for _, t := range tasks {
		out[t.ID] = t.Name
	}
	return out, err
}

// eventTaskID is the task an event is about (a comment's task); 0 for a
// project's.
func eventTaskID(b taskd.EventBody) int64 {
	switch b.Object.Type {
	case taskd.ObjectTask:
		return b.Object.ID
	case taskd.ObjectComment: // the page is the task's, then "#com…"
		page, _, _ := strings.Cut(b.Object.Page, "#")
		parts := strings.Split(strings.Trim(page, "/"), "/")
		id, _ := strconv.ParseInt(parts[len(parts)-1], 10, 64)
		return id
	}
	return 0
}

// describeEvent puts an event in words.
func describeEvent(at time.Time, b taskd.EventBody, names map[int64]string, base string) activityItem {
	it := activityItem{When: at, Who: b.UserFrom.Name}
	if it.Who == "" {
		it.Who = "Someone"
	}
	task := eventTaskID(b)
	it.Object = names[task]
	if it.Object == "" { // gone since: the name the event carried, if any
		it.Object = text(b.Old["name"], text(b.New["name"], "a task"))
	}
	if _, ok := names[task]; ok {
		it.Link = base + b.Object.Page
	}
	switch b.Name {
	case "post_task":
		it.Verb = "added"
	case "close_task":
		it.Verb = "completed"
	case "reopen_task":
		it.Verb = "reopened"
	case "delete_task":
		it.Verb = "deleted"
	case "update_task":
		it.Verb, it.Rest = describeUpdate(b)
	case "post_comment":
		it.Verb = "commented on"
	case "update_comment":
		it.Verb = "edited a comment on"
	case "delete_comment":
		it.Verb = "deleted a comment on"
	case "post_project", "update_project", "close_project", "reopen_project":
		it.Object, it.Link = "", base+b.Object.Page
		if b.Project != nil {
			it.Object = b.Project.Name
		}
		it.Verb = map[string]string{"post_project": "created the project", "update_project": "changed the project",
			"close_project": "archived the project", "reopen_project": "reopened the project"}[b.Name]
		if b.Name == "update_project" && b.New["status"] == taskd.ProjectArchive {
			it.Verb = "archived the project"
		}
	default:
		it.Verb = "changed"
	}
	return it
}

// describeUpdate words a task's update: one field in full ("changed the
// due date of" X " to Fri 4 Dec"), several listed after the name.
func describeUpdate(b taskd.EventBody) (verb, rest string) {
	var parts []string
	known := []string{"date_end", "date_start", "name", "user_to", "priority", "status", "text", "max_time", "max_money"}
	for _, k := range known {
		v, ok := b.New[k]
		if !ok {
			continue
		}
		parts = append(parts, fieldChange(k, v))
	}
	var others []string
	for k := range b.New {
		if !slices.Contains(known, k) {
			others = append(others, "the "+strings.ReplaceAll(k, "_", " "))
		}
	}
	slices.Sort(others)
	parts = append(parts, others...)
	switch {
	case len(parts) == 1 && b.New["date_end"] != nil && text(b.New["date_end"], "") != "":
		return "changed the due date of", " to " + dayText(text(b.New["date_end"], ""))
	case len(parts) == 1 && b.New["date_end"] != nil:
		return "removed the due date of", ""
	case len(parts) == 0:
		return "changed", ""
	}
	return "changed", ": " + strings.Join(parts, ", ")
}

// fieldChange words a field's new value.
func fieldChange(k string, v any) string {
	switch k {
	case "date_end", "date_start":
		what := map[string]string{"date_end": "the due date", "date_start": "the start date"}[k]
		if d := text(v, ""); d != "" {
			return what + " to " + dayText(d)
		}
		return what + " removed"
	case "name":
		return "the name to “" + text(v, "") + "”"
	case "user_to":
		if m, ok := v.(map[string]any); ok {
			if name := text(m["name"], ""); name != "" {
				return "the assignee to " + name
			}
		}
		return "the assignee"
	case "priority":
		return "the priority to " + text(v, "")
	case "status":
		return "the status to " + text(v, "")
	case "text":
		return "the description"
	case "max_time":
		return "the time budget"
	}
	return "the money budget"
}

// dayText shows a YYYY-MM-DD date as "Fri 4 Dec 2026".
func dayText(d string) string {
	t, err := time.Parse(taskd.DateLayout, d)
	if err != nil {
		return d
	}
	return t.Format("Mon 2 Jan 2006")
}

// text is v when it is a non-empty string, else or.
func text(v any, or string) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return or
}
