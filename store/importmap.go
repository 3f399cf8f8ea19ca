package store

import (
	"context"
	"time"

	"github.com/taskd/taskd"
)

var _ taskd.ImportStore = (*DB)(nil)

// importOf is the record a creation of family by by keeps, if any: only
// one of the family, by an actor marked Imported, in the actor's account
// (taskd.ImportRecord).
func importOf(rec *taskd.ImportRecord, by taskd.Actor, family string) (taskd.ImportRecord, bool) {
	if rec == nil || !by.Imported || rec.Key.Family != family || rec.Key.AccountID != by.AccountID {
		return taskd.ImportRecord{}, false
	}
	return *rec, true
}

// importedAdded is the source's creation date of the object of family
// being created with rec, or now.
func (db *DB) importedAdded(rec *taskd.ImportRecord, by taskd.Actor, family string) time.Time {
	if r, ok := importOf(rec, by, family); ok && !r.Added.IsZero() {
		return r.Added.UTC()
	}
	return db.now().UTC()
}

// writeImported writes the mapping of an object of family created with
// rec in its transaction, and what waits on it for invited people.
func (db *DB) writeImported(ctx context.Context, tx querier, by taskd.Actor, family string, localID int64, rec *taskd.ImportRecord) error {
	r, ok := importOf(rec, by, family)
	if !ok {
		return nil
	}
	if err := db.putImportMapping(ctx, tx, r.Key, taskd.ImportMapping{LocalID: localID, Fingerprint: r.Fingerprint}); err != nil {
		return err
	}
	return db.putWaiting(ctx, tx, by.AccountID, localID, family, r.Waiting)
}

const upsertImportMapping = `INSERT INTO import_map (account_id, source, family, source_id, local_id, fingerprint, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (account_id, source, family, source_id) DO UPDATE SET local_id = excluded.local_id,
		fingerprint = excluded.fingerprint, updated_at = excluded.updated_at`

func (db *DB) putImportMapping(ctx context.Context, q querier, k taskd.ImportKey, m taskd.ImportMapping) error {
	_, err := q.ExecContext(ctx, db.d.q(upsertImportMapping), k.AccountID, k.Source, k.Family, k.SourceID, m.LocalID, m.Fingerprint, ms(db.now()))
	return err
}

// SetImportMapping writes (or replaces) the mapping of a source object.
func (db *DB) SetImportMapping(ctx context.Context, k taskd.ImportKey, m taskd.ImportMapping) error {
	return db.tx(ctx, "set import mapping", func(tx querier) error {
		return db.putImportMapping(ctx, tx, k, m)
	})
}

// ImportMappings reads every mapping of a family of a source in the
// account, by source id.
func (db *DB) ImportMappings(ctx context.Context, accountID int64, source, family string) (map[string]taskd.ImportMapping, error) {
	rows, err := db.reader.QueryContext(ctx, db.d.q(`SELECT source_id, local_id, fingerprint FROM import_map
		WHERE account_id = ? AND source = ? AND family = ?`), accountID, source, family)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]taskd.ImportMapping{}
	for rows.Next() {
		var id string
		var m taskd.ImportMapping
		if err := rows.Scan(&id, &m.LocalID, &m.Fingerprint); err != nil {
			return nil, err
		}
		out[id] = m
	}
	return out, rows.Err()
}
