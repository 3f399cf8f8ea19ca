package web

import (
	"context"
	"errors"
	"html/template"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/httpfile"
	"github.com/taskd/taskd/internal/upload"
)

// fileRoutes are the addresses of files: uploads to a task or project, a
// download, a deletion.
func (s *Server) fileRoutes() []route {
	return []route{
		{"POST /a/{slug}/tasks/{task}/files", s.upload(s.inAccount(taskd.PermWork, s.taskChange("files", s.addTaskFiles)))},
		{"POST /a/{slug}/project/{project}/files", s.upload(s.inAccount(taskd.PermWork, s.addProjectFiles))},
		{"POST /a/{slug}/files/{file}/delete", s.form(s.inAccount(taskd.PermWork, s.deleteFile))},
		{"GET /a/{slug}/download/{file}", s.page(s.inAccount(taskd.PermRead, s.downloadFile))},
	}
}

// fileFuncs are the template functions of files.
func fileFuncs() template.FuncMap {
	return template.FuncMap{
		"size":      sizeText,
		"files":     newFileList,
		"kind":      fileKind,
		"canDelete": func(by taskd.Actor, f taskd.File) bool { return taskd.CanChangeFile(by, f) == nil },
	}
}

// maxPageFiles bounds the files of one form.
const maxPageFiles = 20

// filesKey carries a multipart form's files, not read yet, to its handler.
type filesKey struct{}

// pendingFiles are a multipart form's file parts: next is the first,
// already met after the form's fields.
type pendingFiles struct {
	mr   *multipart.Reader
	next *multipart.Part
	body *upload.Body // paced once the sender may send the files
}

// upload wraps a POST handler whose form may carry files
// (multipart/form-data): its fields, which must come before the files as
// browsers send them, are read and checked as s.form checks a form, and
// the files are left to the handler to stream (receiveFiles). Any other
// body is an ordinary form.
func (s *Server) upload(h handler) http.HandlerFunc {
	plain := s.form(h)
	return func(w http.ResponseWriter, r *http.Request) {
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct != "multipart/form-data" {
			plain(w, r)
			return
		}
		mr, body, err := s.cfg.Uploads.MultipartReader(w, r)
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
			return
		}
		r.PostForm, r.Form = url.Values{}, url.Values{}
		size := 0
		for fields := 0; ; fields++ {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
				return
			}
			if p.FileName() != "" {
				r = r.WithContext(context.WithValue(r.Context(), filesKey{}, &pendingFiles{mr: mr, next: p, body: body}))
				break
			}
			// Names count with values, and every part with an overhead,
			// so that no form of many small parts outgrows the bound.
			size += len(p.FormName()) + 256
			v, err := io.ReadAll(io.LimitReader(p, int64(max(1<<20-size, 0))+1))
			if size += len(v); err != nil || size > 1<<20 || fields > 200 {
				s.fail(w, r, http.StatusBadRequest, "The form could not be read.")
				return
			}
			r.PostForm.Add(p.FormName(), string(v))
			r.Form.Add(p.FormName(), string(v))
		}
		if s.refuseForm(w, r) {
			return
		}
		s.run(w, r, h)
	}
}

// receiveFiles stores a form's files as uploads of by; on any refusal,
// what was stored of the form is deleted. A file input left empty sends a
// part without a name and content, which is skipped.
func (s *Server) receiveFiles(r *http.Request, by taskd.Actor) ([]int64, error) {
	pf, _ := r.Context().Value(filesKey{}).(*pendingFiles)
	if pf == nil {
		return nil, nil
	}
	release, err := s.cfg.Uploads.Enter(by.AccountID, by.Person.ID)
	if err != nil {
		return nil, err
	}
	defer release()
	// The form's sender is known now: its files may take longer than the
	// server's read timeout, as long as they keep their pace.
	pf.body.Pace()
	var ids []int64
	fail := func(err error) ([]int64, error) {
		s.dropFiles(r, by, ids)
		return nil, err
	}
	for p := pf.next; p != nil; {
		if p.FileName() == "" {
			return fail(taskd.Invalid("file", "Put the form's fields before its files"))
		}
		if len(ids) == maxPageFiles {
			return fail(taskd.Invalid("file", "Attach at most %d files at once", maxPageFiles))
		}
		f, err := s.cfg.Files.CreateFile(r.Context(), by, p.FileName(), p.Header.Get("Content-Type"), p, s.cfg.FileLimits)
		if err != nil {
			return fail(err)
		}
		if f.Size > 0 || f.Name != "file" {
			ids = append(ids, f.ID)
		}
		if p, err = pf.mr.NextPart(); errors.Is(err, io.EOF) {
			p = nil
		} else if err != nil {
			return fail(taskd.Invalid("file", "The files could not be read to their end"))
		}
	}
	return ids, nil
}

// attachFiles stores a form's files and attaches them to an object.
func (s *Server) attachFiles(r *http.Request, by taskd.Actor, owner string, id int64) error {
	ids, err := s.receiveFiles(r, by)
	if err != nil || len(ids) == 0 {
		return err
	}
	if err := s.cfg.Files.AttachFiles(r.Context(), by, ids, owner, id); err != nil {
		s.dropFiles(r, by, ids)
		return err
	}
	return nil
}

// addTaskFiles is POST /a/{slug}/tasks/{task}/files (multipart).
func (s *Server) addTaskFiles(r *http.Request, me member, t taskd.Task) (string, error) {
	by := me.actor()
	return t.Page() + "#files", s.attachFiles(r, by, taskd.OwnerTask, t.ID)
}

// downloadFile is GET /a/{slug}/download/{file}, the page of a file
// (spec §2.5): served as the API serves it, to whoever may see it by the
// store's rule (what it is attached to; an upload not attached yet, its
// uploader only).
func (s *Server) downloadFile(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	id, err := taskd.ParseID(r.PathValue("file"), "file")
	var f taskd.File
	if err == nil {
		f, err = s.cfg.Files.File(r.Context(), me.viewer(), id)
	}
	if err != nil {
		return s.failWith(w, r, err)
	}
	body := s.cfg.Files.OpenFile(r.Context(), f)
	defer body.Close()
	if err := httpfile.Write(w, f, body); err != nil {
		s.cfg.Log.Warn("download cut short", "file", f.ID, "err", err)
	}
	return nil
}

// deleteFile is POST /a/{slug}/files/{file}/delete.
func (s *Server) deleteFile(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	id, err := taskd.ParseID(r.PathValue("file"), "file")
	var f taskd.File
	if err == nil {
		f, err = s.cfg.Files.File(r.Context(), me.viewer(), id)
	}
	if err == nil {
		err = s.cfg.Files.DeleteFile(r.Context(), me.actor(), f.ID)
	}
	if err != nil {
		return s.failWith(w, r, err)
	}
	to := s.cfg.accountPath(me.Account) + taskd.ProjectPage(f.ProjectID)
	if f.TaskID != 0 {
		t, err := s.cfg.Tasks.Task(r.Context(), me.viewer(), f.TaskID)
		if err != nil {
			return err
		}
		to = s.cfg.accountPath(me.Account) + t.Page()
	}
	return see303(w, r, to+"#files")
}

// sizeText writes a size for people: bytes, KB, MB or GB.
func sizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 2; m /= unit {
		div *= unit
		exp++
	}
	whole, tenth := n/div, n%div*10/div
	s := strconv.FormatInt(whole, 10)
	if whole < 10 {
		s += "." + strconv.FormatInt(tenth, 10)
	}
	return s + " " + [...]string{"KB", "MB", "GB"}[exp]
}

// fileKind is a short label of a file's kind, shown as its icon.
func fileKind(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || i == len(name)-1 || len(name)-i > 6 {
		return "FILE"
	}
	return strings.ToUpper(name[i+1:])
}

// addProjectFiles is POST /a/{slug}/project/{project}/files (multipart).
func (s *Server) addProjectFiles(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	p, ok, err := s.pathProject(w, r, me)
	if !ok {
		return err
	}
	if err := s.attachFiles(r, me.actor(), taskd.OwnerProject, p.ID); err != nil {
		fe, ok := asFormError("files", err)
		if !ok {
			return err
		}
		return s.renderProject(w, r, v, me, p, http.StatusUnprocessableEntity, fe)
	}
	return see303(w, r, s.cfg.accountPath(me.Account)+p.Page()+"#files")
}

// fileList is a list of files on a page, with what its template needs.
type fileList struct {
	View  *view
	Files []taskd.File
	Me    taskd.Actor
	Base  string
}

func newFileList(v *view, files []taskd.File, me taskd.Actor, base string) fileList {
	return fileList{View: v, Files: files, Me: me, Base: base}
}

// dropFiles deletes a form's stored files when what they were for failed,
// even when the client has gone; what fails to go is swept later.
func (s *Server) dropFiles(r *http.Request, by taskd.Actor, ids []int64) {
	for _, id := range ids {
		_ = s.cfg.Files.DeleteFile(context.WithoutCancel(r.Context()), by, id)
	}
}
