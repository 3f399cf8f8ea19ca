package work

import (
	"context"
	"time"

	"github.com/taskd/taskd"
)

// Costs changes cost lines, rates and timers. zone is where the actor's
// days begin: a line from a timer is dated the day it started there.
type Costs struct{ store Store }

// Add logs a line on a task.
func (s *Costs) Add(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CostInput) (taskd.Cost, error) {
	return s.store.AddCost(ctx, by, taskID, in)
}

// Update changes a line, if by may (taskd.CanChangeCost).
func (s *Costs) Update(ctx context.Context, by taskd.Actor, id int64, in taskd.CostInput) (taskd.Cost, error) {
	return s.store.UpdateCost(ctx, by, id, in)
}

// Delete deletes a line, if by may.
func (s *Costs) Delete(ctx context.Context, by taskd.Actor, id int64) error {
	return s.store.DeleteCost(ctx, by, id)
}

// SetRate sets a member's hourly rate (nil: none).
func (s *Costs) SetRate(ctx context.Context, by taskd.Actor, personID int64, rate *int64) error {
	return s.store.SetRate(ctx, by, personID, rate)
}

// StartTimer starts by's timer on a task; a timer on another task is
// stopped first and its line returned.
func (s *Costs) StartTimer(ctx context.Context, by taskd.Actor, taskID int64, zone *time.Location) (taskd.Timer, *taskd.Cost, error) {
	return s.store.StartTimer(ctx, by, taskID, zone)
}

// StopTimer stops a timer (0: by's own) and records its line.
func (s *Costs) StopTimer(ctx context.Context, by taskd.Actor, timerID int64, comment string, zone *time.Location) (taskd.Cost, error) {
	return s.store.StopTimer(ctx, by, timerID, comment, zone)
}

// DiscardTimer stops by's timer without recording it.
func (s *Costs) DiscardTimer(ctx context.Context, by taskd.Actor) error {
	return s.store.DeleteTimer(ctx, by)
}
