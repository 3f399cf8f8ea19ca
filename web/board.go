package web

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/taskd/taskd"
)

// boardRoutes are the addresses of a project's board.
func (s *Server) boardRoutes() []route {
	return []route{
		{"GET /a/{slug}/project/{project}/board", s.page(s.inAccount(taskd.PermRead, s.board))},
	}
}

// boardView is a project's board: its active tasks in columns by the tags
// of one status group, and a column for the tasks without one.
type boardView struct {
	Project  taskd.Project
	Groups   []taskd.TagGroup // the status groups to choose from
	Group    taskd.TagGroup
	Columns  []boardColumn
	Base     string
	CanWrite bool
	// People are the assignees a card's quick edit offers (issue 35).
	People []taskd.Member
}

// boardColumn is one status (Tag.ID 0: none) and its cards.
type boardColumn struct {
	Tag   taskd.Tag
	Cards []taskRow
	Count int    // the column's tasks; a column shows at most listPage
	More  string // the list of every task of the column, when some are not shown
}

func boardPage(projectID, group int64) string {
	return taskd.ProjectPage(projectID) + "board?group=" + strconv.FormatInt(group, 10)
}

// board is GET /a/{slug}/project/{project}/board?group=ID.
func (s *Server) board(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	ctx := r.Context()
	acct := me.Account
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	groups, err := s.cfg.Tags.TagGroups(ctx, acct.ID, taskd.TagsOfTasks, "status", "")
	if err != nil {
		return err
	}
	base := s.cfg.accountPath(acct)
	bv := &boardView{Project: p, Groups: groups, Base: base, CanWrite: me.Member.Role.Can(taskd.PermWork)}
	v.Title, v.Data = p.Name+": board", bv
	if bv.CanWrite {
		if bv.People, err = s.cfg.Accounts.Members(ctx, acct.ID); err != nil {
			return err
		}
	}
	if len(groups) == 0 {
		return s.render(w, r, "board.html", v)
	}
	bv.Group = groups[0]
	if id, err := strconv.ParseInt(r.URL.Query().Get("group"), 10, 64); err == nil {
		if i := slices.IndexFunc(groups, func(g taskd.TagGroup) bool { return g.ID == id }); i >= 0 {
			bv.Group = groups[i]
		}
	}
	tags, err := s.cfg.Tags.Tags(ctx, acct.ID, taskd.TagsOfTasks, strconv.FormatInt(bv.Group.ID, 10), "status", "")
	if err != nil {
		return err
	}
	columns := append([]taskd.Tag{{Title: "No status", Group: bv.Group}}, tags...)
	for _, tag := range columns {
		q := taskd.TaskQuery{Viewer: me.viewer(), ProjectID: p.ID, TagID: tag.ID}
		if tag.ID == 0 {
			q.UntaggedIn = bv.Group.ID
		}
		list, err := s.listTasks(ctx, q, listFilter{Status: taskd.StatusActive, Sort: taskd.SortPriority, DefaultSort: taskd.SortTree, Page: 1}, s.today(v), "")
		if err != nil {
			return err
		}
		col := boardColumn{Tag: tag, Cards: list.Rows, Count: list.Counts.Active}
		if list.Next != "" && tag.ID != 0 {
			col.More = listFilter{Status: taskd.StatusActive, Tag: tag.ID, Sort: taskd.SortPriority, DefaultSort: taskd.SortTree}.link(base+p.Page(), 1)
		}
		bv.Columns = append(bv.Columns, col)
	}
	return s.render(w, r, "board.html", v)
}
