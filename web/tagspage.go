package web

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// tagRoutes are the addresses of the tags page: tag groups and tags.
func (s *Server) tagRoutes() []route {
	return []route{
		{"GET /a/{slug}/tags", s.page(s.inAccount(taskd.PermRead, s.tagsPage))},
		{"POST /a/{slug}/tags", s.form(s.inAccount(taskd.PermWork, s.addTag))},
		{"POST /a/{slug}/tags/groups", s.form(s.inAccount(taskd.PermWork, s.addTagGroup))},
		{"POST /a/{slug}/tags/sort", s.form(s.inAccount(taskd.PermWork, s.sortTags))},
		{"POST /a/{slug}/tags/{tag}/update", s.form(s.inAccount(taskd.PermWork, s.changeTag(false)))},
		{"POST /a/{slug}/tags/{tag}/delete", s.form(s.inAccount(taskd.PermWork, s.changeTag(true)))},
		{"POST /a/{slug}/tags/groups/{group}/update", s.form(s.inAccount(taskd.PermWork, s.changeTagGroup(false)))},
		{"POST /a/{slug}/tags/groups/{group}/delete", s.form(s.inAccount(taskd.PermWork, s.changeTagGroup(true)))},
	}
}

// tagFuncs are the template functions of the tags page.
func tagFuncs() template.FuncMap {
	return template.FuncMap{
		"tagMoves": func(base, csrf, kind, group, up, down, name string) tagMoves {
			return tagMoves{Base: base, CSRF: csrf, Kind: kind, Group: group, Up: up, Down: down, Name: name}
		},
	}
}

// tagsView is the account's tags page: the groups of task and project
// tags with their tags, in the account's order, and the forms that add,
// reorder, rename and delete them.
type tagsView struct {
	Kinds  []tagKind
	Error  *formError
	Values map[string][]string
	Base   string
	// CanWrite shows the forms that add; CanChange those that reorder,
	// rename and delete (taskd.CanChangeTags: not guests).
	CanWrite, CanChange bool
}

// tagKind is one namespace of tags: its groups, each with its tags.
type tagKind struct {
	Kind, Title string
	Groups      []tagGroupView
}

// tagGroupView is a group of the tags page: its tags, and the orders of
// the kind's groups that move it up or down ("" at either end).
type tagGroupView struct {
	Group    taskd.TagGroup
	Tags     []tagView
	Up, Down string
	// Carried counts the objects that carry one of its tags, as the
	// viewer sees them (one carrying two labels counts twice).
	Carried int
}

// tagView is a tag of the tags page: how many of the kind's objects the
// viewer sees carry it, the orders of its group that move it, and the
// other tags of its group, which its deletion may move them to.
type tagView struct {
	Tag      taskd.Tag
	Uses     int
	Up, Down string
	Others   []taskd.Tag
}

// Status reports whether the tag is a status.
func (t tagView) Status() bool { return t.Tag.Group.Type == "status" }

// UseText says how many objects carry the tag: "3 tasks", "no projects".
func (t tagView) UseText() string { return countOf(t.Uses, t.Tag.Group.Kind) }

// tagMoves are the move up and move down buttons of a tag (Group its
// group's id) or a group (Group ""): each sends the order that moves it.
type tagMoves struct {
	Base, CSRF, Kind, Group string
	Up, Down                string // "" at either end
	Name                    string // what moves, for the buttons' names
}

// countOf is n objects of a kind in words.
func countOf(n int, kind string) string {
	switch n {
	case 0:
		return "no " + kind + "s"
	case 1:
		return "1 " + kind
	}
	return strconv.Itoa(n) + " " + kind + "s"
}

// CarriedText says how many objects carry a tag of the group.
func (g tagGroupView) CarriedText() string { return countOf(g.Carried, g.Group.Kind) }

// swapped is the ids of the list in their order with i and j swapped, as
// a sort's order; "" when j is outside the list.
func swapped(ids []string, i, j int) string {
	if j < 0 || j >= len(ids) {
		return ""
	}
	out := append([]string(nil), ids...)
	out[i], out[j] = out[j], out[i]
	return strings.Join(out, ",")
}

// tagsPage is GET /a/{slug}/tags.
func (s *Server) tagsPage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderTags(w, r, v, me, http.StatusOK, nil)
}

func (s *Server) renderTags(w http.ResponseWriter, r *http.Request, v *view, me member, status int, fe *formError) error {
	ctx, acct := r.Context(), me.Account
	by := me.actor()
	tv := &tagsView{Error: fe, Values: r.PostForm, Base: s.cfg.accountPath(acct), CanWrite: by.Role.Can(taskd.PermWork),
		CanChange: taskd.CanChangeTags(by) == nil}
	for _, k := range []tagKind{{Kind: taskd.TagsOfTasks, Title: "Task tags"}, {Kind: taskd.TagsOfProjects, Title: "Project tags"}} {
		groups, err := s.cfg.Tags.TagGroups(ctx, acct.ID, k.Kind, "", "")
		if err != nil {
			return err
		}
		tags, err := s.cfg.Tags.Tags(ctx, acct.ID, k.Kind, "", "", "")
		if err != nil {
			return err
		}
		use, err := s.cfg.Tags.TagUse(ctx, me.viewer(), k.Kind)
		if err != nil {
			return err
		}
		groupIDs := make([]string, len(groups))
		for i, g := range groups {
			groupIDs[i] = strconv.FormatInt(g.ID, 10)
		}
		for i, g := range groups {
			gv := tagGroupView{Group: g, Up: swapped(groupIDs, i, i-1), Down: swapped(groupIDs, i, i+1)}
			var mine []taskd.Tag
			var ids []string
			for _, t := range tags {
				if t.Group.ID == g.ID {
					mine = append(mine, t)
					ids = append(ids, strconv.FormatInt(t.ID, 10))
				}
			}
			for j, t := range mine {
				tv := tagView{Tag: t, Uses: use[t.ID], Up: swapped(ids, j, j-1), Down: swapped(ids, j, j+1)}
				for _, o := range mine {
					if o.ID != t.ID {
						tv.Others = append(tv.Others, o)
					}
				}
				gv.Tags = append(gv.Tags, tv)
				gv.Carried += tv.Uses
			}
			k.Groups = append(k.Groups, gv)
		}
		tv.Kinds = append(tv.Kinds, k)
	}
	v.Title, v.Data = "Tags and statuses", tv
	return s.renderStatus(w, r, status, "tags.html", v)
}

// formKind reads the form's kind: tasks or projects.
func formKind(r *http.Request) (string, error) {
	kind := r.PostFormValue("kind")
	if kind != taskd.TagsOfTasks && kind != taskd.TagsOfProjects {
		return "", taskd.Invalid("kind", "Choose tasks or projects")
	}
	return kind, nil
}

// addTagGroup is POST /a/{slug}/tags/groups: kind, title (a comma list,
// as add_task_tag_groups takes it), type, access.
func (s *Server) addTagGroup(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	typ, access := r.PostFormValue("type"), r.PostFormValue("access")
	titles, err := wire.ParseTitles("title", r.PostFormValue("title"))
	var kind string
	if err == nil {
		kind, err = formKind(r)
	}
	if err == nil {
		err = taskd.CheckTagGroup(typ, access)
	}
	if err == nil {
		_, err = s.cfg.Tags.AddTagGroups(r.Context(), me.actor(), kind, typ, access, titles)
	}
	return s.tagsChanged(w, r, v, me, "group", err)
}

// addTag is POST /a/{slug}/tags: group (an id) and title, a comma list
// that add_task_tags would take ("a, b, c" makes three tags).
func (s *Server) addTag(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	titles, err := wire.ParseTitles("title", r.PostFormValue("title"))
	var group int64
	var kind string
	if err == nil {
		group, err = taskd.ParseID(r.PostFormValue("group"), "group")
	}
	if err == nil {
		kind, err = formKind(r)
	}
	if err == nil {
		_, err = s.cfg.Tags.AddTags(r.Context(), me.actor(), kind, strconv.FormatInt(group, 10), titles)
	}
	return s.tagsChanged(w, r, v, me, "tag"+r.PostFormValue("group"), err)
}

// sortTags is POST /a/{slug}/tags/sort: kind and order (ids, a comma
// list, as sort_task_tags takes it), and group: the group whose tags the
// order is, or none for the order of the kind's groups. The page's move
// up and down buttons send the whole order with two neighbours swapped.
func (s *Server) sortTags(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	by := me.actor()
	kind, err := formKind(r)
	order := wire.ParseTokens(r.PostFormValue("order"))
	if err == nil && len(order) == 0 {
		err = taskd.Required("order")
	}
	form := "groups" + kind
	if err == nil {
		if group := r.PostFormValue("group"); group != "" {
			form = "tag" + group
			_, err = s.cfg.Tags.SortTags(r.Context(), by, kind, group, order)
		} else {
			_, err = s.cfg.Tags.SortTagGroups(r.Context(), by, kind, order)
		}
	}
	return s.tagsChanged(w, r, v, me, form, err)
}

// accountTag finds the account's tag with the path's id, of either kind;
// not found ("tag") otherwise, as an id of another account is.
func (s *Server) accountTag(r *http.Request, accountID int64) (taskd.Tag, error) {
	id, err := taskd.ParseID(r.PathValue("tag"), "tag")
	if err != nil {
		return taskd.Tag{}, err
	}
	for _, kind := range []string{taskd.TagsOfTasks, taskd.TagsOfProjects} {
		tags, err := s.cfg.Tags.Tags(r.Context(), accountID, kind, "", "", "")
		if err != nil {
			return taskd.Tag{}, err
		}
		for _, t := range tags {
			if t.ID == id {
				return t, nil
			}
		}
	}
	return taskd.Tag{}, taskd.NotFound("tag")
}

// accountTagGroup is accountTag for the path's group.
func (s *Server) accountTagGroup(r *http.Request, accountID int64) (taskd.TagGroup, error) {
	id, err := taskd.ParseID(r.PathValue("group"), "group")
	if err != nil {
		return taskd.TagGroup{}, err
	}
	for _, kind := range []string{taskd.TagsOfTasks, taskd.TagsOfProjects} {
		groups, err := s.cfg.Tags.TagGroups(r.Context(), accountID, kind, "", "")
		if err != nil {
			return taskd.TagGroup{}, err
		}
		for _, g := range groups {
			if g.ID == id {
				return g, nil
			}
		}
	}
	return taskd.TagGroup{}, taskd.NotFound("group")
}

// changeTag is POST /a/{slug}/tags/{tag}/update (title) and /delete
// (move_to: another tag of its group, or none, as delete_task_tag reads
// it).
func (s *Server) changeTag(del bool) func(http.ResponseWriter, *http.Request, *view, member) error {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		t, err := s.accountTag(r, me.Account.ID)
		if err != nil {
			return s.failWith(w, r, err)
		}
		by, kind, id := me.actor(), t.Group.Kind, strconv.FormatInt(t.ID, 10)
		if del {
			err = s.cfg.Tags.DeleteTag(r.Context(), by, kind, id, wire.ParseTagDeletion(formParams(r)))
		} else {
			_, err = s.cfg.Tags.RenameTag(r.Context(), by, kind, id, r.PostFormValue("title"))
		}
		return s.tagsChanged(w, r, v, me, "tag-edit"+id, err)
	}
}

// changeTagGroup is POST /a/{slug}/tags/groups/{group}/update (title)
// and /delete: a group's deletion takes its tags off what carries them.
func (s *Server) changeTagGroup(del bool) func(http.ResponseWriter, *http.Request, *view, member) error {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		g, err := s.accountTagGroup(r, me.Account.ID)
		if err != nil {
			return s.failWith(w, r, err)
		}
		by, id := me.actor(), strconv.FormatInt(g.ID, 10)
		if del {
			err = s.cfg.Tags.DeleteTagGroup(r.Context(), by, g.Kind, id)
		} else {
			_, err = s.cfg.Tags.RenameTagGroup(r.Context(), by, g.Kind, id, r.PostFormValue("title"))
		}
		return s.tagsChanged(w, r, v, me, "group-edit"+id, err)
	}
}

// tagsChanged returns to the tags page, or shows the rule a change broke
// next to its form.
func (s *Server) tagsChanged(w http.ResponseWriter, r *http.Request, v *view, me member, form string, err error) error {
	if err != nil {
		fe, ok := asFormError(form, err)
		if !ok {
			return err
		}
		if taskd.ErrorKind(err) == taskd.KindForbidden {
			return s.failWith(w, r, err)
		}
		return s.renderTags(w, r, v, me, formStatus(w, err), fe)
	}
	return see303(w, r, s.cfg.accountPath(me.Account)+"/tags")
}
