package api

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// fileOut is a File of get_files (spec §2.5): its size a string.
type fileOut struct {
	ID        string          `json:"id"`
	Page      string          `json:"page"`
	Name      string          `json:"name"`
	Size      string          `json:"size"`
	DateAdded string          `json:"date_added"`
	UserFrom  taskd.PersonRef `json:"user_from"`
}

// fileRef is the files field of tasks and comments (extra=files).
type fileRef struct {
	ID   string `json:"id"`
	Size string `json:"size"`
	Name string `json:"name"`
	Page string `json:"page"`
}

func renderFile(f taskd.File) fileOut {
	return fileOut{ID: strconv.FormatInt(f.ID, 10), Page: f.Page(), Name: f.Name, Size: strconv.FormatInt(f.Size, 10),
		DateAdded: taskd.FormatDateTime(f.Added), UserFrom: f.Author}
}

func renderFileRef(f taskd.File) fileRef {
	return fileRef{ID: strconv.FormatInt(f.ID, 10), Size: strconv.FormatInt(f.Size, 10), Name: f.Name, Page: f.Page()}
}

// filesOf returns the files attached to each object of a kind, by id,
// among a task's (or a project's) files.
func filesOf(files []taskd.File, owner string) map[int64][]fileRef {
	out := map[int64][]fileRef{}
	for _, f := range files {
		if f.Owner == owner {
			out[f.OwnerID] = append(out[f.OwnerID], renderFileRef(f))
		}
	}
	return out
}

// getFiles lists the files of a project (its own and its tasks' and
// comments', C10: all of them) or of a task (its own and its comments').
func getFiles(c *call) (any, error) {
	q := taskd.FileQuery{AccountID: c.accountID(), Viewer: c.viewer()}
	var err error
	if q.TaskID, err = c.optID("id_task", CodeTaskInvalid); err != nil {
		return nil, err
	}
	if q.TaskID == 0 {
		if q.ProjectID, err = c.id("id_project", CodeProjectInvalid); err != nil {
			return nil, err
		}
		_, err = c.store.Project(c.ctx, q.AccountID, q.ProjectID)
	} else {
		_, err = c.store.Task(c.ctx, q.AccountID, q.TaskID)
	}
	if err != nil {
		return nil, err
	}
	files, err := c.store.Files(c.ctx, q)
	if err != nil {
		return nil, err
	}
	return ok(renderEach(files, renderFile)), nil
}

// fileBody is download's answer: the file's content, not JSON.
type fileBody struct {
	file taskd.File
	body io.ReadCloser
}

// download answers a file's content as an attachment (guard has checked
// the caller may see what it is attached to).
func download(c *call) (any, error) {
	id, err := c.id("id_file", CodeNotFound)
	if err != nil {
		return nil, err
	}
	f, err := c.store.File(c.ctx, c.accountID(), id)
	if err != nil {
		return nil, err
	}
	if f.Owner == taskd.OwnerNone && (c.who.person == nil || f.Author.ID != c.who.person.ID) {
		return nil, taskd.NotFound("file") // an upload not attached is its uploader's alone
	}
	return fileBody{file: f, body: c.store.OpenFile(c.ctx, f)}, nil
}

// writeFile streams a file as an attachment that no browser renders in
// the account's origin: a safe type, nosniff, a sandbox, and the name in
// Content-Disposition both as plain ASCII and as UTF-8 (RFC 6266).
func writeFile(w http.ResponseWriter, fb fileBody) error {
	defer fb.body.Close()
	// A large file takes longer than the server's write timeout: allow a
	// minute plus the time at 64 KB/s.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute + time.Duration(fb.file.Size/(64<<10))*time.Second))
	h := w.Header()
	h.Set("Content-Type", safeContentType(fb.file.ContentType))
	h.Set("Content-Disposition", contentDisposition(fb.file.Name))
	h.Set("Content-Length", strconv.FormatInt(fb.file.Size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	_, err := io.Copy(w, fb.body)
	return err
}

// inlineSafe are the types served as they are; anything else, HTML and
// SVG above all, is application/octet-stream.
var inlineSafe = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "application/pdf": true,
	"text/plain": true, "text/csv": true, "application/zip": true, "application/json": true,
	"audio/mpeg": true, "video/mp4": true,
}

func safeContentType(t string) string {
	media, _, err := mime.ParseMediaType(t)
	if err != nil || !inlineSafe[media] {
		return "application/octet-stream"
	}
	if strings.HasPrefix(media, "text/") {
		return media + "; charset=utf-8"
	}
	return media
}

// contentDisposition names the file for a download: an ASCII fallback
// (other characters as _) and the exact name as filename*.
func contentDisposition(name string) string {
	var ascii strings.Builder
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' {
			r = '_'
		}
		ascii.WriteRune(r)
	}
	return `attachment; filename="` + ascii.String() + `"; filename*=UTF-8''` + encodeRFC5987(name)
}

// encodeRFC5987 percent-encodes every byte but RFC 5987's attr-char.
func encodeRFC5987(s string) string {
	const attrChar = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(attrChar, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
