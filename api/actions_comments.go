package api

import (
	"context"

	"github.com/taskd/taskd"
)

func getComments(c *call) (any, error) {
	id, err := c.id("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	list, err := c.store.Comments(c.ctx, c.viewer(), id)
	if err != nil {
		return nil, err
	}
	out := make([]commentOut, len(list))
	var files map[int64][]fileRef
	if c.extra("files") {
		all, err := c.store.Files(c.ctx, taskd.FileQuery{Viewer: c.viewer(), TaskID: id})
		if err != nil {
			return nil, err
		}
		files = filesOf(all, taskd.OwnerComment)
	}
	for i, cm := range list {
		out[i] = renderComment(cm)
		if files != nil {
			out[i].Files = files[cm.ID]
			if out[i].Files == nil {
				out[i].Files = []fileRef{}
			}
		}
	}
	return ok(out), nil
}

// writeComment reads a target id and the text, and makes the change.
func writeComment(idName string, code Code, write func(s Store, ctx context.Context, by taskd.Actor, id int64, text string) (taskd.Comment, error)) func(*call) (any, error) {
	return func(c *call) (any, error) {
		id, err := c.id(idName, code)
		if err != nil {
			return nil, err
		}
		text, err := taskd.ParseCommentText(c.opt)
		if err != nil {
			return nil, err
		}
		by, err := c.actor()
		if err != nil {
			return nil, err
		}
		named, err := c.namedUploads(by)
		if err != nil {
			return nil, err
		}
		cm, err := write(c.store, c.ctx, by, id, text)
		if err != nil {
			return nil, err
		}
		if err := c.attach(by, taskd.OwnerComment, cm.ID, named); err != nil {
			return nil, err
		}
		return ok(renderComment(cm)), nil
	}
}

func deleteComment(c *call) (any, error) {
	id, by, err := c.target("id_comment", CodeCommentInvalid)
	if err != nil {
		return nil, err
	}
	return ok(nil), c.store.DeleteComment(c.ctx, by, id)
}

// postComment is post_comment: with hidden (comma e-mails), a comment only
// those members and its author may see (the Python README's hidden=1 is
// not a list of people: 11, C15).
func postComment(c *call) (any, error) {
	v, ok := c.p["hidden"]
	if !ok || v == "" {
		return writeComment("id_task", CodeTaskInvalid, Store.CreateComment)(c)
	}
	hidden, err := taskd.ParseEmails("hidden", v)
	if err != nil {
		return nil, err
	}
	return writeComment("id_task", CodeTaskInvalid, func(s Store, ctx context.Context, by taskd.Actor, id int64, text string) (taskd.Comment, error) {
		return s.CreateHiddenComment(ctx, by, id, text, hidden)
	})(c)
}
