package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/taskd/taskd"
)

// timerColumns select a running timer with its task (taskColumns first)
// and its person (scanTimer).
const timerColumns = taskFields + `,
	r.id, r.account_id, r.person_id, COALESCE(rp.email, ''), COALESCE(rp.first_name, ''), COALESCE(rp.last_name, ''), r.started_at
	FROM timers r JOIN tasks t ON t.id = r.task_id LEFT JOIN persons rp ON rp.id = r.person_id ` + taskJoins

func scanTimer(s scanner) (taskd.Timer, error) {
	var r taskRow
	var tm taskd.Timer
	var pid, started int64
	var pe, pf, pl string
	err := s.Scan(append(r.dest(), &tm.ID, &tm.AccountID, &pid, &pe, &pf, &pl, &started)...)
	tm.Task, tm.Person, tm.Started = r.task(), personRef(pid, pe, pf, pl), fromMS(started)
	return tm, err
}

// Timers lists the running timers on tasks the viewer sees, oldest first.
func (db *DB) Timers(ctx context.Context, v taskd.Viewer) ([]taskd.Timer, error) {
	seen := taskSeen(v, "t")
	out, err := all(ctx, db.reader, "timers", db.d.q(`SELECT `+timerColumns+` WHERE r.account_id = ?`+seen.where()+` ORDER BY r.started_at, r.id`),
		scanTimer, append([]any{v.AccountID}, seen.args...)...)
	if out == nil && err == nil {
		out = []taskd.Timer{}
	}
	return out, err
}

// TimerOf is the person's running timer; not found ("timer") when none.
func (db *DB) TimerOf(ctx context.Context, accountID, personID int64) (taskd.Timer, error) {
	return db.timer(ctx, db.reader, accountID, `r.person_id = ?`, personID)
}

func (db *DB) timer(ctx context.Context, q querier, accountID int64, cond string, v int64) (taskd.Timer, error) {
	tm, err := scanTimer(q.QueryRowContext(ctx, db.d.q(`SELECT `+timerColumns+` WHERE r.account_id = ? AND `+cond), accountID, v))
	if errors.Is(err, sql.ErrNoRows) {
		return tm, taskd.NotFound("timer")
	}
	if err != nil {
		return tm, taskd.Internal("timer", err)
	}
	return tm, nil
}

// StartTimer starts by's timer on an active task of an active project. A
// timer already on that task keeps running; one on another task is
// stopped first, its time recorded and returned.
func (db *DB) StartTimer(ctx context.Context, by taskd.Actor, taskID int64, zone *time.Location) (taskd.Timer, *taskd.Cost, error) {
	var tm taskd.Timer
	var stopped *taskd.Cost
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return tm, nil, err
	}
	err := db.tx(ctx, "start timer", func(tx querier) error {
		stopped = nil
		t, p, err := db.taskAndProject(ctx, tx, by.Viewer(), taskID)
		if err != nil {
			return err
		}
		if err := taskd.CanStartTimer(p, t); err != nil {
			return err
		}
		running, err := db.timer(ctx, tx, by.AccountID, `r.person_id = ?`, by.Person.ID)
		switch {
		case err == nil && running.Task.ID == t.ID:
			tm = running
			return nil
		case err == nil:
			c, err := db.recordTimer(ctx, tx, running, "", zone)
			if err != nil {
				return err
			}
			stopped = &c
		case !isNotFound(err):
			return err
		}
		tm = taskd.Timer{AccountID: by.AccountID, Person: by.Person, Started: db.now().UTC().Truncate(time.Millisecond), Task: t}
		// The unique (account, person) key keeps one timer per person when
		// two starts race: the later one finds the timer the other started.
		err = tx.QueryRowContext(ctx, db.d.q(`INSERT INTO timers (account_id, person_id, task_id, started_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (account_id, person_id) DO NOTHING RETURNING id`),
			tm.AccountID, tm.Person.ID, t.ID, ms(tm.Started)).Scan(&tm.ID)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if tm, err = db.timer(ctx, tx, by.AccountID, `r.person_id = ?`, by.Person.ID); err != nil {
			return err
		}
		if tm.Task.ID != t.ID {
			return taskd.Conflict(taskd.ReasonNone, "timer", "Another timer was started at the same moment; try again")
		}
		return nil
	})
	return tm, stopped, err
}

// StopTimer stops a timer (by id; 0: by's own) and records its time as a
// line of the timer's person, dated the day it started in zone. Stopping
// another person's timer takes what changing their costs takes.
func (db *DB) StopTimer(ctx context.Context, by taskd.Actor, timerID int64, comment string, zone *time.Location) (taskd.Cost, error) {
	var c taskd.Cost
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return c, err
	}
	err := db.tx(ctx, "stop timer", func(tx querier) error {
		tm, err := db.ownTimer(ctx, tx, by, timerID)
		if err != nil {
			return err
		}
		c, err = db.recordTimer(ctx, tx, tm, comment, zone)
		return err
	})
	return c, err
}

// DeleteTimer discards by's timer without recording it.
func (db *DB) DeleteTimer(ctx context.Context, by taskd.Actor) error {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return err
	}
	return db.tx(ctx, "delete timer", func(tx querier) error {
		tm, err := db.ownTimer(ctx, tx, by, 0)
		if err != nil {
			return err
		}
		return db.endTimer(ctx, tx, tm.ID)
	})
}

// ownTimer reads a timer by may stop: by id, or by's own for 0.
func (db *DB) ownTimer(ctx context.Context, tx querier, by taskd.Actor, timerID int64) (taskd.Timer, error) {
	if timerID == 0 {
		return db.timer(ctx, tx, by.AccountID, `r.person_id = ?`, by.Person.ID)
	}
	tm, err := db.timer(ctx, tx, by.AccountID, `r.id = ?`, timerID)
	if err != nil {
		return tm, err
	}
	return tm, taskd.CanChangeCost(by, taskd.Cost{AccountID: tm.AccountID, Person: tm.Person})
}

// recordTimer ends a timer and logs its time as a line of its person,
// even when its task was closed or its project archived since it started:
// the time was worked.
func (db *DB) recordTimer(ctx context.Context, tx querier, tm taskd.Timer, comment string, zone *time.Location) (taskd.Cost, error) {
	if err := db.endTimer(ctx, tx, tm.ID); err != nil {
		return taskd.Cost{}, err
	}
	if zone == nil {
		zone = time.UTC
	}
	now := db.now()
	c := taskd.Cost{AccountID: tm.AccountID, ProjectID: tm.Task.ProjectID, TaskID: tm.Task.ID, Task: tm.Task, Person: tm.Person,
		Minutes: taskd.TimerMinutes(tm.Elapsed(now)), Comment: comment, Date: tm.Started.In(zone).Format(taskd.DateLayout),
		IsTimer: true, Added: now.UTC()}
	return c, db.insertCost(ctx, tx, &c)
}

// isNotFound reports a not-found domain error.
func isNotFound(err error) bool {
	var de *taskd.Error
	return errors.As(err, &de) && de.Kind == taskd.KindNotFound
}

// endTimer deletes a running timer; not found when another transaction
// ended it first (two stops at once record it once).
func (db *DB) endTimer(ctx context.Context, tx querier, id int64) error {
	res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM timers WHERE id = ?`), id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return taskd.NotFound("timer")
	}
	return nil
}
