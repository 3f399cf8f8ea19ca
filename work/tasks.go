package work

import (
	"context"

	"github.com/taskd/taskd"
)

// Tasks changes tasks and who follows them.
type Tasks struct{ store Store }

// Create makes a task, or a subtask under parentID, with the files of
// in.Files attached, in one transaction (post_task).
func (s *Tasks) Create(ctx context.Context, by taskd.Actor, projectID, parentID int64, in taskd.TaskInput) (taskd.Task, error) {
	return s.store.CreateTask(ctx, by, projectID, parentID, in)
}

// Update changes a task's fields (update_task).
func (s *Tasks) Update(ctx context.Context, by taskd.Actor, id int64, in taskd.TaskInput) (taskd.Task, error) {
	return s.store.UpdateTask(ctx, by, id, in)
}

// SetDone completes a task (done) or reopens it.
func (s *Tasks) SetDone(ctx context.Context, by taskd.Actor, id int64, done bool) (taskd.Task, error) {
	if done {
		return s.store.CompleteTask(ctx, by, id)
	}
	return s.store.ReopenTask(ctx, by, id)
}

// Delete deletes a task with its subtasks, comments, lines and files.
func (s *Tasks) Delete(ctx context.Context, by taskd.Actor, id int64) error {
	return s.store.DeleteTask(ctx, by, id)
}

// Subscribe makes a member follow a task, or stop (on false).
func (s *Tasks) Subscribe(ctx context.Context, by taskd.Actor, id int64, email string, on bool) error {
	return s.store.Subscribe(ctx, by, id, email, on)
}
