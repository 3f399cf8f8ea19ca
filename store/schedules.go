package store

import (
	"context"

	"github.com/taskd/taskd"
)

var _ taskd.ScheduleStore = (*DB)(nil)

// Schedules returns every member's schedule: their week (DefaultWeek until
// one is set) and the dates from from to to that differ from it.
func (db *DB) Schedules(ctx context.Context, accountID int64, from, to string) (map[int64]taskd.Schedule, error) {
	members, err := all(ctx, db.reader, "schedule members", db.d.q(`SELECT person_id FROM members WHERE account_id = ?`),
		func(s scanner) (id int64, err error) { return id, s.Scan(&id) }, accountID)
	if err != nil {
		return nil, err
	}
	type weekRow struct{ person, weekday, minutes int64 }
	weeks, err := all(ctx, db.reader, "schedule weeks", db.d.q(`SELECT person_id, weekday, minutes FROM schedule_weeks WHERE account_id = ?`),
		func(s scanner) (r weekRow, err error) { return r, s.Scan(&r.person, &r.weekday, &r.minutes) }, accountID)
	if err != nil {
		return nil, err
	}
	type dayRow struct {
		person  int64
		day     string
		minutes int64
	}
	days, err := all(ctx, db.reader, "schedule days", db.d.q(`SELECT person_id, day, minutes FROM schedule_days
		WHERE account_id = ? AND day >= ? AND day <= ?`),
		func(s scanner) (r dayRow, err error) { return r, s.Scan(&r.person, &r.day, &r.minutes) }, accountID, from, to)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]taskd.Schedule, len(members))
	for _, id := range members {
		out[id] = taskd.Schedule{PersonID: id, Week: taskd.DefaultWeek, Days: map[string]int64{}}
	}
	for _, r := range weeks {
		if s, ok := out[r.person]; ok && r.weekday >= 0 && r.weekday < 7 {
			s.Week[r.weekday] = r.minutes
			out[r.person] = s
		}
	}
	for _, r := range days {
		if s, ok := out[r.person]; ok {
			s.Days[r.day] = r.minutes
		}
	}
	return out, nil
}

// SetSchedules applies each change to its member in one transaction: a
// week first set starts from DefaultWeek, a date with no minutes goes back
// to its weekday's hours.
func (db *DB) SetSchedules(ctx context.Context, by taskd.Actor, changes []taskd.ScheduleChange) error {
	if err := taskd.CanSetSchedule(by); err != nil {
		return err
	}
	for _, ch := range changes {
		for day, m := range ch.Week {
			if m != nil {
				if err := taskd.CheckDayMinutes(taskd.WeekdayKeys[day], *m); err != nil {
					return err
				}
			}
		}
		for day, m := range ch.Days {
			if err := taskd.CheckDay(day); err != nil {
				return err
			}
			if m != nil {
				if err := taskd.CheckDayMinutes(day, *m); err != nil {
					return err
				}
			}
		}
	}
	return db.tx(ctx, "set schedules", func(tx querier) error {
		for _, ch := range changes {
			m, err := db.memberByEmail(ctx, tx, by.AccountID, ch.Email)
			if err != nil {
				return err
			}
			if err := db.setWeek(ctx, tx, by.AccountID, m.ID, ch.Week); err != nil {
				return err
			}
			for day, minutes := range ch.Days {
				if minutes == nil {
					_, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM schedule_days WHERE account_id = ? AND person_id = ? AND day = ?`),
						by.AccountID, m.ID, day)
				} else {
					_, err = tx.ExecContext(ctx, db.d.q(`INSERT INTO schedule_days (account_id, person_id, day, minutes) VALUES (?, ?, ?, ?)
						ON CONFLICT (account_id, person_id, day) DO UPDATE SET minutes = excluded.minutes`), by.AccountID, m.ID, day, *minutes)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// setWeek writes the weekdays the change gives onto the member's week,
// keeping the others: a week first set is DefaultWeek's rows, made unless
// present, and each weekday given is then one statement of its own, so
// two changes of different weekdays at once both hold.
func (db *DB) setWeek(ctx context.Context, tx querier, accountID, personID int64, change [7]*int64) error {
	if change == [7]*int64{} {
		return nil
	}
	for day, minutes := range taskd.DefaultWeek {
		_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO schedule_weeks (account_id, person_id, weekday, minutes) VALUES (?, ?, ?, ?)
			ON CONFLICT (account_id, person_id, weekday) DO NOTHING`), accountID, personID, day, minutes)
		if err != nil {
			return err
		}
	}
	for day, m := range change {
		if m == nil {
			continue
		}
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE schedule_weeks SET minutes = ? WHERE account_id = ? AND person_id = ? AND weekday = ?`),
			*m, accountID, personID, day)
		if err != nil {
			return err
		}
	}
	return nil
}
