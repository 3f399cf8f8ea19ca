package importer

import (
	"context"
	"fmt"
	"io"
	"mime"
	"os"
	"path"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// fileWrite is what the source lists of a file: the part of its
// fingerprint known before it is downloaded. A file's mapping keeps
// "LISTED:SHA256", the digest of the content brought over after it.
type fileWrite struct {
	Name  string
	Size  int64
	Owner string // the source's owner: "project:ID", "task:ID" or "comment:ID"
}

// listedPart is the part of a file mapping's fingerprint the listing
// gives (fileWrite's).
func listedPart(mapped string) string {
	listed, _, _ := strings.Cut(mapped, ":")
	return listed
}

// commentFiles are the files of one source comment.
type commentFiles struct {
	id    string
	files []source.File
}

// listedFile is a source file with the local object it attaches to.
type listedFile struct {
	source.File
	owner   string // taskd.OwnerProject, OwnerTask or OwnerComment
	local   int64  // the local project, task or comment
	ownerID string // the source's owner, as fileWrite.Owner
}

// filesStep brings over the files of the imported projects: each
// project's own, its tasks' at every depth and their comments'. A file is
// downloaded to a temporary file (one at a time, removed after), checked
// against the size the source listed, uploaded by its author where they
// are a member who may work (else the owner) and attached to its owner,
// the mapping written with the attach. A mapped file whose listing is
// unchanged is not downloaded again.
func (r *run) filesStep(ctx context.Context, c *Count) error {
	if err := r.taskMap(ctx); err != nil {
		return err
	}
	done, err := r.mappings(ctx, "file")
	if err != nil {
		return err
	}
	comments, err := r.mappings(ctx, "comment")
	if err != nil {
		return err
	}
	for id, m := range comments {
		if _, ok := r.comments[id]; !ok {
			r.comments[id] = m.LocalID
		}
	}
	dir := ""
	if !r.opts.DryRun {
		if dir, err = os.MkdirTemp("", "taskd-import-"); err != nil {
			return fmt.Errorf("a directory for the downloads: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	seen := map[string]bool{}
	return r.eachTree(ctx, func(p source.Project, tree []source.Task) error {
		list, err := r.projectFiles(ctx, p, r.projects[p.ID], tree)
		if err != nil {
			return err
		}
		for _, f := range list {
			// Once a run, wherever else the source lists it: a file
			// brought to two owners would move at every run.
			if seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			if err := r.file(ctx, c, dir, f, done); err != nil {
				return err
			}
		}
		return nil
	})
}

// projectFiles lists the files of a project with what each attaches to:
// its own (the source's list of the project's files without its tasks'
// and their comments'), then its tasks' and comments', each task before
// its subtasks. Tasks and comments name their files with an id, a name
// and a size only: their author and date are the project's list's.
func (r *run) projectFiles(ctx context.Context, p source.Project, pid int64, tree []source.Task) ([]listedFile, error) {
	all, err := r.src.Files(ctx, p.ID, "")
	if err != nil {
		return nil, err
	}
	full := map[string]source.File{}
	for _, f := range all {
		full[f.ID] = f
	}
	listed := func(f source.File) source.File {
		if l, ok := full[f.ID]; ok {
			return l
		}
		return f
	}
	var out []listedFile
	var others [][]source.File
	var failed error
	source.Walk(tree, func(t *source.Task) {
		if failed != nil {
			return
		}
		others = append(others, t.Files)
		local, ok := r.tasks[t.ID]
		if !ok {
			// Not imported (the tasks say why): its comments' files are
			// not the project's own either.
			all, err := r.src.Files(ctx, "", t.ID)
			failed = err
			others = append(others, all)
			return
		}
		cs, err := r.commentFilesOf(ctx, t.ID)
		if failed = err; err != nil {
			return
		}
		// A source that lists a comment's files among its task's too has
		// them attached to the comment.
		var ofComments [][]source.File
		for _, cm := range cs {
			ofComments = append(ofComments, cm.files)
		}
		for _, f := range source.OwnFiles(t.Files, ofComments...) {
			out = append(out, listedFile{File: listed(f), owner: taskd.OwnerTask, local: local, ownerID: "task:" + t.ID})
		}
		for _, cm := range cs {
			others = append(others, cm.files)
			local, ok := r.comments[cm.id]
			if !ok {
				r.skip(FamilyFiles, cm.id, "%d files of a comment that was not imported", len(cm.files))
				continue
			}
			for _, f := range cm.files {
				out = append(out, listedFile{File: listed(f), owner: taskd.OwnerComment, local: local, ownerID: "comment:" + cm.id})
			}
		}
	})
	if failed != nil {
		return nil, failed
	}
	var own []listedFile
	for _, f := range source.OwnFiles(all, others...) {
		own = append(own, listedFile{File: f, owner: taskd.OwnerProject, local: pid, ownerID: "project:" + p.ID})
	}
	return append(own, out...), nil
}

// commentFilesOf is the files of a source task's comments: those the
// comments family read, or read now when it did not run (--only).
func (r *run) commentFilesOf(ctx context.Context, taskID string) ([]commentFiles, error) {
	if r.commentsRead {
		return r.commentFiles[taskID], nil
	}
	list, err := r.src.Comments(ctx, taskID)
	if err != nil {
		return nil, err
	}
	var out []commentFiles
	for _, cm := range list {
		if len(cm.Files) > 0 {
			out = append(out, commentFiles{id: cm.ID, files: cm.Files})
		}
	}
	return out, nil
}

func (r *run) file(ctx context.Context, c *Count, dir string, f listedFile, done map[string]taskd.ImportMapping) error {
	c.Read++
	by, writer, waits := r.author(f.Author, taskd.WaitFileAuthor)
	switch {
	case len(waits) > 0:
		r.skip(FamilyFiles, f.ID, "the author %s of %s is invited: attached by the owner, theirs when they accept", writer, quote(f.Name))
	case by.Person.ID == r.owner.Person.ID && f.Author.Email != "" && r.email(f.Author) == "":
		r.skip(FamilyFiles, f.ID, "the author %s of %s is not a member: attached by the owner", f.Author.Email, quote(f.Name))
	}
	listed := fingerprint(fileWrite{Name: f.Name, Size: f.Size, Owner: f.ownerID})
	// A file is made anew, with its creation date, when new or listed
	// otherwise than it was (replace).
	m, mapped := done[f.ID]
	kept := mapped && listedPart(m.Fingerprint) == listed
	f.Added = r.added(dated{family: FamilyFiles, id: f.ID, what: "file " + quote(f.Name), mapped: kept}, f.Added)
	_, err := r.sync(ctx, c, done, object{family: FamilyFiles, kind: "file", id: f.ID, what: "file " + quote(f.Name),
		fingerprint: listed, added: f.Added, stored: listedPart, waits: waits,
		create: func(ctx context.Context, rec *taskd.ImportRecord) (int64, error) {
			return r.bringFile(ctx, by, dir, f, 0, *rec)
		},
		// A file whose listing changed (its name, size or owner) is
		// brought over again in place of the old copy.
		replace: func(ctx context.Context, old int64, rec *taskd.ImportRecord) (int64, error) {
			return r.bringFile(ctx, by, dir, f, old, *rec)
		},
	})
	return err
}

// bringFile downloads f into a temporary file of dir, uploads it as by's
// and attaches it to its owner with rec, its record, whose fingerprint
// (what the source lists) it completes with the content's digest: the
// mapping is written in the attach's transaction. An upload is unseen until attached: a run killed
// before leaves nothing visible, and the next one brings the file again.
// old, when not 0, is the copy the file replaces, deleted just before the
// attach.
func (r *run) bringFile(ctx context.Context, by taskd.Actor, dir string, f listedFile, old int64, rec taskd.ImportRecord) (int64, error) {
	tmp, err := os.CreateTemp(dir, "file-*")
	if err != nil {
		return 0, fmt.Errorf("a temporary file: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	size, sum, err := r.src.Download(ctx, f.File, tmp)
	if err != nil {
		return 0, fmt.Errorf("downloading: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("reading the download back: %w", err)
	}
	made, err := r.dst.Store.CreateFile(ctx, by, f.Name, contentType(f.Name), tmp, r.fileLimits())
	if err != nil {
		return 0, fmt.Errorf("storing: %w", err)
	}
	drop := func() { _ = r.dst.Store.DeleteFile(context.WithoutCancel(ctx), by, made.ID) } // else swept, unseen
	if made.Size != size || made.SHA256 != sum {
		drop()
		return 0, fmt.Errorf("stored %d bytes of SHA-256 %s, downloaded %d bytes of %s", made.Size, made.SHA256, size, sum)
	}
	if old != 0 {
		if err := r.dst.Store.DeleteFile(ctx, r.owner, old); err != nil && !taskd.IsNotFound(err) {
			drop()
			return 0, fmt.Errorf("deleting the copy it replaces: %w", err)
		}
	}
	rec.Fingerprint += ":" + sum
	if err := r.dst.Store.AttachImportedFile(ctx, by, made.ID, f.owner, f.local, rec); err != nil {
		drop()
		return 0, fmt.Errorf("attaching to its %s: %w", f.owner, err)
	}
	return made.ID, nil
}

// contentType is the type of a file by its name's extension, the way a
// browser sends it.
func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
