package api

import (
	"fmt"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// timerOut is a running timer of get_timers (spec §2.5): its time so far
// as HH:MM:SS, when it started, whose it is and its task.
type timerOut struct {
	ID          string          `json:"id"`
	Time        string          `json:"time"`
	DateStarted string          `json:"date_started"`
	UserFrom    taskd.PersonRef `json:"user_from"`
	Task        taskOut         `json:"task"`
}

// myTimerOut is get_my_timer's element: no id and no person
// (F:D-mytimer); its time is the running seconds, a bare number.
type myTimerOut struct {
	Time        int64   `json:"time"`
	DateStarted string  `json:"date_started"`
	Task        taskOut `json:"task"`
}

// clock writes a duration as HH:MM:SS; hours may pass 99.
func clock(d time.Duration) string {
	s := int64(d / time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

func getTimers(c *call) (any, error) {
	list, err := c.store.Timers(c.ctx, c.viewer())
	if err != nil {
		return nil, err
	}
	now := c.now()
	v := taskView{project: true}
	out := make([]timerOut, len(list))
	for i, tm := range list {
		out[i] = timerOut{ID: strconv.FormatInt(tm.ID, 10), Time: clock(tm.Elapsed(now)),
			DateStarted: wire.FormatDateTime(tm.Started), UserFrom: tm.Person, Task: v.render(tm.Task)}
	}
	return ok(out), nil
}

// stopTimer stops anyone's timer by id and records its time (the
// administrative key acts as the owner, who may).
func stopTimer(c *call) (any, error) {
	id, by, err := c.target("timer", CodeNotFound)
	if err != nil {
		return nil, err
	}
	x, err := c.store.StopTimer(c.ctx, by, id, "", c.zone())
	if err != nil {
		return nil, err
	}
	return okBody{Status: "ok", ID: strconv.FormatInt(x.ID, 10)}, nil
}

// getMyTimer answers a list of at most one timer: the Python SDK reads
// exactly one element as running.
func getMyTimer(c *call) (any, error) {
	tm, err := c.store.TimerOf(c.ctx, c.accountID(), c.personID())
	if err != nil && taskd.ErrorKind(err) == taskd.KindNotFound {
		return ok([]myTimerOut{}), nil
	}
	if err != nil {
		return nil, err
	}
	v := taskView{viewer: c.personID(), project: true}
	return ok([]myTimerOut{{Time: int64(tm.Elapsed(c.now()) / time.Second), DateStarted: wire.FormatDateTime(tm.Started), Task: v.render(tm.Task)}}), nil
}

// startMyTimer starts the caller's timer on a task. The same task again
// keeps the running timer; another task stops it first and records its
// time (docs/decisions.md).
func startMyTimer(c *call) (any, error) {
	id, by, err := c.target("id_task", CodeTaskInvalid)
	if err != nil {
		return nil, err
	}
	if _, _, err := c.store.StartTimer(c.ctx, by, id, c.zone()); err != nil {
		return nil, err
	}
	return ok(nil), nil
}

// stopMyTimer stops the caller's timer, records its time with the comment,
// and answers the new line's id as add_costs does.
func stopMyTimer(c *call) (any, error) {
	comment, err := taskd.CleanCostComment(c.p["comment"])
	if err != nil {
		return nil, err
	}
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	x, err := c.store.StopTimer(c.ctx, by, 0, comment, c.zone())
	if err != nil {
		return nil, err
	}
	return okBody{Status: "ok", ID: strconv.FormatInt(x.ID, 10)}, nil
}

func deleteMyTimer(c *call) (any, error) {
	by, err := c.actor()
	if err != nil {
		return nil, err
	}
	return ok(nil), c.store.DeleteTimer(c.ctx, by)
}
