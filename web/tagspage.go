package web

import (
	"net/http"
	"strconv"

	"github.com/taskd/taskd"
)

// tagsView is the account's tags page: the groups of task and project
// tags with their tags, and the forms that add them.
type tagsView struct {
	Kinds    []tagKind
	Error    *formError
	Values   map[string][]string
	Base     string
	CanWrite bool
}

// tagKind is one namespace of tags: its groups, each with its tags.
type tagKind struct {
	Kind, Title string
	Groups      []tagChoice
}

// tagsPage is GET /a/{slug}/tags.
func (s *Server) tagsPage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	return s.renderTags(w, r, v, me.Account, http.StatusOK, nil)
}

func (s *Server) renderTags(w http.ResponseWriter, r *http.Request, v *view, acct taskd.Account, status int, fe *formError) error {
	tv := &tagsView{Error: fe, Values: r.PostForm, Base: s.cfg.accountPath(acct), CanWrite: v.Nav.Member.Role.Can(taskd.PermWork)}
	for _, k := range []tagKind{{Kind: taskd.TagsOfTasks, Title: "Task tags"}, {Kind: taskd.TagsOfProjects, Title: "Project tags"}} {
		groups, err := s.cfg.Reads.TagGroups(r.Context(), acct.ID, k.Kind, "", "")
		if err != nil {
			return err
		}
		tags, err := s.cfg.Reads.Tags(r.Context(), acct.ID, k.Kind, "", "", "")
		if err != nil {
			return err
		}
		byGroup := tagChoices(tags, nil)
		for _, g := range groups {
			c := tagChoice{Group: g}
			for _, have := range byGroup {
				if have.Group.ID == g.ID {
					c.Tags = have.Tags
				}
			}
			k.Groups = append(k.Groups, c)
		}
		tv.Kinds = append(tv.Kinds, k)
	}
	v.Title, v.Data = "Tags and statuses", tv
	return s.renderStatus(w, r, status, "tags.html", v)
}

// addTagGroup is POST /a/{slug}/tags/groups: kind, title, type, access.
func (s *Server) addTagGroup(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	kind, typ, access := r.PostFormValue("kind"), r.PostFormValue("type"), r.PostFormValue("access")
	title, err := taskd.TagTitle(r.PostFormValue("title"))
	if err == nil && kind != taskd.TagsOfTasks && kind != taskd.TagsOfProjects {
		err = taskd.Invalid("kind", "Choose tasks or projects")
	}
	if err == nil {
		err = taskd.CheckTagGroup(typ, access)
	}
	if err == nil {
		_, err = s.cfg.Work.Tags.AddGroups(r.Context(), actor(me.Account, me.Member), kind, typ, access, []string{title})
	}
	return s.tagsChanged(w, r, v, me, "group", err)
}

// addTag is POST /a/{slug}/tags: group (an id) and title.
func (s *Server) addTag(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	kind := r.PostFormValue("kind")
	title, err := taskd.TagTitle(r.PostFormValue("title"))
	var group int64
	if err == nil {
		group, err = taskd.ParseID(r.PostFormValue("group"), "group")
	}
	if err == nil && kind != taskd.TagsOfTasks && kind != taskd.TagsOfProjects {
		err = taskd.Invalid("kind", "Choose tasks or projects")
	}
	if err == nil {
		_, err = s.cfg.Work.Tags.Add(r.Context(), actor(me.Account, me.Member), kind, strconv.FormatInt(group, 10), []string{title})
	}
	return s.tagsChanged(w, r, v, me, "tag"+r.PostFormValue("group"), err)
}

// tagsChanged returns to the tags page, or shows the rule a change broke
// next to its form.
func (s *Server) tagsChanged(w http.ResponseWriter, r *http.Request, v *view, me member, form string, err error) error {
	if err != nil {
		fe, ok := asFormError(form, err)
		if !ok {
			return err
		}
		return s.renderTags(w, r, v, me.Account, http.StatusUnprocessableEntity, fe)
	}
	return see303(w, r, s.cfg.accountPath(me.Account)+"/tags")
}
