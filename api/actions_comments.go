package api

import (
	"strings"

	"github.com/taskd/taskd"
)

func getComments(c *call) (any, error) {
	id, err := c.id("id_task", taskd.CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	list, err := c.store.Comments(c.ctx, c.accountID(), id)
	if err != nil {
		return nil, err
	}
	out := make([]commentOut, len(list))
	for i, cm := range list {
		out[i] = renderComment(cm)
	}
	return ok(out), nil
}

// commentText reads the required, non-blank text of a comment.
func commentText(c *call) (string, error) {
	text, err := c.required("text")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(text), taskd.CheckText("text", text)
}

func postComment(c *call) (any, error) {
	id, err := c.id("id_task", taskd.CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	text, err := commentText(c)
	if err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	cm, err := c.store.CreateComment(c.ctx, by, id, text)
	if err != nil {
		return nil, err
	}
	return ok(renderComment(cm)), nil
}

func updateComment(c *call) (any, error) {
	id, err := c.id("id_comment", taskd.CodeCommentInvalid)
	if err != nil {
		return nil, err
	}
	text, err := commentText(c)
	if err != nil {
		return nil, err
	}
	by, err := c.actor()
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
	id, by, err := c.target("id_comment", taskd.CodeCommentInvalid)
	if err != nil {
		return nil, err
	}
	return ok(nil), c.store.DeleteComment(c.ctx, by, id)
}
