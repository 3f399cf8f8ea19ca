package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/internal/testsite"
)

// TestImportCommand runs "taskd import" against a taskd filled through its
// API, into a new account of a fresh data directory, twice; the key comes
// from TASKD_KEY and is printed nowhere, not even in an error.
func TestImportCommand(t *testing.T) {
	src := testsite.New(t)
	pid := src.APIID("action=post_project&title=Moving")
	top := src.APIID("action=post_task&id_project=" + pid + "&title=Pack")
	src.APIID("action=post_task&id_project=" + pid + "&id_parent=" + top + "&title=Boxes")
	src.APIOK("action=post_comment&id_task=" + top + "&text=Started")
	data := filepath.Join(t.TempDir(), "data")
	env := func(name string) string {
		if name == "TASKD_KEY" {
			return src.Key
		}
		return ""
	}
	cli := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, env, &out, &errOut)
		return out.String(), errOut.String(), err
	}
	args := []string{"import", "--from", src.AccountURL(), "--account", "moved", "--owner-email", "new.owner@example.com", "--data", data}

	_, _, err := cli(append(args, "--dry-run", "--json")...)
	if err == nil || !strings.Contains(err.Error(), "dry run") {
		t.Fatalf("a dry run into a missing account: %v", err)
	}
	// The first run makes the people (Olga, Uma), the project, two tasks
	// and a comment; the second nothing.
	var out, errOut string
	for round, want := range []int{2 + 1 + 2 + 1, 0} {
		out, errOut, err = cli(append(args, "--json")...)
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, errOut)
		}
		var sum importer.Summary
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, out)
		}
		created := 0
		for _, c := range sum.Families {
			created += c.Created
		}
		if created != want || sum.Account != "moved" || sum.Source != src.AccountURL() {
			t.Errorf("round %d: created %d, want %d: %+v", round, created, want, sum)
		}
		if strings.Count(errOut, "import: ") != len(importer.Families) {
			t.Errorf("round %d: progress %q", round, errOut)
		}
		if strings.Contains(out+errOut, src.Key) {
			t.Errorf("round %d: the key is printed", round)
		}
	}
	// A wrong key: refused, and named nowhere.
	env = func(name string) string {
		if name == "TASKD_KEY" {
			return "0123456789abcdef0123456789abcdef"
		}
		return ""
	}
	out, errOut, err = cli(args...)
	if err == nil || strings.Contains(err.Error()+out+errOut, "0123456789abcdef") {
		t.Errorf("a wrong key: %v %q %q", err, out, errOut)
	}
}
