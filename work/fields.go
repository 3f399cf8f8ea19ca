package work

import (
	"context"

	"github.com/taskd/taskd"
)

// Fields defines an account's custom fields. Their values are set with
// the other fields of a task or project (Tasks.Update, Projects.Update).
type Fields struct{ store Store }

// Add defines a field of tasks or of projects (owners and admins only).
func (s *Fields) Add(ctx context.Context, by taskd.Actor, f taskd.CustomField) (taskd.CustomField, error) {
	return s.store.AddCustomField(ctx, by, f)
}

// Update renames a field and changes its description and a list's
// options.
func (s *Fields) Update(ctx context.Context, by taskd.Actor, f taskd.CustomField) (taskd.CustomField, error) {
	return s.store.UpdateCustomField(ctx, by, f)
}

// Delete deletes a field with its values.
func (s *Fields) Delete(ctx context.Context, by taskd.Actor, id int64) error {
	return s.store.DeleteCustomField(ctx, by, id)
}
