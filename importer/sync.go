package importer

import (
	"context"
	"time"

	"github.com/taskd/taskd"
)

// object is one source object to make or bring up to date by its mapping.
type object struct {
	family string // the report's family (FamilyTasks, …)
	kind   string // the mapping's family ("task", …)
	id     string // the source's id
	what   string // how the report names it: `task "Write copy"`
	// fingerprint is a digest of what is written (fingerprint()).
	fingerprint string
	// added is the source's creation date, kept as the object's own; zero
	// when the source gives none.
	added time.Time
	// create makes the object with rec, its record (mapping, date and
	// waits), written in the object's own transaction.
	create func(ctx context.Context, rec *taskd.ImportRecord) (int64, error)
	// update brings the mapped object to what the source has.
	update func(ctx context.Context, local int64) error
	// waits are the roles on the object that wait for invited people:
	// kept with its creation (its record's), or after its
	// update, and given to them when they accept.
	waits []taskd.WaitingRole
	// current, when set, says whether the mapped object is still as the
	// run wrote it beyond its fingerprint (a task's completion); false
	// updates it although the fingerprint is the same.
	current func(ctx context.Context, local int64) bool
	// stored, when set, is the part of a mapping's fingerprint to compare
	// with fingerprint: a file's mapping keeps its content's digest, known
	// only once downloaded, beside what the source lists.
	stored func(mapped string) string
	// replace, when set in place of update, makes the object anew in
	// place of the mapped one (a file: its content is not changed, but
	// replaced), with its record as create. It returns the new local id.
	replace func(ctx context.Context, local int64, rec *taskd.ImportRecord) (int64, error)
}

// sync makes o when it is not mapped, or updates it when what the source
// has changed since the last run, counting which into c. A refusal of the
// destination is reported and skipped; only the mapping's store failing
// stops the run. It returns the local id, 0 when o was not made.
func (r *run) sync(ctx context.Context, c *Count, done map[string]taskd.ImportMapping, o object) (int64, error) {
	defer r.during(c)
	m, mapped := done[o.id]
	if !mapped {
		id, err := r.created(c, func() (int64, error) { return o.create(ctx, r.record(o)) })
		if err != nil {
			c.Created-- // counted as made by created: it was not
			r.skip(o.family, o.id, "%s: %v", o.what, err)
			return 0, nil
		}
		return id, nil
	}
	was := m.Fingerprint
	if o.stored != nil {
		was = o.stored(was)
	}
	if was == o.fingerprint && (o.current == nil || o.current(ctx, m.LocalID)) {
		c.Unchanged++
		return m.LocalID, nil
	}
	c.Updated++
	if r.opts.DryRun {
		return m.LocalID, nil
	}
	if o.replace != nil {
		id, err := o.replace(ctx, m.LocalID, r.record(o))
		if err != nil {
			r.skip(o.family, o.id, "%s: %v", o.what, err)
			return m.LocalID, nil
		}
		return id, nil
	}
	if err := o.update(ctx, m.LocalID); err != nil {
		r.skip(o.family, o.id, "%s: %v", o.what, err)
		return m.LocalID, nil
	}
	// Before the fingerprint: a run stopped between them, or a refusal
	// (an invitation being answered), updates again next time.
	if len(o.waits) > 0 {
		if err := r.dst.Store.SetImportWaiting(ctx, r.dst.Account.ID, m.LocalID, o.waits); err != nil {
			r.skip(o.family, o.id, "%s: what waits for invited people: %v", o.what, err)
			return m.LocalID, nil
		}
	}
	return m.LocalID, r.dst.Store.SetImportMapping(ctx, r.key(o.kind, o.id), taskd.ImportMapping{LocalID: m.LocalID, Fingerprint: o.fingerprint})
}

// record is what the creation of o records with it: its mapping, the
// source's date and what waits on it for invited people.
func (r *run) record(o object) *taskd.ImportRecord {
	return &taskd.ImportRecord{Key: r.key(o.kind, o.id), Fingerprint: o.fingerprint, Added: o.added, Waiting: o.waits}
}
