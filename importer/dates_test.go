package importer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/importer/source/sourcetest"
	"github.com/taskd/taskd/internal/testsite"
)

// recordedCopy is a copy of the recorded Worksection account's answers
// (source/testdata/worksection) that a test may change between runs.
type recordedCopy struct {
	t   *testing.T
	dir string
}

func newRecordedCopy(t *testing.T) recordedCopy {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("source", "testdata", "worksection"))); err != nil {
		t.Fatal(err)
	}
	return recordedCopy{t: t, dir: dir}
}

// edit replaces, in the answer of file, old (found once) by new.
func (c recordedCopy) edit(file, old, new string) {
	c.t.Helper()
	path := filepath.Join(c.dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		c.t.Fatalf("%s holds %q %d times, want once", file, old, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// dateSkip is a date of the source the summary must report: the object,
// the field, the source's value and what was done.
type dateSkip struct{ family, id, what, field, value, then string }

// reported checks that sum reports each of want, once, with the field and
// value in the JSON of the summary, and reports no other date.
func reported(t *testing.T, step string, sum importer.Summary, want ...dateSkip) {
	t.Helper()
	got := map[dateSkip]int{}
	for _, s := range sum.Skipped {
		if s.Field == "" {
			continue
		}
		matched := false
		for _, w := range want {
			if s.Family == w.family && s.SourceID == w.id && s.Field == w.field && s.Value == w.value &&
				strings.Contains(s.Reason, w.field+" "+w.value+" of "+w.what+" is not a date taskd keeps (1900-01-01 to 2999-12-31): "+w.then) {
				got[w]++
				matched = true
			}
		}
		if !matched {
			t.Errorf("%s: reported beyond the dates out of range: %+v", step, s)
		}
	}
	for _, w := range want {
		if got[w] != 1 {
			t.Errorf("%s: %s %s %s %s reported %d times, want once (%s): %+v", step, w.family, w.id, w.field, w.value, got[w], w.then, sum.Skipped)
		}
	}
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(b), `"source_id":"`+w.id+`","field":"`+w.field+`","value":"`+w.value+`"`) {
			t.Errorf("%s: the JSON summary does not name %s %s %s: %s", step, w.id, w.field, w.value, b)
		}
	}
}

// TestImportDatesOutOfRange imports the recorded Worksection account
// with dates taskd does not keep (before 1900-01-01 or after 2999-12-31).
// Every date the importer reads goes by one rule: the
// object is imported without it (a task's due date 3009-01-01, a
// project's start, a cost line's date) or dated when it is made here (the
// date_added of a comment, a file, a contact), and the summary names the object, the field and
// the source's value. A later run after a source date changed from valid
// to out of range leaves the date here as it is, writes the rest of the
// object, and says so on every run; one more run changes nothing; a date
// valid again is written.
func TestImportDatesOutOfRange(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		src := newRecordedCopy(t)
		src.edit("get_tasks_26.json", `"date_end":"2024-02-10"`, `"date_end":"3009-01-01"`)
		src.edit("get_projects.json", `"date_start":"2024-02-01"`, `"date_start":"1899-12-31"`)
		src.edit("get_costs_26.json", `"date":"2024-01-16"`, `"date":"3009-01-16"`)
		src.edit("get_comments_101.json", `"date_added":"2024-01-16 10:06"`, `"date_added":"3009-01-16 10:06"`)
		src.edit("get_files_26.json", `"date_added":"2024-01-15 09:31"`, `"date_added":"1024-01-15 09:31"`)
		src.edit("get_contacts.json", `"data_added":"2021-05-06 07:08"`, `"data_added":"3021-05-06 07:08"`)
		_, from := sourcetest.Start(t, src.dir)
		client, err := source.New(from, sourcetest.Key, source.Options{})
		if err != nil {
			t.Fatal(err)
		}
		key := d.CreateAccount("moved", "Moved", testsite.OwnerEmail, "Owen", "Owner")
		acct, err := d.Store.AccountBySlug(ctx, "moved")
		if err != nil {
			t.Fatal(err)
		}
		dst := (&pair{acct: acct}).dest(d.Store)
		movedURL := d.Base + "/a/moved"
		run := func(step string) importer.Summary {
			t.Helper()
			sum, err := importer.Run(ctx, client, dst, importer.Options{})
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			return sum
		}
		check := func(step string, want map[string]string) {
			t.Helper()
			got := facts(t, movedURL, key)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s:\n got %q\nwant %q", step, k, got[k], v)
				}
			}
		}

		before := time.Now().UTC().Truncate(time.Minute)
		first := run("the first run")
		after := time.Now().UTC()
		reported(t, "the first run", first,
			dateSkip{importer.FamilyProjects, "26", `project "Launch"`, "date_start", "1899-12-31", "imported without it"},
			dateSkip{importer.FamilyTasks, "101", `task "Write copy"`, "date_end", "3009-01-01", "imported without it"},
			dateSkip{importer.FamilyComments, "602", "a comment", "date_added", "3009-01-16 10:06", "dated when it is made here"},
			dateSkip{importer.FamilyFiles, "500", `file "plan.pdf"`, "date_added", "1024-01-15 09:31", "dated when it is made here"},
			dateSkip{importer.FamilyContacts, "900", `contact "carl@vendor.example"`, "date_added", "3021-05-06 07:08", "dated when it is made here"},
			dateSkip{importer.FamilyCosts, "701", "a cost line", "date", "3009-01-16", "imported without it"})
		check("the first run", map[string]string{
			"task Write copy/dates": "2024-02-01 … ",
			"project Launch/dates":  " … 2024-06-30",
			"task Move pages/dates": "2022-03-02 … 2022-03-31",
			"costs of Launch":       "First draft  90 min 2550 cents Copy by bob@acme.example | Write copy 2024-01-17 600 min 10000 cents  by olga@acme.example",
			"costs of Old site":     "Move pages 2022-03-15 45 min 0 cents Redirects by bob@acme.example",
			"task Move pages/text":  "Every page, with its redirect",
			"project Launch/added":  "2024-01-15 09:30",
			"task Write copy/added": "2024-01-16 10:00",
		})
		// What was dated out of range is dated by the run.
		got := facts(t, movedURL, key)
		for k, want := range map[string]string{
			"comments of Write copy":      "bob@acme.example 2024-01-16 10:05 Started | olga@acme.example %s Old style",
			"contact carl@vendor.example": "Carl Contact, Buyer, Vendors, 555-0100, %s",
			"files of Launch": "brief.txt on task Write copy, 11 bytes, SHA-256 b94d27b9934d…, by olga@acme.example 2024-01-16 10:00" +
				" | passwd on a comment of Write copy, 5 bytes, SHA-256 5994471abb01…, by bob@acme.example 2024-01-16 10:05" +
				" | plan.pdf on the project, 7 bytes, SHA-256 a1044a1b6491…, by olga@acme.example %s",
		} {
			dated := false
			for at := before; !at.After(after); at = at.Add(time.Minute) {
				dated = dated || got[k] == fmt.Sprintf(want, stamp(at))
			}
			if !dated {
				t.Errorf("the first run: %s:\n got %q\nwant %q, dated %s to %s", k, got[k], want, stamp(before), stamp(after))
			}
		}

		// Dates the first run wrote go out of range in the source, beside
		// other changes of the same objects.
		src.edit("get_tasks_27.json", `"date_end":"2022-03-31"`, `"date_end":"3022-03-31"`)
		src.edit("get_tasks_27.json", `"text":"Every page, with its redirect"`, `"text":"Every page"`)
		src.edit("get_costs_27.json", `"date":"2022-03-15"`, `"date":"3022-03-15"`)
		src.edit("get_costs_27.json", `"comment":"Redirects"`, `"comment":"Redirects, all"`)
		src.edit("get_comments_101.json", `"date_added":"2024-01-16 10:05"`, `"date_added":"3024-01-16 10:05"`)
		later := []dateSkip{
			{importer.FamilyProjects, "26", `project "Launch"`, "date_start", "1899-12-31", "left as it is here"},
			{importer.FamilyTasks, "101", `task "Write copy"`, "date_end", "3009-01-01", "left as it is here"},
			{importer.FamilyTasks, "201", `task "Move pages"`, "date_end", "3022-03-31", "left as it is here"},
			{importer.FamilyCosts, "701", "a cost line", "date", "3009-01-16", "left as it is here"},
			{importer.FamilyCosts, "711", "a cost line", "date", "3022-03-15", "left as it is here"},
		}
		for _, step := range []string{"the second run", "one more run"} {
			sum := run(step)
			// A comment's creation date is its first run's: a mapped
			// comment's is not read again.
			reported(t, step, sum, later...)
			check(step, map[string]string{
				"task Move pages/dates": "2022-03-02 … 2022-03-31",
				"task Move pages/text":  "Every page",
				"costs of Old site":     "Move pages 2022-03-15 45 min 0 cents Redirects, all by bob@acme.example",
				"task Write copy/dates": "2024-02-01 … ",
				"project Launch/dates":  " … 2024-06-30",
			})
			if step == "one more run" {
				for _, c := range sum.Families {
					if c.Created != 0 || c.Updated != 0 {
						t.Errorf("one more run: %+v", c)
					}
				}
			}
		}

		// Valid again, a date is written.
		src.edit("get_tasks_27.json", `"date_end":"3022-03-31"`, `"date_end":"2022-04-30"`)
		reported(t, "valid again", run("valid again"), append(later[:2:2], later[3:]...)...)
		check("valid again", map[string]string{"task Move pages/dates": "2022-03-02 … 2022-04-30"})
	})
}
