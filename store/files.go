package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/taskd/taskd"
)

var _ taskd.FileStore = (*DB)(nil)

// fileAlive keeps files whose owner still exists: those of a task or
// comment deleted since wait only for the sweep, unseen.
const fileAlive = ` AND (f.owner IN ('', 'project') OR (f.owner = 'task' AND EXISTS (SELECT 1 FROM tasks ft WHERE ft.id = f.owner_id))
	OR (f.owner = 'comment' AND EXISTS (SELECT 1 FROM comments fc WHERE fc.id = f.owner_id)))`

const fileColumns = `f.id, f.account_id, f.owner, f.owner_id, f.project_id, f.task_id, f.name, f.content_type, f.size, f.sha256,
	f.author_id, COALESCE(p.email, ''), COALESCE(p.first_name, ''), COALESCE(p.last_name, ''), f.created_at
	FROM files f LEFT JOIN persons p ON p.id = f.author_id`

func scanFile(s scanner) (taskd.File, error) {
	var f taskd.File
	var aid, added int64
	var ae, af, al string
	err := s.Scan(&f.ID, &f.AccountID, &f.Owner, &f.OwnerID, &f.ProjectID, &f.TaskID, &f.Name, &f.ContentType, &f.Size, &f.SHA256,
		&aid, &ae, &af, &al, &added)
	f.Author, f.Added = personRef(aid, ae, af, al), fromMS(added)
	return f, err
}

// tooLarge is the refusal of a file over a limit.
func tooLarge(msg string, args ...any) error {
	return &taskd.Error{Kind: taskd.KindInvalid, Field: "file", Reason: taskd.ReasonTooLarge, Message: fmt.Sprintf(msg, args...)}
}

// CreateFile stores r's content in chunks, each written in its own short
// transaction so that a large upload never holds the database's write
// lock for long. The file row is marked complete last: until then no
// list or download sees it, and a failure or a crash leaves a row that
// DeleteUnattachedFiles removes. Its growing size counts against the
// account's limit as it is written, so that uploads at once cannot all
// pass it.
func (db *DB) CreateFile(ctx context.Context, by taskd.Actor, name, contentType string, r io.Reader, limits taskd.FileLimits) (taskd.File, error) {
	f := taskd.File{AccountID: by.AccountID, Name: taskd.CleanFileName(name), ContentType: contentType, Author: by.Person,
		Added: db.now().UTC()}
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return f, err
	}
	used, err := db.FileBytes(ctx, by.AccountID)
	if err != nil {
		return f, err
	}
	if used >= limits.MaxAccountBytes {
		return f, tooLarge("The account's files take their whole allowance of %d MB", limits.MaxAccountBytes>>20)
	}
	err = db.tx(ctx, "create file", func(tx querier) error {
		return tx.QueryRowContext(ctx, db.d.q(`INSERT INTO files (account_id, name, content_type, author_id, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`), f.AccountID, f.Name, f.ContentType, f.Author.ID, ms(f.Added)).Scan(&f.ID)
	})
	if err != nil {
		return f, err
	}
	if err := db.writeChunks(ctx, &f, r, limits); err != nil {
		// Nothing of a refused or broken upload stays, whatever the
		// request's context has become; should this fail too, the row is
		// incomplete, unseen, and DeleteUnattachedFiles removes it.
		_ = db.dropFile(context.WithoutCancel(ctx), f.ID)
		return taskd.File{}, err
	}
	return f, nil
}

// writeChunks reads r to its end into chunks of f, then completes f.
func (db *DB) writeChunks(ctx context.Context, f *taskd.File, r io.Reader, limits taskd.FileLimits) error {
	hash := sha256.New()
	buf := make([]byte, taskd.FileChunk)
	r = cutShort{r}
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		end := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !end {
			// A body cut off (its client gone, or too slow to keep its
			// pace) is the sender's failure: nothing of it is stored.
			return &taskd.Error{Kind: taskd.KindInvalid, Field: "file", Message: "The file could not be read to its end", Err: err}
		}
		if n > 0 {
			f.Size += int64(n)
			if f.Size > limits.MaxFileBytes {
				return tooLarge("A file is at most %d MB", limits.MaxFileBytes>>20)
			}
			hash.Write(buf[:n])
			if err := db.tx(ctx, "store file chunk", func(tx querier) error {
				// The other files as they are now, uploads in progress
				// included, so that uploads at once cannot all pass.
				var others int64
				if err := tx.QueryRowContext(ctx, db.d.q(`SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM files WHERE account_id = ? AND id <> ?`),
					f.AccountID, f.ID).Scan(&others); err != nil {
					return err
				}
				if others+f.Size > limits.MaxAccountBytes {
					return tooLarge("The account's files would pass their allowance of %d MB", limits.MaxAccountBytes>>20)
				}
				if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO file_chunks (file_id, seq, data) VALUES (?, ?, ?)`), f.ID, seq, buf[:n]); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, db.d.q(`UPDATE files SET size = ? WHERE id = ?`), f.Size, f.ID)
				return err
			}); err != nil {
				return err
			}
		}
		if end {
			break
		}
	}
	f.SHA256 = hex.EncodeToString(hash.Sum(nil))
	return db.tx(ctx, "complete file", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE files SET sha256 = ?, complete = 1 WHERE id = ?`), f.SHA256, f.ID)
		return err
	})
}

func (db *DB) dropFile(ctx context.Context, id int64) error {
	return db.tx(ctx, "drop file", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM files WHERE id = ?`), id)
		return err
	})
}

// AttachFiles attaches by's unattached uploads to a project, task or
// comment of the account.
func (db *DB) AttachFiles(ctx context.Context, by taskd.Actor, ids []int64, owner string, ownerID int64) error {
	return db.attachFiles(ctx, by, ids, owner, ownerID, nil)
}

// AttachImportedFile attaches one of by's unattached uploads as
// AttachFiles does, with an import's record (taskd.ImportStore): the
// mapping, and the source's creation date as the file's, are written in
// the attach's transaction. An upload is unseen until it is attached, so
// an import killed at any point leaves either an attached, mapped file
// or an unseen upload the sweep removes.
func (db *DB) AttachImportedFile(ctx context.Context, by taskd.Actor, id int64, owner string, ownerID int64, rec taskd.ImportRecord) error {
	return db.attachFiles(ctx, by, []int64{id}, owner, ownerID, &rec)
}

// attachFiles attaches uploads, and keeps the record of an import's file
// (rec, given with one upload only).
func (db *DB) attachFiles(ctx context.Context, by taskd.Actor, ids []int64, owner string, ownerID int64, rec *taskd.ImportRecord) error {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return err
	}
	return db.tx(ctx, "attach files", func(tx querier) error {
		project, task, err := db.fileOwner(ctx, tx, by.Viewer(), owner, ownerID)
		if err != nil {
			return err
		}
		if err := db.attach(ctx, tx, by, ids, owner, ownerID, project, task); err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		return db.attachImported(ctx, tx, by, ids[0], rec)
	})
}

// attachImported keeps, for a file an import attaches, the source's
// creation date and the file's mapping. The date is set at the attach,
// not the upload: an unattached upload dated long ago would be the
// sweep's (DeleteUnattachedFiles) before the import attaches it.
func (db *DB) attachImported(ctx context.Context, tx querier, by taskd.Actor, id int64, rec *taskd.ImportRecord) error {
	r, ok := importOf(rec, by, taskd.ImportFile)
	if !ok {
		return nil
	}
	if !r.Added.IsZero() {
		if _, err := tx.ExecContext(ctx, db.d.q(`UPDATE files SET created_at = ? WHERE id = ?`), ms(r.Added.UTC()), id); err != nil {
			return fmt.Errorf("the imported file's date: %w", err)
		}
	}
	return db.writeImported(ctx, tx, by, taskd.ImportFile, id, rec)
}

// attach attaches by's unattached uploads to an object of its project and
// task, in the transaction of the change that makes or names it; a file
// that is not by's upload is not found.
func (db *DB) attach(ctx context.Context, tx querier, by taskd.Actor, ids []int64, owner string, ownerID, project, task int64) error {
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE files SET owner = ?, owner_id = ?, project_id = ?, task_id = ?
			WHERE id = ? AND account_id = ? AND author_id = ? AND owner = '' AND complete = 1`),
			owner, ownerID, project, task, id, by.AccountID, by.Person.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return taskd.NotFound("file")
		}
	}
	return nil
}

// fileOwner finds the project and task of an object files attach to.
func (db *DB) fileOwner(ctx context.Context, tx querier, v taskd.Viewer, owner string, id int64) (project, task int64, err error) {
	switch owner {
	case taskd.OwnerProject:
		p, err := db.project(ctx, tx, v, id, false)
		return p.ID, 0, err
	case taskd.OwnerTask:
		t, err := db.task(ctx, tx, v, id, false)
		return t.ProjectID, t.ID, err
	case taskd.OwnerComment:
		c, err := db.comment(ctx, tx, v, id, false)
		return c.Project.ID, c.TaskID, err
	}
	return 0, 0, taskd.Invalid("owner", "Files attach to a project, a task or a comment")
}

// File returns one complete file of the account; not found ("file")
// otherwise.
func (db *DB) File(ctx context.Context, v taskd.Viewer, id int64) (taskd.File, error) {
	seen := filesSeen(v)
	f, err := scanFile(db.reader.QueryRow(ctx, db.d.q(`SELECT `+fileColumns+` WHERE f.account_id = ? AND f.id = ? AND f.complete = 1`+fileAlive+seen.where()),
		append([]any{v.AccountID, id}, seen.args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return f, taskd.NotFound("file")
	}
	if err != nil {
		return f, taskd.Internal("file", err)
	}
	return f, nil
}

// Files lists the attached files of a project (with its tasks' and
// comments') or of a task (with its comments'), oldest first.
func (db *DB) Files(ctx context.Context, q taskd.FileQuery) ([]taskd.File, error) {
	seen := filesSeen(q.Viewer)
	where, args := ` WHERE f.account_id = ? AND f.complete = 1 AND f.owner <> ''`+fileAlive+seen.where(), append([]any{q.Viewer.AccountID}, seen.args...)
	if q.ProjectID != 0 {
		where += ` AND f.project_id = ?`
		args = append(args, q.ProjectID)
	}
	if q.TaskID != 0 {
		where += ` AND f.task_id = ?`
		args = append(args, q.TaskID)
	}
	out, err := all(ctx, db.reader, "files", db.d.q(`SELECT `+fileColumns+where+` ORDER BY f.id`), scanFile, args...)
	if out == nil && err == nil {
		out = []taskd.File{}
	}
	return out, err
}

// OpenFile streams a file's chunks in order, reading one at a time.
func (db *DB) OpenFile(ctx context.Context, f taskd.File) io.ReadCloser {
	return &chunkReader{ctx: ctx, db: db, file: f.ID, chunks: int((f.Size + taskd.FileChunk - 1) / taskd.FileChunk)}
}

// chunkReader reads a file's chunks one query at a time, so that a
// download holds one chunk in memory and no transaction open.
type chunkReader struct {
	ctx    context.Context
	db     *DB
	file   int64
	next   int // the next chunk's seq
	chunks int
	buf    []byte
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.next >= c.chunks {
			return 0, io.EOF
		}
		c.buf = c.buf[:0]
		err := c.db.reader.QueryRow(c.ctx, c.db.d.q(`SELECT data FROM file_chunks WHERE file_id = ? AND seq = ?`), c.file, c.next).Scan(&c.buf)
		if err != nil {
			return 0, taskd.Internal("read file chunk", err)
		}
		c.next++
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *chunkReader) Close() error { c.buf = nil; return nil }

// DeleteFile deletes a file its author, an admin or the owner may delete.
func (db *DB) DeleteFile(ctx context.Context, by taskd.Actor, id int64) error {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return err
	}
	f, err := db.File(ctx, by.Viewer(), id)
	if err != nil {
		return err
	}
	if err := taskd.CanChangeFile(by, f); err != nil {
		return err
	}
	return db.tx(ctx, "delete file", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM files WHERE id = ? AND account_id = ?`), f.ID, f.AccountID)
		return err
	})
}

// DeleteUnattachedFiles deletes uploads left unattached, and files never
// completed, since before the time, and the files of deleted tasks and
// comments.
// Files go a batch at a time, each in its own transaction, so that a large
// sweep never holds the write lock for long.
func (db *DB) DeleteUnattachedFiles(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		var n int64
		err := db.tx(ctx, "delete unattached files", func(tx querier) error {
			res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM files WHERE id IN (SELECT id FROM files
				WHERE ((owner = '' OR complete = 0) AND created_at < ?)
				OR (owner = 'task' AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = files.owner_id))
				OR (owner = 'comment' AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.id = files.owner_id))
				LIMIT 20)`), ms(before))
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += int(n)
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// FileBytes is the size of all of an account's files, those being
// written included.
func (db *DB) FileBytes(ctx context.Context, accountID int64) (int64, error) {
	var n int64
	err := db.reader.QueryRow(ctx, db.d.q(`SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM files WHERE account_id = ?`), accountID).Scan(&n)
	if err != nil {
		return 0, taskd.Internal("file bytes", err)
	}
	return n, nil
}

// errCutShort is a source that ended before its end: a multipart body cut
// off mid-file, say.
var errCutShort = errors.New("the content ended before its end")

// cutShort tells a source's own io.ErrUnexpectedEOF apart from the one
// io.ReadFull returns for a short last chunk.
type cutShort struct{ r io.Reader }

func (c cutShort) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = errCutShort
	}
	return n, err
}
