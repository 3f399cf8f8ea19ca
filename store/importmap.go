package store

import (
	"context"
	"time"

	"github.com/taskd/taskd"
)

// ImportKey names an object of a source account an import reads: the
// source account's URL (without its key), the family ("project", "task",
// "comment", "cost", ...) and the source's id.
type ImportKey struct {
	AccountID int64
	Source    string
	Family    string
	SourceID  string
}

// ImportMapping is what an import made of a source object: the local id
// and a fingerprint of what it last wrote from the source.
type ImportMapping struct {
	LocalID     int64
	Fingerprint string
}

// importCtx is the context key of a creation's mapping (WithImportMapping).
type importCtx struct{}

// importWrite is the mapping a creation writes in its own transaction, and
// the source's creation date it keeps.
type importWrite struct {
	key         ImportKey
	fingerprint string
	added       time.Time
}

// WithImportMapping makes the creation of an object (a project, a task, a
// comment, a cost line, a contact, a relation; a file by its attach,
// AttachFiles) called with the context write the object's mapping under
// key in the object's own transaction, so that an import killed at any
// point finds either both or neither. added, when not zero,
// is the source's creation date, kept as the object's own. The mapping is
// written only for an actor marked Imported, and only by the creation of
// key's family.
func WithImportMapping(ctx context.Context, key ImportKey, fingerprint string, added time.Time) context.Context {
	return context.WithValue(ctx, importCtx{}, importWrite{key: key, fingerprint: fingerprint, added: added})
}

// importOf is the mapping a creation of family by by writes, if any.
func importOf(ctx context.Context, by taskd.Actor, family string) (importWrite, bool) {
	w, ok := ctx.Value(importCtx{}).(importWrite)
	if !ok || !by.Imported || w.key.Family != family || w.key.AccountID != by.AccountID {
		return importWrite{}, false
	}
	return w, true
}

// importedAdded is the source's creation date of the object family being
// created, or now.
func (db *DB) importedAdded(ctx context.Context, by taskd.Actor, family string) time.Time {
	if w, ok := importOf(ctx, by, family); ok && !w.added.IsZero() {
		return w.added.UTC()
	}
	return db.now().UTC()
}

// writeImported writes the mapping of a created object in its transaction,
// and what waits on it for invited people (WithImportWaiting).
func (db *DB) writeImported(ctx context.Context, tx querier, by taskd.Actor, family string, localID int64) error {
	w, ok := importOf(ctx, by, family)
	if !ok {
		return nil
	}
	if err := db.putImportMapping(ctx, tx, w.key, ImportMapping{LocalID: localID, Fingerprint: w.fingerprint}); err != nil {
		return err
	}
	return db.writeWaiting(ctx, tx, by.AccountID, family, localID)
}

const upsertImportMapping = `INSERT INTO import_map (account_id, source, family, source_id, local_id, fingerprint, updated_at)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (account_id, source, family, source_id) DO UPDATE SET local_id = excluded.local_id,
		fingerprint = excluded.fingerprint, updated_at = excluded.updated_at`

func (db *DB) putImportMapping(ctx context.Context, q querier, k ImportKey, m ImportMapping) error {
	_, err := q.ExecContext(ctx, db.d.q(upsertImportMapping), k.AccountID, k.Source, k.Family, k.SourceID, m.LocalID, m.Fingerprint, ms(db.now()))
	return err
}

// SetImportMapping writes (or replaces) the mapping of a source object.
func (db *DB) SetImportMapping(ctx context.Context, k ImportKey, m ImportMapping) error {
	return db.tx(ctx, "set import mapping", func(tx querier) error {
		return db.putImportMapping(ctx, tx, k, m)
	})
}

// ImportMappings reads every mapping of a family of a source in the
// account, by source id.
func (db *DB) ImportMappings(ctx context.Context, accountID int64, source, family string) (map[string]ImportMapping, error) {
	rows, err := db.reader.QueryContext(ctx, db.d.q(`SELECT source_id, local_id, fingerprint FROM import_map
		WHERE account_id = ? AND source = ? AND family = ?`), accountID, source, family)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ImportMapping{}
	for rows.Next() {
		var id string
		var m ImportMapping
		if err := rows.Scan(&id, &m.LocalID, &m.Fingerprint); err != nil {
			return nil, err
		}
		out[id] = m
	}
	return out, rows.Err()
}

// The families whose creation writes its mapping (WithImportMapping).
const (
	importProject = "project"
	importTask    = "task"
	importComment = "comment"
	importCost    = "cost"
	importContact = "contact"
	// importRelation's local id is the dependent task's (taskd.Relation.To).
	importRelation = "relation"
	importFile     = "file" // written by the attach of an upload (AttachFiles)
)
