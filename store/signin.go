package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/ratelimit"
)

// SignInAttempt counts a sign-in attempt under each of attempts (one hit
// in its bucket, ratelimit.Strict.Plan) and reads the person with the
// e-mail and whether invitations wait for them. On PostgreSQL, when the
// person exists, it is one statement. Not found ("person") for an unknown
// e-mail, with the attempts counted all the same.
func (db *DB) SignInAttempt(ctx context.Context, email string, attempts []ratelimit.Attempt) (taskd.Person, bool, []ratelimit.Counted, error) {
	var p taskd.Person
	var invited, unknown bool
	counted := make([]ratelimit.Counted, len(attempts))
	if db.d.name != "postgres" || len(attempts) == 0 {
		err := db.tx(ctx, "sign-in attempt", func(tx querier) error {
			for i, a := range attempts {
				if err := tx.QueryRowContext(ctx, db.d.q(`INSERT INTO rate_counts (key, window_start, hits, expires) VALUES (?, ?, 1, ?)
					ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_counts.hits + 1 RETURNING hits`),
					a.Key, ms(a.Start), ms(a.Expires)).Scan(&counted[i].Cur); err != nil {
					return err
				}
				var agg sql.NullString
				if err := tx.QueryRowContext(ctx, db.d.q(`SELECT group_concat(window_start || ':' || hits, ',') FROM
					(SELECT window_start, hits FROM rate_counts WHERE key = ? AND window_start >= ? ORDER BY window_start)`),
					a.Key, ms(a.From)).Scan(&agg); err != nil {
					return err
				}
				var err error
				if counted[i].Counts, err = parseCounts(agg.String); err != nil {
					return err
				}
			}
			var err error
			p, err = scanPerson(tx.QueryRowContext(ctx, db.d.q(`SELECT `+personColumns+` FROM persons p WHERE p.email = ?`), email))
			if errors.Is(err, sql.ErrNoRows) {
				unknown = true // the attempts stay counted: commit
				return nil
			}
			if err != nil {
				return err
			}
			return tx.QueryRowContext(ctx, db.d.q(`SELECT EXISTS (SELECT 1 FROM invitations WHERE person_id = ?)`), p.ID).Scan(&invited)
		})
		return signInAnswer(p, invited, unknown, counted, err)
	}
	// PostgreSQL: the additions in a data-modifying WITH, read back with
	// the other buckets (whose snapshot the additions do not change) and
	// the person, in one statement.
	var values, reads []string
	var args []any
	for _, a := range attempts {
		values = append(values, "(?, ?, 1, ?)")
		args = append(args, a.Key, ms(a.Start), ms(a.Expires))
	}
	for _, a := range attempts {
		reads = append(reads, `(SELECT hits FROM hit WHERE key = ? AND window_start = ?),
			(SELECT string_agg(window_start || ':' || hits, ',' ORDER BY window_start) FROM rate_counts WHERE key = ? AND window_start >= ?)`)
		args = append(args, a.Key, ms(a.Start), a.Key, ms(a.From))
	}
	args = append(args, email)
	query := `WITH hit AS (INSERT INTO rate_counts (key, window_start, hits, expires) VALUES ` + strings.Join(values, ", ") + `
		ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_counts.hits + 1 RETURNING key, window_start, hits)
		SELECT ` + strings.Join(reads, ", ") + `, ` + personColumns + `,
		EXISTS (SELECT 1 FROM invitations i WHERE i.person_id = p.id)
		FROM (SELECT 1) one LEFT JOIN persons p ON p.email = ?`
	// The person's columns are NULL for an unknown e-mail: scan them only
	// when the id is there, which needs a first look at the row.
	err := db.tx(ctx, "sign-in attempt", func(tx querier) error {
		rows, err := tx.QueryContext(ctx, db.d.q(query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		if !rows.Next() {
			return errors.Join(rows.Err(), errors.New("no row"))
		}
		cols, err := rows.Columns()
		if err != nil {
			return err
		}
		raw := make([]any, len(cols))
		vals := make([]sql.NullString, len(cols))
		for i := range raw {
			raw[i] = &vals[i]
		}
		if err := rows.Scan(raw...); err != nil {
			return err
		}
		for i := range attempts {
			cur, agg := vals[2*i], vals[2*i+1]
			if counted[i].Cur, err = strconv.Atoi(cur.String); err != nil {
				return fmt.Errorf("hit count %q: %w", cur.String, err)
			}
			if counted[i].Counts, err = parseCounts(agg.String); err != nil {
				return err
			}
		}
		person := vals[2*len(attempts):]
		if !person[0].Valid {
			unknown = true // the attempts stay counted: commit
			return rows.Close()
		}
		p, err = scanPerson(scanFunc(func(dest ...any) error {
			if len(dest) != len(person)-1 {
				return fmt.Errorf("person: %d columns for %d", len(person)-1, len(dest))
			}
			for i, d := range dest {
				if err := convertAssign(d, person[i]); err != nil {
					return err
				}
			}
			return nil
		}))
		if err != nil {
			return err
		}
		invited = person[len(person)-1].String == "true" || person[len(person)-1].String == "t" || person[len(person)-1].String == "1"
		return rows.Close()
	})
	return signInAnswer(p, invited, unknown, counted, err)
}

func signInAnswer(p taskd.Person, invited, unknown bool, counted []ratelimit.Counted, err error) (taskd.Person, bool, []ratelimit.Counted, error) {
	switch {
	case err == nil && unknown:
		return taskd.Person{}, false, counted, taskd.NotFound("person")
	case err != nil:
		return taskd.Person{}, false, nil, taskd.Internal("sign-in attempt", err)
	}
	return p, invited, counted, nil
}

// parseCounts reads "start:hits,start:hits" (milliseconds).
func parseCounts(s string) ([]ratelimit.Count, error) {
	var out []ratelimit.Count
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		a, b, ok := strings.Cut(part, ":")
		start, err1 := strconv.ParseInt(a, 10, 64)
		hits, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("rate counts %q", s)
		}
		out = append(out, ratelimit.Count{Start: time.UnixMilli(start), Hits: hits})
	}
	return out, nil
}

// convertAssign stores a text column's value in a scan destination of the
// kinds persons' columns have.
func convertAssign(dest any, v sql.NullString) error {
	switch d := dest.(type) {
	case *string:
		*d = v.String
	case *int64:
		if !v.Valid {
			*d = 0
			return nil
		}
		n, err := strconv.ParseInt(v.String, 10, 64)
		*d = n
		return err
	case *int:
		if !v.Valid {
			*d = 0
			return nil
		}
		n, err := strconv.Atoi(v.String)
		*d = n
		return err
	case *sql.NullString:
		*d = v
	default:
		return fmt.Errorf("person column of type %T", dest)
	}
	return nil
}

// StartSession stores a sign-in session under the hash of its cookie,
// forgets the person's expired sessions and gives back the sign-in
// attempts that the sign-in counted: one statement on PostgreSQL.
func (db *DB) StartSession(ctx context.Context, hash string, personID int64, expires time.Time, giveBack []ratelimit.Ticket) error {
	now := db.now()
	var where []string
	var backArgs []any
	for _, t := range giveBack {
		if t.Key() == "" {
			continue
		}
		where = append(where, "(key = ? AND window_start = ?)")
		backArgs = append(backArgs, t.Key(), ms(t.Start()))
	}
	giveBackSQL := `UPDATE rate_counts SET hits = hits - 1 WHERE hits > 0 AND (` + strings.Join(where, " OR ") + `)`
	return db.tx(ctx, "create session", func(tx querier) error {
		if db.d.name == "postgres" {
			var args []any
			q := `WITH `
			if len(where) > 0 {
				q += `back AS (` + giveBackSQL + `), `
				args = append(args, backArgs...)
			}
			q += `gone AS (DELETE FROM sessions WHERE person_id = ? AND expires_at <= ?)
				INSERT INTO sessions (hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)`
			args = append(args, personID, ms(now), hash, personID, ms(now), ms(expires))
			_, err := tx.ExecContext(ctx, db.d.q(q), args...)
			return err
		}
		if len(where) > 0 {
			if _, err := tx.ExecContext(ctx, db.d.q(giveBackSQL), backArgs...); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM sessions WHERE person_id = ? AND expires_at <= ?`), personID, ms(now)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO sessions (hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)`),
			hash, personID, ms(now), ms(expires))
		return err
	})
}
