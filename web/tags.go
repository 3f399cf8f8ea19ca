package web

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/taskd/taskd"
)

// taggingRoutes are the addresses that put tags on a task or project, or
// move a task on a board.
func (s *Server) taggingRoutes() []route {
	return []route{
		{"POST /a/{slug}/tasks/{task}/tags", s.form(s.inAccount(taskd.PermWork, s.taskChange("tags", s.setTaskTags)))},
		{"POST /a/{slug}/tasks/{task}/move", s.form(s.inAccount(taskd.PermWork, s.taskChange("tags", s.moveTask)))},
		{"POST /a/{slug}/project/{project}/tags", s.form(s.inAccount(taskd.PermWork, s.setProjectTags))},
	}
}

// tagChoice is a group's tags as a form offers them, with those the object
// carries marked.
type tagChoice struct {
	Group taskd.TagGroup
	Tags  []taskd.Tag
	On    map[int64]bool
	// Current is the status the object has in a status group, 0 for none.
	Current int64
}

// tagChoices groups the account's tags of a kind for an object's form; the
// groups without tags are left out.
func tagChoices(all []taskd.Tag, current []taskd.Tag) []tagChoice {
	on := make(map[int64]bool, len(current))
	for _, t := range current {
		on[t.ID] = true
	}
	var out []tagChoice
	for _, t := range all {
		i := slices.IndexFunc(out, func(c tagChoice) bool { return c.Group.ID == t.Group.ID })
		if i < 0 {
			out = append(out, tagChoice{Group: t.Group, On: on})
			i = len(out) - 1
		}
		out[i].Tags = append(out[i].Tags, t)
		if on[t.ID] && t.Group.Type == "status" {
			out[i].Current = t.ID
		}
	}
	return out
}

// setTagsFromForm makes the object's tags of the kind those the form's
// "tag" fields name (tag ids; "" for a status group set to none): it adds
// what is new and removes what was left out, through the same store
// method as update_task_tags.
func (s *Server) setTagsFromForm(ctx context.Context, r *http.Request, by taskd.Actor, kind string, id int64) error {
	all, err := s.cfg.Tags.Tags(ctx, by.AccountID, kind, "", "", "")
	if err != nil {
		return err
	}
	current, err := s.cfg.Tags.ObjectTags(ctx, by.Viewer(), kind, []int64{id})
	if err != nil {
		return err
	}
	want := map[int64]bool{}
	for _, v := range r.PostForm["tag"] {
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || !slices.ContainsFunc(all, func(t taskd.Tag) bool { return t.ID == n }) {
			return taskd.Invalid("tags", "There is no such tag; reload the page and try again.")
		}
		want[n] = true
	}
	var plus, minus []string
	had := map[int64]bool{}
	for _, t := range current[id] {
		had[t.ID] = true
		if !want[t.ID] {
			minus = append(minus, strconv.FormatInt(t.ID, 10))
		}
	}
	for n := range want {
		if !had[n] {
			plus = append(plus, strconv.FormatInt(n, 10))
		}
	}
	if len(plus)+len(minus) == 0 {
		return nil
	}
	slices.Sort(plus) // a stable order: the last status of a group wins
	return s.cfg.Tags.SetTags(ctx, by, kind, id, plus, minus)
}

// setTaskTags is the task page's tag form.
func (s *Server) setTaskTags(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	return "", s.setTagsFromForm(r.Context(), r, by, taskd.TagsOfTasks, t.ID)
}

// moveTask sets the task's status in one status group: the form's "tag",
// or none when it is empty. It is the board's move.
func (s *Server) moveTask(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	ctx := r.Context()
	group, err := taskd.ParseID(r.PostFormValue("group"), "group")
	if err != nil {
		return "", err
	}
	tags, err := s.cfg.Tags.Tags(ctx, by.AccountID, taskd.TagsOfTasks, strconv.FormatInt(group, 10), "status", "")
	if err != nil {
		return "", err
	}
	var plus, minus []string
	if v := r.PostFormValue("tag"); v != "" {
		if !slices.ContainsFunc(tags, func(t taskd.Tag) bool { return strconv.FormatInt(t.ID, 10) == v }) {
			return "", taskd.Invalid("tags", "There is no such status; reload the page and try again.")
		}
		plus = []string{v}
	} else {
		for _, t := range tags {
			minus = append(minus, strconv.FormatInt(t.ID, 10))
		}
	}
	if err := s.cfg.Tags.SetTags(ctx, by, taskd.TagsOfTasks, t.ID, plus, minus); err != nil {
		return "", err
	}
	return boardPage(t.ProjectID, group) + "#task" + strconv.FormatInt(t.ID, 10), nil
}

// setProjectTags is the project page's tag form.
func (s *Server) setProjectTags(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	if err := s.setTagsFromForm(r.Context(), r, me.actor(), taskd.TagsOfProjects, p.ID); err != nil {
		fe, ok := asFormError("projecttags", err)
		if !ok {
			return err
		}
		return s.renderProject(w, r, v, me, p, http.StatusUnprocessableEntity, fe)
	}
	return see303(w, r, s.cfg.accountPath(acct)+p.Page())
}

// tagForm is the form that sets an object's tags, one control per group:
// a menu for a status group, boxes for a label group.
type tagForm struct {
	Action  string
	Prefix  string // of the controls' ids
	Choices []tagChoice
	Error   string // the rule the last change broke
	CSRF    string
}

// objectTags reads an object's tags and, for those who may change them,
// its tag form; the form is nil when the account has no tags of the kind.
func (s *Server) objectTags(ctx context.Context, v *view, me member, kind string, id int64, action string, fe *formError, form string) ([]taskd.Tag, *tagForm, error) {
	accountID := me.Account.ID
	current, err := s.cfg.Tags.ObjectTags(ctx, me.viewer(), kind, []int64{id})
	if err != nil {
		return nil, nil, err
	}
	if !me.Member.Role.Can(taskd.PermWork) {
		return current[id], nil, nil
	}
	all, err := s.cfg.Tags.Tags(ctx, accountID, kind, "", "", "")
	if err != nil || len(all) == 0 {
		return current[id], nil, err
	}
	f := &tagForm{Action: action, Prefix: kind, Choices: tagChoices(all, current[id]), CSRF: v.CSRF}
	if fe != nil && fe.Form == form {
		f.Error = fe.Message
	}
	return current[id], f, nil
}
