package web

import (
	"strconv"

	"github.com/taskd/taskd"
)

// withPeople is the row context with the assignees its rows' quick edit
// offers (issue 35; templates/quickedit.html).
func withPeople(c rowContext, people []taskd.Member) rowContext {
	c.People = people
	if c.People == nil {
		c.People = []taskd.Member{}
	}
	return c
}

// RowID is the id of the element a row's quick edit updates in place:
// the row (or board card) itself.
func (r taskRowView) RowID() string { return "task" + strconv.FormatInt(r.ID, 10) }
