package taskd

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The words of the notifications a change makes, one line of a digest
// each (Notification.Line). The store writes them with the change; they
// are made here, where a change is described.

// excerpt shortens a text to one line of at most n characters.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// NoticeCreated is what followers are told of a new task.
func NoticeCreated(by Actor, t Task) string {
	return fmt.Sprintf("%s created the task, assigned to %s", by.Person.Name, whom(t.Assignee))
}

// NoticeAssigned is what followers are told of a new assignee.
func NoticeAssigned(by Actor, t Task) string {
	return fmt.Sprintf("%s assigned the task to %s", by.Person.Name, whom(t.Assignee))
}

// NoticeCommented is what followers are told of a comment.
func NoticeCommented(by Actor, text string) string {
	return fmt.Sprintf("%s commented: %s", by.Person.Name, excerpt(text, 200))
}

// NoticeStatus is what followers are told of a task completed or
// reopened.
func NoticeStatus(by Actor, done bool) string {
	if done {
		return by.Person.Name + " completed the task"
	}
	return by.Person.Name + " reopened the task"
}

func whom(p PersonRef) string {
	switch p.ID {
	case NobodyID:
		return "nobody"
	case AnyoneID:
		return "anyone"
	}
	return p.Name
}
