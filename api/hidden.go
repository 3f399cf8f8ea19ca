package api

import "github.com/taskd/taskd"

// withHidden sets the hidden lists of the tasks (a flat list: each task
// rendered must be in it), with extra=hidden (issue 36): the members who
// alone, with its author, may see each task; a subtask's own list, which
// is empty when only its parent's hides it.
func (c *call) withHidden(v *taskView, tasks []taskd.Task) error {
	if !c.extra("hidden") {
		return nil
	}
	ids := make([]int64, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	var err error
	v.hidden, err = c.store.HiddenLists(c.ctx, c.viewer(), "task", ids)
	return err
}

// commentsHidden answers the hidden lists of the comments, by comment,
// with extra=hidden; nil without it.
func (c *call) commentsHidden(list []taskd.Comment) (map[int64][]taskd.PersonRef, error) {
	if !c.extra("hidden") {
		return nil, nil
	}
	ids := make([]int64, len(list))
	for i, cm := range list {
		ids[i] = cm.ID
	}
	return c.store.HiddenLists(c.ctx, c.viewer(), "comment", ids)
}

// listOf is the list of id in lists, never nil: a list shown empty.
func listOf(lists map[int64][]taskd.PersonRef, id int64) []taskd.PersonRef {
	if l := lists[id]; l != nil {
		return l
	}
	return []taskd.PersonRef{}
}
