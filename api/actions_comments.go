package api

import (
	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
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
	hidden, err := c.commentsHidden(list)
	if err != nil {
		return nil, err
	}
	for i, cm := range list {
		out[i] = renderComment(cm)
		if hidden != nil {
			out[i].Hidden = listOf(hidden, cm.ID)
		}
		if files != nil {
			out[i].Files = files[cm.ID]
			if out[i].Files == nil {
				out[i].Files = []fileRef{}
			}
		}
	}
	return ok(out), nil
}

// commentText reads the text and who writes it.
func (c *call) commentText() (string, taskd.Actor, error) {
	text, err := wire.ParseCommentText(c.opt)
	if err != nil {
		return "", taskd.Actor{}, err
	}
	by, err := c.actor()
	return text, by, err
}

func updateComment(c *call) (any, error) {
	id, err := c.id("id_comment", CodeCommentInvalid)
	if err != nil {
		return nil, err
	}
	text, by, err := c.commentText()
	if err != nil {
		return nil, err
	}
	cm, err := c.store.UpdateComment(c.ctx, by, id, text)
	if err != nil {
		return nil, err
	}
	return ok(renderComment(cm)), nil
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
// not a list of people: 11, C15). Its files come with it.
func postComment(c *call) (any, error) {
	id, err := c.id("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	var in taskd.CommentInput
	if v := c.p["hidden"]; v != "" {
		if in.VisibleTo, err = wire.ParseEmails("hidden", v); err != nil {
			return nil, err
		}
	}
	text, by, err := c.commentText()
	if err != nil {
		return nil, err
	}
	in.Text = text
	if in.Files, err = c.files(by); err != nil {
		return nil, err
	}
	cm, err := c.store.PostComment(c.ctx, by, id, in)
	if err != nil {
		return nil, err
	}
	c.uploads = nil // attached
	return ok(renderComment(cm)), nil
}
