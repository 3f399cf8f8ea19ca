package source

import (
	"bytes"
	"context"
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
	f.Add([]byte(`{"status":"ok","data":[{"id":"1","text":"long \u00e9\u00e9 text \\\" with \ud83d\ude00 escapes é and more"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		// The scan passes JSON as JSON, its long strings cut, whatever
		// the chunks it reads.
		for _, chunk := range []int{1, 3, 4096} {
			sc := jsonScan{max: 8}
			var out []byte
			var err error
			for rest := b; len(rest) > 0 && err == nil; rest = rest[min(chunk, len(rest)):] {
				part := bytes.Clone(rest[:min(chunk, len(rest))])
				var n int
				n, err = sc.filter(part)
				out = append(out, part[:n]...)
			}
			if err == nil && json.Valid(b) && !json.Valid(out) {
				t.Fatalf("chunks of %d: %q passed as %q, not JSON", chunk, b, out)
			}
		}
		// Every decoder reads the answer as it streams, under a bound.
		decode := func(fn dataFunc) envelope {
			r := newReading(context.Background(), bytes.NewReader(b), nil, 1<<20, "")
			env, _ := readAnswer(r, true, fn)
			if r.kept > r.taken || r.taken > r.max+readChunk {
				t.Fatalf("a read keeps %d and holds %d bytes, over the bound %d and a chunk", r.kept, r.taken, r.max)
			}
			return env
		}
		var n notes
		ignore := func(_ any, err error) error { return err }
		env := decode(func(r *reading) error { return ignore(list(r, "users", convUser)) })
		decode(func(r *reading) error { return ignore(list(r, "contacts", convContact)) })
		decode(func(r *reading) error { return ignore(list(r, "teams", convTeam)) })
		decode(func(r *reading) error { return ignore(list(r, "folders", convFolder)) })
		decode(func(r *reading) error { return ignore(list(r, "tag groups", convTagGroup)) })
		decode(func(r *reading) error { return ignore(list(r, "tags", convTag)) })
		decode(func(r *reading) error { return ignore(list(r, "projects", convProject)) })
		decode(func(r *reading) error { return ignore(one(r, "project", convProject)) })
		decode(func(r *reading) error { return ignore(convTasks(r, r.dec, "1", "", 1)) })
		decode(func(r *reading) error {
			return ignore(one(r, "task", func(w wireTask) (Task, error) { return convTask(w, "", "", 1, r) }))
		})
		decode(func(r *reading) error { return ignore(list(r, "comments", convComment)) })
		decode(func(r *reading) error { return ignore(list(r, "costs", convCost)) })
		decode(func(r *reading) error { return ignore(list(r, "files", n.file)) })
		apiError("x", 200, env, nil)
		// The values inside objects, read from the data as bytes.
		var whole struct {
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(b, &whole) != nil {
			return
		}
		raw := whole.Data
		n.tags(raw)
		options(raw)
		relations(raw)
		n.people("p", raw)
		countItems(raw)
		var v any
		_ = json.Unmarshal(raw, &v)
	})
}
