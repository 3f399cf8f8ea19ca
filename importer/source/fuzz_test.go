package source

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: any bytes as an answer give a value or an error from every
// decoder, never a panic.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "worksection", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"status":"ok","data":[{"id":1,"tags":{"1":2},"child":[{"id":"2","child":[{"id":"3","child":[]}]}]}]}`))
	f.Add([]byte(`{"status":"ok","data":{"id":"1","relations":{"from":[{"task":{"id":3}}]}}}`))
	f.Add([]byte(`{"status":"error","status_code":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := decodeEnvelope(b)
		if err != nil {
			return
		}
		raw := env.Data
		var n notes
		list(raw, "users", convUser)
		list(raw, "contacts", convContact)
		list(raw, "teams", convTeam)
		list(raw, "folders", convFolder)
		list(raw, "tag groups", convTagGroup)
		list(raw, "tags", convTag)
		list(raw, "projects", convProject)
		one(raw, "project", convProject)
		convTasks(raw, "1", "", 1)
		one(raw, "task", func(w wireTask) (Task, error) { return convTask(w, "", "", 1) })
		list(raw, "comments", convComment)
		list(raw, "costs", convCost)
		list(raw, "files", n.file)
		n.tags(raw)
		options(raw)
		relations(raw)
		n.people("p", raw)
		apiError("x", 200, env, nil)
		var v any
		_ = json.Unmarshal(raw, &v)
	})
}
