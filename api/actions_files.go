package api

import (
	"io"
	"net/http"
	"strconv"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/httpfile"
	"github.com/taskd/taskd/wire"
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
		DateAdded: wire.FormatDateTime(f.Added), UserFrom: f.Author}
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
	q := taskd.FileQuery{Viewer: c.viewer()}
	var err error
	if q.TaskID, err = c.optID("id_task", CodeTaskInvalid); err != nil {
		return nil, err
	}
	if q.TaskID == 0 {
		if q.ProjectID, err = c.id("id_project", CodeProjectInvalid); err != nil {
			return nil, err
		}
		_, err = c.store.Project(c.ctx, q.Viewer, q.ProjectID)
	} else {
		_, err = c.store.Task(c.ctx, q.Viewer, q.TaskID)
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

// download answers a file's content as an attachment: a file the caller
// may not see is not found (taskd.Viewer; an upload not attached yet is
// its uploader's alone).
func download(c *call) (any, error) {
	id, err := c.id("id_file", CodeNotFound)
	if err != nil {
		return nil, err
	}
	f, err := c.store.File(c.ctx, c.viewer(), id)
	if err != nil {
		return nil, err
	}
	return fileBody{file: f, body: c.store.OpenFile(c.ctx, f)}, nil
}

// writeFile streams a file as a download (httpfile.Write).
func writeFile(w http.ResponseWriter, fb fileBody) error {
	defer fb.body.Close()
	return httpfile.Write(w, fb.file, fb.body)
}
