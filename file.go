package taskd

import (
	"context"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// File is an attachment (spec §11): its content lives in the database in
// chunks, read and written as streams, never whole in memory.
type File struct {
	ID        int64
	AccountID int64
	// Owner is what the file is attached to: OwnerProject, OwnerTask or
	// OwnerComment with OwnerID; "" for an upload not attached yet
	// (upload_files), which is deleted when left so.
	Owner       string
	OwnerID     int64
	ProjectID   int64 // the project of the owner, 0 until attached
	TaskID      int64 // the task of a task's or comment's file
	Name        string
	ContentType string
	Size        int64
	SHA256      string // hex
	Author      PersonRef
	Added       time.Time
}

// What a file is attached to.
const (
	OwnerNone    = ""
	OwnerProject = "project"
	OwnerTask    = "task"
	OwnerComment = "comment"
)

// Page is the file's download address relative to the account URL
// (spec §2.5).
func (f File) Page() string { return "/download/" + strconv.FormatInt(f.ID, 10) }

// FileLimits bound what an account stores.
type FileLimits struct {
	MaxFileBytes    int64 // one file
	MaxAccountBytes int64 // all of an account's files
}

// DefaultFileLimits are the limits when none are configured.
var DefaultFileLimits = FileLimits{MaxFileBytes: 256 << 20, MaxAccountBytes: 10 << 30}

// FileChunk is the size of the chunks files are stored in.
const FileChunk = 512 << 10

// MaxFileName bounds a file's name, in bytes.
const MaxFileName = 255

// CleanFileName makes a name safe to store and to send in a header: the
// last element of any path, without control characters, quotes or
// backslashes, trimmed of dots and spaces, cut to MaxFileName bytes at a
// character's boundary; "file" when nothing is left.
func CleanFileName(name string) string {
	name = strings.ToValidUTF8(name, "")
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	var b strings.Builder
	for _, r := range name {
		switch {
		case unicode.IsControl(r), r == '"', r == '/', r == '\\', unicode.Is(unicode.Bidi_Control, r):
		default:
			b.WriteRune(r)
		}
	}
	name = b.String()
	for len(name) > MaxFileName {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	// Trimmed after the cut, which may leave a space or a dot at the end.
	name = strings.Trim(name, " .")
	if name == "" {
		return "file"
	}
	return name
}

// FileQuery selects an account's attached files: those of a project
// (its own and its tasks' and comments'), or of a task (its own and its
// comments'). Zero fields do not filter.
type FileQuery struct {
	// Viewer is who the files are for: only those of objects they see.
	Viewer    Viewer
	ProjectID int64
	TaskID    int64
}

// FileStore keeps files.
type FileStore interface {
	// CreateFile stores what r yields as a new file of by, not attached,
	// within the limits: a file or an account over them is invalid
	// ("file", 413 in HTTP) and nothing of it is kept. The file is seen
	// only once all of it is stored.
	CreateFile(ctx context.Context, by Actor, name, contentType string, r io.Reader, limits FileLimits) (File, error)
	// AttachFiles attaches unattached files of by's to an object of the
	// account; a file that is not by's upload is not found.
	AttachFiles(ctx context.Context, by Actor, ids []int64, owner string, ownerID int64) error
	// File is not found ("file") unless the viewer sees what it is
	// attached to (an upload not attached yet: its uploader only).
	File(ctx context.Context, v Viewer, id int64) (File, error)
	Files(ctx context.Context, q FileQuery) ([]File, error)
	// OpenFile streams a stored file's content, a chunk at a time.
	OpenFile(ctx context.Context, f File) io.ReadCloser
	DeleteFile(ctx context.Context, by Actor, id int64) error
	// DeleteUnattachedFiles deletes uploads left unattached since before
	// the time, and files whose storing never finished.
	DeleteUnattachedFiles(ctx context.Context, before time.Time) (int, error)
	// FileBytes is the size of all of an account's files.
	FileBytes(ctx context.Context, accountID int64) (int64, error)
}

// CanChangeFile returns nil when by may delete f: who attached it, or a
// member who may moderate (the rule of comments and cost lines).
func CanChangeFile(by Actor, f File) error {
	if by.AccountID != f.AccountID {
		return NotFound("file")
	}
	if f.Author.ID == by.Person.ID && by.Role.Can(PermWork) {
		return nil
	}
	if by.Role.Can(PermModerate) {
		return nil
	}
	return Forbidden("file", "Only the person who attached a file, an admin or the owner may delete it")
}
