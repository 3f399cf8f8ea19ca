package importer

import (
	"context"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// commentsStep brings over every comment of the imported tasks, by their
// authors where they are members (else by the owner, the author named in
// the report; an invited author's comment is theirs when they accept),
// with their dates; it keeps their lists of files for the files family.
func (r *run) commentsStep(ctx context.Context, c *Count) error {
	if err := r.taskMap(ctx); err != nil {
		return err
	}
	done, err := r.mappings(ctx, "comment")
	if err != nil {
		return err
	}
	hidden, err := r.mappings(ctx, "comment_hidden")
	if err != nil {
		return err
	}
	r.hiddenRead = true
	err = r.eachTree(ctx, func(_ source.Project, tree []source.Task) error {
		// The comments of a project's tasks are read ahead, as many at
		// once as the source client allows, and written in order.
		var ids []string
		source.Walk(tree, func(t *source.Task) {
			if _, ok := r.tasks[t.ID]; ok { // else reported by the tasks
				ids = append(ids, t.ID)
			}
		})
		return ahead(ctx, r.src.Concurrency(), ids, r.src.Comments, func(id string, list []source.Comment) error {
			for _, cm := range list {
				if err := r.comment(ctx, c, r.tasks[id], cm, done, hidden); err != nil {
					return err
				}
				if len(cm.Files) > 0 {
					r.commentFiles[id] = append(r.commentFiles[id], commentFiles{id: cm.ID, files: cm.Files})
				}
			}
			return nil
		}, r.src.Lease) // what is read ahead holds the source's memory budget until written
	})
	if err != nil {
		return err
	}
	r.commentsRead = true
	return nil
}

func (r *run) comment(ctx context.Context, c *Count, taskID int64, cm source.Comment, done, hidden map[string]taskd.ImportMapping) error {
	c.Read++
	by, writer, waits := r.author(cm.Author, taskd.WaitCommentAuthor)
	var viewers []string
	if cm.HiddenKnown {
		r.hiddenShown = true
		if len(cm.Hidden) > 0 {
			list, faithful := r.hiddenList(FamilyComments, cm.ID, "a comment", cm.Hidden, cm.Author, by)
			if _, mapped := done[cm.ID]; !faithful && !mapped {
				return nil
			}
			viewers = list
		}
	}
	switch {
	case len(waits) > 0:
		r.skip(FamilyComments, cm.ID, "the author %s is invited: written by the owner, theirs when they accept", writer)
	case by.Person.ID == r.owner.Person.ID && r.email(cm.Author) == "":
		r.skip(FamilyComments, cm.ID, "the author %s is not a member: written by the owner", cm.Author.Email)
	}
	_, mapped := done[cm.ID]
	added := r.added(dated{family: FamilyComments, id: cm.ID, what: "a comment", mapped: mapped}, cm.Added)
	id, err := r.sync(ctx, c, done, object{family: FamilyComments, kind: "comment", id: cm.ID, what: "comment",
		fingerprint: fingerprint(struct{ Text, By string }{cm.Text, writer}), added: added, waits: waits,
		create: func(ctx context.Context, rec *taskd.ImportRecord) (int64, error) {
			made, err := r.dst.Store.PostComment(ctx, by, taskID, taskd.CommentInput{Text: cm.Text, VisibleTo: viewers, Import: rec})
			return made.ID, err
		},
		update: func(ctx context.Context, local int64) error {
			_, err := r.dst.Store.UpdateComment(ctx, r.owner, local, cm.Text)
			return err
		},
	})
	if id != 0 {
		r.comments[cm.ID] = id
	}
	if id == 0 || err != nil || !cm.HiddenKnown {
		return err
	}
	return r.hiddenKept(ctx, FamilyComments, "comment", cm.ID, "a comment", id, viewers, hidden)
}

// costs brings over the cost lines of the imported projects, each logged
// by its author where they are a member who may work (else the owner; an
// invited author's line is theirs when they accept).
func (r *run) costs(ctx context.Context, c *Count) error {
	if err := r.ensureProjects(ctx); err != nil {
		return err
	}
	if err := r.taskMap(ctx); err != nil {
		return err
	}
	done, err := r.mappings(ctx, "cost")
	if err != nil {
		return err
	}
	for _, p := range r.sourceProjects {
		if _, ok := r.projects[p.ID]; !ok {
			continue
		}
		list, err := r.src.ProjectCosts(ctx, p.ID, nil)
		if err != nil {
			return err
		}
		for _, l := range list {
			if err := r.cost(ctx, c, l, done); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *run) cost(ctx context.Context, c *Count, l source.Cost, done map[string]taskd.ImportMapping) error {
	c.Read++
	taskID, ok := r.tasks[l.TaskID]
	if !ok {
		r.skip(FamilyCosts, l.ID, "a cost line of no imported task")
		return nil
	}
	by, writer, waits := r.author(l.Author, taskd.WaitCostAuthor)
	switch {
	case len(waits) > 0:
		r.skip(FamilyCosts, l.ID, "the author %s is invited: logged by the owner, theirs when they accept", writer)
	case by.Person.ID == r.owner.Person.ID && r.email(l.Author) == "":
		r.skip(FamilyCosts, l.ID, "the author %s is not a member: logged by the owner", l.Author.Email)
	}
	_, mapped := done[l.ID]
	date, write := r.date(dated{family: FamilyCosts, id: l.ID, what: "a cost line", mapped: mapped}, "date", l.Date)
	in := taskd.CostInput{Minutes: &l.Minutes, Cents: &l.Cents, Comment: &l.Comment, Date: write}
	_, err := r.sync(ctx, c, done, object{family: FamilyCosts, kind: "cost", id: l.ID, what: "cost line",
		fingerprint: fingerprint(struct {
			Minutes, Cents int64
			Comment, Date  string
			By             string
		}{l.Minutes, l.Cents, l.Comment, date, writer}), waits: waits,
		create: func(ctx context.Context, rec *taskd.ImportRecord) (int64, error) {
			in := in
			in.Import = rec
			made, err := r.dst.Store.AddCost(ctx, by, taskID, in)
			return made.ID, err
		},
		update: func(ctx context.Context, local int64) error {
			_, err := r.dst.Store.UpdateCost(ctx, r.owner, local, in)
			return err
		},
	})
	return err
}
