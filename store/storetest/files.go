package storetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
	"time"

	"github.com/taskd/taskd"
)

// testFiles: a file is stored in chunks and read back byte for byte with
// its hash, seen only once attached, attached only by who uploaded it;
// limits per file and per account, and a reader that fails midway, leave
// nothing behind; deleting follows one policy; unattached uploads and the
// files of deleted tasks are swept; another account sees none of it.
func testFiles(t *testing.T, f *Fixture) {
	ctx := t.Context()
	s, owner := f.Store, f.Owner
	uma := member(t, f, "uma", taskd.RoleUser)
	ann := member(t, f, "ann", taskd.RoleUser)
	p := newProject(t, f)
	task := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("T")}))(t)
	limits := taskd.FileLimits{MaxFileBytes: 4 << 20, MaxAccountBytes: 6 << 20}

	content := make([]byte, 2*taskd.FileChunk+12345)
	for i := range content {
		content[i] = byte(rand.IntN(256))
	}
	sum := sha256.Sum256(content)
	file := must(s.CreateFile(ctx, uma, `..\evil/"report".pdf`, "application/pdf", bytes.NewReader(content), limits))(t)
	if file.ID == 0 || file.Size != int64(len(content)) || file.SHA256 != hex.EncodeToString(sum[:]) || file.Name != "report.pdf" ||
		file.Owner != taskd.OwnerNone || file.Author.ID != uma.Person.ID {
		t.Fatalf("stored %+v", file)
	}
	if l := must(s.Files(ctx, taskd.FileQuery{Viewer: taskd.AccountViewer(f.Account.ID)}))(t); len(l) != 0 {
		t.Fatalf("an unattached upload is listed: %+v", l)
	}
	want(t, s.AttachFiles(ctx, ann, []int64{file.ID}, taskd.OwnerTask, task.ID), taskd.KindNotFound, "file")
	want(t, s.AttachFiles(ctx, uma, []int64{file.ID}, taskd.OwnerTask, 999999), taskd.KindNotFound, "task")
	noErr(t, s.AttachFiles(ctx, uma, []int64{file.ID}, taskd.OwnerTask, task.ID))
	want(t, s.AttachFiles(ctx, uma, []int64{file.ID}, taskd.OwnerProject, p.ID), taskd.KindNotFound, "file")
	for _, q := range []taskd.FileQuery{{TaskID: task.ID}, {ProjectID: p.ID}, {}} {
		q.Viewer = taskd.AccountViewer(f.Account.ID)
		if l := must(s.Files(ctx, q))(t); len(l) != 1 || l[0].ID != file.ID || l[0].TaskID != task.ID || l[0].ProjectID != p.ID {
			t.Fatalf("files of %+v: %+v", q, l)
		}
	}
	got, err := io.ReadAll(s.OpenFile(ctx, must(s.File(ctx, taskd.AccountViewer(f.Account.ID), file.ID))(t)))
	noErr(t, err)
	if !bytes.Equal(got, content) {
		t.Fatalf("read back %d bytes, not the %d stored", len(got), len(content))
	}
	empty := must(s.CreateFile(ctx, owner, "empty.txt", "text/plain", bytes.NewReader(nil), limits))(t)
	if b, err := io.ReadAll(s.OpenFile(ctx, empty)); err != nil || len(b) != 0 || empty.Size != 0 {
		t.Fatalf("an empty file: %d bytes, %v", len(b), err)
	}

	// Limits and broken uploads leave nothing.
	used := must(s.FileBytes(ctx, f.Account.ID))(t)
	for name, r := range map[string]io.Reader{
		"over the file limit":    bytes.NewReader(make([]byte, limits.MaxFileBytes+1)),
		"over the account limit": io.LimitReader(zeros{}, 4<<20),
		"broken midway":          io.MultiReader(bytes.NewReader(make([]byte, taskd.FileChunk+10)), iotest.ErrReader(errors.New("connection reset"))),
	} {
		if name == "over the account limit" {
			must(s.CreateFile(ctx, owner, "filler", "application/octet-stream", io.LimitReader(zeros{}, 3<<20), limits))(t)
			used = must(s.FileBytes(ctx, f.Account.ID))(t)
		}
		_, err := s.CreateFile(ctx, owner, "big.bin", "application/octet-stream", r, limits)
		want(t, err, taskd.KindInvalid, "file")
		if now := must(s.FileBytes(ctx, f.Account.ID))(t); now != used {
			t.Fatalf("%s: %d bytes stored after the refusal, %d before", name, now, used)
		}
	}

	// Deleting: the author, an admin or the owner.
	want(t, s.DeleteFile(ctx, ann, file.ID), taskd.KindForbidden, "file")
	noErr(t, s.DeleteFile(ctx, owner, file.ID))
	_, err = s.File(ctx, taskd.AccountViewer(f.Account.ID), file.ID)
	want(t, err, taskd.KindNotFound, "file")

	// The sweep: unattached uploads from before the time go, recent ones
	// stay; the files of a deleted task go.
	old := must(s.CreateFile(ctx, uma, "old.txt", "text/plain", bytes.NewReader([]byte("old")), limits))(t)
	f.Clock.Advance(2 * time.Hour)
	recent := must(s.CreateFile(ctx, uma, "recent.txt", "text/plain", bytes.NewReader([]byte("new")), limits))(t)
	gone := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Gone")}))(t)
	onGone := must(s.CreateFile(ctx, owner, "gone.txt", "text/plain", bytes.NewReader([]byte("x")), limits))(t)
	noErr(t, s.AttachFiles(ctx, owner, []int64{onGone.ID}, taskd.OwnerTask, gone.ID))
	noErr(t, s.DeleteTask(ctx, owner, gone.ID))
	_, err = s.File(ctx, taskd.AccountViewer(f.Account.ID), onGone.ID) // gone with its task, before the sweep
	want(t, err, taskd.KindNotFound, "file")
	swept := must(s.DeleteUnattachedFiles(ctx, f.Clock.Now().Add(-time.Hour)))(t)
	if swept < 2 {
		t.Fatalf("swept %d files, want the old upload and the deleted task's file at least", swept)
	}
	for id, kept := range map[int64]bool{old.ID: false, onGone.ID: false, recent.ID: true} {
		if _, err := s.File(ctx, uma.Viewer(), id); (err == nil) != kept { // uploads are their uploader's
			t.Fatalf("file %d kept %v after the sweep: %v", id, !kept, err)
		}
	}

	// A hidden task's and a hidden comment's files are left out for
	// those they are hidden from.
	secret := must(s.CreateTask(ctx, owner, p.ID, 0, taskd.TaskInput{Name: new("Secret"), Hidden: []string{ann.Person.Email}}))(t)
	onSecret := must(s.CreateFile(ctx, owner, "s.txt", "text/plain", bytes.NewReader([]byte("s")), limits))(t)
	noErr(t, s.AttachFiles(ctx, owner, []int64{onSecret.ID}, taskd.OwnerTask, secret.ID))
	note := must(s.CreateHiddenComment(ctx, owner, task.ID, "Between us", []string{ann.Person.Email}))(t)
	onNote := must(s.CreateFile(ctx, owner, "n.txt", "text/plain", bytes.NewReader([]byte("n")), limits))(t)
	noErr(t, s.AttachFiles(ctx, owner, []int64{onNote.ID}, taskd.OwnerComment, note.ID))
	for who, n := range map[int64]int{uma.Person.ID: 0, ann.Person.ID: 2, 0: 2} {
		l := must(s.Files(ctx, taskd.FileQuery{Viewer: viewerOf(t, f, who), ProjectID: p.ID}))(t)
		if len(l) != n {
			t.Fatalf("viewer %d sees %d files, want %d: %+v", who, len(l), n, l)
		}
	}

	// Uploads at once see each other's growth: the second passes the
	// allowance while the first waits midway, so the first is refused.
	tight := taskd.FileLimits{MaxFileBytes: 4 << 20, MaxAccountBytes: must(s.FileBytes(ctx, f.Account.ID))(t) + 3<<20}
	pr, pw := io.Pipe()
	first := make(chan error, 1)
	go func() {
		_, err := s.CreateFile(ctx, owner, "slow.bin", "application/octet-stream", pr, tight)
		first <- err
	}()
	pw.Write(make([]byte, 2*taskd.FileChunk)) // the first two chunks are stored
	must(s.CreateFile(ctx, owner, "fast.bin", "application/octet-stream", io.LimitReader(zeros{}, 2<<20), tight))(t)
	go func() { pw.Write(make([]byte, taskd.FileChunk)); pw.Close() }()
	want(t, <-first, taskd.KindInvalid, "file")

	// Another account.
	b, bOwner := NewAccount(t, s, "other")
	_, err = s.File(ctx, taskd.AccountViewer(b.ID), recent.ID)
	want(t, err, taskd.KindNotFound, "file")
	want(t, s.DeleteFile(ctx, bOwner, recent.ID), taskd.KindNotFound, "file")
	want(t, s.AttachFiles(ctx, bOwner, []int64{recent.ID}, taskd.OwnerProject, p.ID), taskd.KindNotFound, "project")
}

// zeros reads zero bytes forever.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
