package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
)

// foreignKeysOff, as the first line of a SQLite migration, has it applied
// with foreign keys off (applyWithoutForeignKeys): a migration that
// rebuilds a table by SQLite's procedure for changing one
// (https://www.sqlite.org/lang_altertable.html#otheralter) must, since a
// DROP TABLE with them on deletes the table's rows first, and with them
// every child row through ON DELETE CASCADE.
const foreignKeysOff = "-- taskd: foreign keys off"

// applyWithoutForeignKeys applies a SQLite migration as applyMigration
// does, with foreign keys off while it runs: on the write connection,
// held for the whole of it (the pool has that one: nothing here may ask
// the pool for another), turned off before the transaction begins (the
// pragma does nothing inside one). Before committing, PRAGMA
// foreign_key_check must find no row whose parent is missing, or nothing
// is committed. Foreign keys are on again after, whatever happened; a
// connection on which they cannot be turned on again is closed, never
// handed back to the pool.
func (db *DB) applyWithoutForeignKeys(ctx context.Context, name string, version int, body string) (err error) {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("apply %s: connect: %w", name, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return fmt.Errorf("apply %s: foreign keys off: %w", name, err)
	}
	defer func() {
		if on := foreignKeysOn(context.WithoutCancel(ctx), conn); on != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn }) // closes it
			err = errors.Join(err, fmt.Errorf("apply %s: %w", name, on))
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("apply %s: begin: %w", name, err)
	}
	defer tx.Rollback()
	if done, err := db.migrated(ctx, tx, version); done || err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return fmt.Errorf("apply %s: %w", name, err)
	}
	if err := foreignKeyCheck(ctx, tx); err != nil {
		return fmt.Errorf("apply %s: %w; nothing was changed", name, err)
	}
	if err := db.recordMigration(ctx, tx, version); err != nil {
		return fmt.Errorf("apply %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("apply %s: commit: %w", name, err)
	}
	return nil
}

// foreignKeysOn turns foreign keys on again on the connection, and checks
// that they are.
func foreignKeysOn(ctx context.Context, q querier) error {
	if _, err := q.ExecContext(ctx, `PRAGMA foreign_keys = ON`); err != nil {
		return fmt.Errorf("foreign keys on: %w", err)
	}
	var on int
	if err := q.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil {
		return fmt.Errorf("foreign keys on: %w", err)
	}
	if on != 1 {
		return errors.New("foreign keys are still off")
	}
	return nil
}

// foreignKeyCheck fails, naming up to five, when rows of the database
// name a parent that is not there (PRAGMA foreign_key_check).
func foreignKeyCheck(ctx context.Context, q querier) error {
	rows, err := q.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	defer rows.Close()
	var found []string
	n := 0
	for rows.Next() {
		var table, parent string
		var rowid *int64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return fmt.Errorf("foreign key check: %w", err)
		}
		if n++; len(found) < 5 {
			row := "a row"
			if rowid != nil {
				row = fmt.Sprintf("row %d", *rowid)
			}
			found = append(found, fmt.Sprintf("%s of %s names a missing %s", row, table, parent))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("foreign key check: %d rows name a parent that is not there (%s)", n, strings.Join(found, "; "))
	}
	return nil
}
