package api

import (
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/upload"
)

// MaxFilesPerRequest bounds the files of one request.
const MaxFilesPerRequest = 20

// fileParts are the file parts of a multipart request, read after the
// caller is authenticated and the action allowed: next is the first one,
// already met while the parameters before it were read.
type fileParts struct {
	mr   *multipart.Reader
	next *multipart.Part
	// gate admits the files once their sender is known, and body paces
	// them from then on.
	gate *upload.Gate
	body *upload.Body
}

// The bounds of a multipart body's parameters, read before the caller is
// known: their names and values together, and their number.
const (
	maxPartFields = 200
	partOverhead  = 256 // counted for each part besides its name and value
)

// parseMultipart reads a multipart/form-data body's parameters, which
// must all come before its files (as curl -F and both SDKs send them),
// and leaves the files to be streamed later: nothing of a file is read
// before the caller may send it.
func parseMultipart(w http.ResponseWriter, r *http.Request, req *request, gate *upload.Gate) error {
	mr, body, err := gate.MultipartReader(w, r)
	if err != nil {
		return failf(CodeMalformed, "Content-Type", "The multipart body has no boundary")
	}
	req.body = source{name: "multipart body", params: map[string]string{}}
	size := 0
	for fields := 0; ; fields++ {
		if fields == maxPartFields {
			return failf(CodeTooLarge, "", "A multipart body has at most %d parameters", maxPartFields)
		}
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return failf(CodeMalformed, "body", "The multipart body is malformed")
		}
		if p.FileName() != "" {
			req.parts = &fileParts{mr: mr, next: p, gate: gate, body: body}
			return nil
		}
		name := p.FormName()
		if size += len(name) + partOverhead; size > MaxBody {
			return failf(CodeTooLarge, "", "The parameters of a multipart body are larger than %d bytes", MaxBody)
		}
		v, err := io.ReadAll(io.LimitReader(p, int64(MaxBody-size)+1))
		if err != nil {
			return failf(CodeMalformed, "body", "The multipart body is malformed")
		}
		if size += len(v); size > MaxBody {
			return failf(CodeTooLarge, "", "The parameters of a multipart body are larger than %d bytes", MaxBody)
		}
		if _, dup := req.body.params[name]; dup {
			return failf(CodeMalformed, name, "Parameter is given more than once")
		}
		if err := checkText(name, string(v)); err != nil {
			return err
		}
		req.body.params[name] = string(v)
	}
}

// filesActions are the actions that take files in a multipart body.
var filesActions = map[string]bool{"upload_files": true, "post_project": true, "post_task": true, "post_comment": true}

// receiveFiles stores the request's files, before its action runs, as
// uploads of the caller's actor: a token needs files_write for them. A
// file part after them that is not a file, or too many files, refuse
// the request, and what was stored of it is deleted.
func (c *call) receiveFiles(name string) error {
	if c.parts == nil {
		return nil
	}
	if !filesActions[name] {
		return failf(CodeUnknownParam, c.parts.next.FormName(), "%s takes no files", name)
	}
	if c.who.person != nil && !taskd.HasScope(c.who.scopes, filesWrite) {
		return failf(CodeForbidden, filesWrite, "The access token lacks the scope %s", filesWrite)
	}
	by, err := c.actor()
	if err != nil {
		return err
	}
	release, err := c.parts.gate.Enter(c.accountID(), by.Person.ID)
	if err != nil {
		return partError(err, c.parts.next.FormName())
	}
	defer release()
	// The files may take longer than the server's read timeout: as long
	// as they keep their pace, within the size limits.
	c.parts.body.Pace()
	for p := c.parts.next; p != nil; {
		if p.FileName() == "" {
			c.dropUploads()
			return failf(CodeMalformed, p.FormName(), "Send parameters before files in a multipart body")
		}
		if len(c.uploads) == MaxFilesPerRequest {
			c.dropUploads()
			return failf(CodeInvalidValue, p.FormName(), "A request carries at most %d files", MaxFilesPerRequest)
		}
		f, err := c.store.CreateFile(c.ctx, by, p.FileName(), p.Header.Get("Content-Type"), p, c.fileLimits)
		if err != nil {
			c.dropUploads()
			return partError(err, p.FormName())
		}
		c.uploads = append(c.uploads, f)
		if p, err = c.parts.mr.NextPart(); errors.Is(err, io.EOF) {
			p = nil
		} else if err != nil {
			c.dropUploads()
			return failf(CodeMalformed, "body", "The multipart body is malformed")
		}
	}
	return nil
}

// partError is the answer to a file part the store or the upload gate
// refused (a taskd.Error on "file": too large, beyond the account's
// allowance, cut short, too many uploads in progress): its code as the
// one table maps it, naming the part as the client sent it (attach[1],
// files[]), which is the parameter at fault, not id_file.
func partError(err error, name string) error {
	var de *taskd.Error
	if !errors.As(err, &de) || de.Field != "file" {
		return err
	}
	e := asError(err)
	e.Details = name
	return e
}

// dropUploads deletes the files of a request that failed, even when its
// client has gone (its context ended).
func (c *call) dropUploads() {
	by, err := c.actor()
	ctx := context.WithoutCancel(c.ctx)
	for _, f := range c.uploads {
		if err == nil {
			_ = c.store.DeleteFile(ctx, by, f.ID) // else swept as an unattached upload
		}
	}
	c.uploads = nil
}

// files are the ids of the files an action's new object comes with: those
// named by the files parameter (uploaded before, C12) and the request's
// own. Both kinds have passed the scope check: the request's files in
// receiveFiles, the named ones here. The action makes the object with
// them in one transaction (taskd.TaskInput.Files and the others), then
// forgets the request's uploads, which are no longer to drop.
func (c *call) files(by taskd.Actor) ([]int64, error) {
	ids, err := c.namedUploads(by)
	if err != nil {
		return nil, err
	}
	for _, f := range c.uploads {
		ids = append(ids, f.ID)
	}
	return ids, nil
}

// namedUploads reads the files parameter: ids of the caller's uploads not
// attached yet (a JSON list of upload_files' objects arrives as their ids).
func (c *call) namedUploads(by taskd.Actor) ([]int64, error) {
	v := c.p["files"]
	if v == "" {
		return nil, nil
	}
	if c.who.person != nil && !taskd.HasScope(c.who.scopes, filesWrite) {
		return nil, failf(CodeForbidden, filesWrite, "The access token lacks the scope %s", filesWrite)
	}
	var ids []int64
	for _, s := range strings.Split(v, ",") {
		id, err := taskd.ParseID(strings.TrimSpace(s), "file")
		if err != nil {
			return nil, failf(CodeInvalidValue, "files", "files lists ids of uploaded files")
		}
		f, err := c.store.File(c.ctx, by.Viewer(), id)
		if err != nil || f.Owner != taskd.OwnerNone || f.Author.ID != by.Person.ID {
			return nil, failf(CodeInvalidValue, "files", "File %d is not an upload of yours waiting to be attached", id)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// uploadOut is upload_files' answer for each file (the Python SDK's
// uploaded-file object).
type uploadOut struct {
	ID    string `json:"id"`
	Ext   string `json:"ext"`
	Name  string `json:"name"`
	Icon  string `json:"icon"`
	Error string `json:"error"`
}

// uploadFiles stores files to attach later with post_task or post_comment
// (files); left unattached, they are deleted within a day.
func uploadFiles(c *call) (any, error) {
	if len(c.uploads) == 0 {
		return nil, fail(CodeFieldRequired, "files[]")
	}
	out := make([]uploadOut, len(c.uploads))
	for i, f := range c.uploads {
		ext := strings.TrimPrefix(path.Ext(f.Name), ".")
		out[i] = uploadOut{ID: strconv.FormatInt(f.ID, 10), Ext: ext, Name: f.Name, Icon: iconOf(ext)}
	}
	c.uploads = nil // kept: they wait to be attached
	return ok(out), nil
}

// iconOf names a file's kind for the Python SDK's icon field.
func iconOf(ext string) string {
	switch strings.ToLower(ext) {
	case "png", "jpg", "jpeg", "gif", "webp", "svg":
		return "image"
	case "pdf":
		return "pdf"
	case "doc", "docx", "odt", "txt", "md", "rtf":
		return "doc"
	case "xls", "xlsx", "ods", "csv":
		return "xls"
	case "zip", "rar", "7z", "gz", "tar":
		return "archive"
	}
	return "file"
}
