package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/wire"
)

// killingProxy stands in front of a source taskd and counts the calls of
// its API; at the at-th call of a run it kills the import's process with
// SIGKILL: at once, before the call is answered (the run is stopped
// between two writes), or delay after answering it (the run is stopped
// wherever it is then, in a write or between two).
type killingProxy struct {
	*httptest.Server
	mu    sync.Mutex
	calls int
	at    int
	delay time.Duration
	child *os.Process
	ready chan struct{} // closed once child is set
}

func newKillingProxy(t *testing.T, target string) *killingProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &killingProxy{}
	forward := httputil.NewSingleHostReverseProxy(u)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.calls++
		kill := p.calls == p.at
		ready, delay := p.ready, p.delay
		p.mu.Unlock()
		var child *os.Process
		if kill {
			<-ready
			p.mu.Lock()
			child = p.child
			p.mu.Unlock()
		}
		if kill && delay == 0 {
			child.Kill()
			http.Error(w, "killed", http.StatusBadGateway)
			return
		}
		if kill {
			go func() {
				time.Sleep(delay)
				child.Kill()
			}()
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// arm makes the proxy kill the next run's process at its at-th call
// (never when at is 0), counting calls from now; started tells it the
// process.
func (p *killingProxy) arm(at int, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls, p.at, p.delay, p.child, p.ready = 0, at, delay, nil, make(chan struct{})
}

// started tells the armed proxy the process to kill.
func (p *killingProxy) started(child *os.Process) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.child = child
	close(p.ready)
}

// seen is how many calls the proxy has seen since it was last armed.
func (p *killingProxy) seen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// fillKillSource makes a source account through its API: tags, three
// projects (one archived) of four tasks three deep, a comment on every
// task and a cost line on every top task, and a file of 1 MiB on the last
// comment of each of the first two projects.
func fillKillSource(t *testing.T, s *testsite.Site) {
	s.APIOK("action=add_task_tag_groups&title=Workflow&type=status")
	s.APIOK("action=add_task_tags&group=Workflow&title=Doing,Review")
	for p := range 3 {
		pid := s.APIID(fmt.Sprintf("action=post_project&title=Project+%d&members=%s&options.time_today=%d", p, url.QueryEscape(testsite.UserEmail), p%2))
		for i := range 4 {
			top := s.APIID(fmt.Sprintf("action=post_task&id_project=%s&title=Task+%d.%d&priority=%d&email_user_to=%s&tags=Review",
				pid, p, i, i, url.QueryEscape(testsite.UserEmail)))
			sub := s.APIID(fmt.Sprintf("action=post_task&id_project=%s&id_parent=%s&title=Sub+%d.%d", pid, top, p, i))
			subsub := s.APIID(fmt.Sprintf("action=post_task&id_project=%s&id_parent=%s&title=Subsub+%d.%d", pid, sub, p, i))
			for _, id := range []string{top, sub, subsub} {
				q := fmt.Sprintf("action=post_comment&id_task=%s&text=On+%s&email_user_from=%s", id, id, url.QueryEscape(testsite.UserEmail))
				if id == subsub && i == 3 && p < 2 {
					postWithFile(t, s, q, fmt.Sprintf("report-%d.bin", p), 1<<20)
					continue
				}
				s.APIOK(q)
			}
			s.APIOK(fmt.Sprintf("action=add_costs&id_task=%s&time=0:%02d&comment=Line+%d&date=%s&email_user_from=%s", top, 10+i, i,
				time.Now().Format("02.01.2006"), url.QueryEscape(testsite.OwnerEmail)))
			if i%2 == 1 {
				s.APIOK("action=complete_task&id_task=" + subsub)
			}
		}
		if p == 2 {
			s.APIOK("action=close_project&id_project=" + pid)
		}
	}
}

// postWithFile calls the site's API, its query signed, with a file of
// size bytes as the part of a multipart body, and fails the test unless
// the answer is ok.
func postWithFile(t *testing.T, s *testsite.Site, query, name string, size int) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	part, err := w.CreateFormFile("attach[0]", name)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(bytes.Repeat([]byte(name), size/len(name)+1)[:size])
	w.Close()
	req, err := http.NewRequest(http.MethodPost, s.AccountURL()+"/api/admin/v2/?"+query+"&hash="+wire.Hash(query, s.Key), &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	if status, body, _ := testsite.DoJSON(t, req); status != http.StatusOK || body["status"] != "ok" {
		t.Fatalf("%s with %s: %d %v", query, name, status, body)
	}
}

// TestImportKilled runs the real "taskd import" in a child process into a
// new SQLite data directory, kills it with SIGKILL part way, and runs it
// again to the end: each destination is then, through the API and ids
// aside, the one a clean run makes, and one more run creates and updates
// nothing. Of a run's 58 calls of the source (people 1, teams 1, contacts
// 2, folders 1, tags 4, projects 2, task trees 3, comments 36, lines 3,
// files 5: a list per project and two downloads), it is killed at the 7th
// (in the tags, the people and the directory written), a moment after the
// 14th (in the writing of the tasks), at the 29th (in the comments), a
// moment after the 51st (in the lines), a moment after the 55th (the first
// file's download answered: in its download, its upload or its attach)
// and at the 57th (the second file's download: the first is attached). A
// kill "a moment after" may come too late to land (it is logged); one at
// a call always lands.
func TestImportKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	src := testsite.New(t)
	fillKillSource(t, src)
	proxy := newKillingProxy(t, src.Base)
	from := proxy.URL + "/a/" + src.Slug

	// importRun runs taskd import on dst, killed by the proxy's at-th call
	// (never when at is 0); it returns the summary of a run that ended, or
	// killed.
	importRun := func(t *testing.T, dst testdb.DB, at int, delay time.Duration) (sum importer.Summary, killed bool) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "import", "--from", from, "--account", "moved", "--owner-email", "new.owner@example.com",
			"--data", dst.Dir, "--json")
		cmd.Env = append(os.Environ(), "TASKD_TEST_AS_TASKD=1", "TASKD_KEY="+src.Key, "TASKD_MASTER_KEY="+testdb.MasterKeyBase64())
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		proxy.arm(at, delay)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		proxy.started(cmd.Process)
		err := cmd.Wait()
		if !cmd.ProcessState.Exited() {
			return sum, true // ended by a signal: the proxy's SIGKILL
		}
		if err != nil {
			t.Fatalf("taskd import: %v\n%s", err, errOut.String())
		}
		if err := json.Unmarshal([]byte(out.String()), &sum); err != nil {
			t.Fatalf("taskd import printed %q: %v", out.String(), err)
		}
		return sum, false
	}
	changed := func(sum importer.Summary) (created, updated int) {
		for _, c := range sum.Families {
			created, updated = created+c.Created, updated+c.Updated
		}
		return created, updated
	}

	cleanDB := testdb.New(t, "sqlite")
	sum, killed := importRun(t, cleanDB, 0, 0)
	total := proxy.seen()
	if killed {
		t.Fatal("the clean run was killed")
	}
	// What fillKillSource made: Olga and Uma (new here), 3 projects, 36
	// tasks, 36 comments, 12 lines, 2 files.
	for _, c := range sum.Families {
		if want, ok := map[string]int{importer.FamilyPeople: 2, importer.FamilyProjects: 3, importer.FamilyTasks: 36,
			importer.FamilyComments: 36, importer.FamilyCosts: 12, importer.FamilyFiles: 2}[c.Family]; ok && c.Created != want {
			t.Errorf("the clean run created %d %s, want %d", c.Created, c.Family, want)
		}
	}
	clean := snapshot(t, cleanDB)
	t.Logf("a clean run calls the source %d times", total)

	for _, kill := range []struct {
		at    int
		delay time.Duration
	}{{7, 0}, {14, 3 * time.Millisecond}, {29, 0}, {51, time.Millisecond}, {55, time.Millisecond}, {57, 0}} {
		t.Run(fmt.Sprintf("killed at call %d after %v", kill.at, kill.delay), func(t *testing.T) {
			if kill.at >= total {
				t.Fatalf("a run makes %d calls, fewer than %d", total, kill.at)
			}
			dst := testdb.New(t, "sqlite")
			_, killed := importRun(t, dst, kill.at, kill.delay)
			if !killed && kill.delay == 0 {
				t.Fatal("the run was not killed")
			}
			t.Logf("killed: %v", killed)
			if _, killed := importRun(t, dst, 0, 0); killed {
				t.Fatal("the second run was killed")
			}
			sameSnapshot(t, snapshot(t, dst), clean)
			again, _ := importRun(t, dst, 0, 0)
			if c, u := changed(again); c != 0 || u != 0 {
				t.Errorf("one more run created %d and updated %d: %+v", c, u, again.Families)
			}
		})
	}
}

// snapshot reads the account "moved" of a data directory through the API
// of a taskd serving it, as JSON with ids, pages and the import's own
// times (a member's joining, a task's completion) left out.
func snapshot(t *testing.T, d testdb.DB) string {
	t.Helper()
	key := cliJSON(t, storage{data: d.Dir, masterKey: testdb.MasterKeyBase64()}, "apikey", "rotate", "--account", "moved")["api_key"]
	site := testsite.Start(t, d, testsite.Options{Idle: true})
	c, err := source.New(site.Base+"/a/moved", key, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var all []any
	add := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, v)
		return v
	}
	add(c.Users(ctx))
	for _, k := range []source.TagKind{source.TaskTags, source.ProjectTags} {
		add(c.TagGroups(ctx, k))
		add(c.Tags(ctx, k))
	}
	projects := add(c.Projects(ctx)).([]source.Project)
	for _, p := range projects {
		tasks := add(c.Tasks(ctx, p.ID)).([]source.Task)
		source.Walk(tasks, func(x *source.Task) { add(c.Comments(ctx, x.ID)) })
		add(c.ProjectCosts(ctx, p.ID, tasks))
		for _, f := range add(c.Files(ctx, p.ID, "")).([]source.File) {
			_, sum, err := c.Download(ctx, f, io.Discard)
			add(f.Name+" "+sum, err)
		}
	}
	scrub(reflect.ValueOf(all))
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scrubbed are the fields snapshot leaves out: ids, pages, and the times
// the import itself sets.
var scrubbed = map[string]bool{"ID": true, "Page": true, "ProjectID": true, "ParentID": true, "TaskID": true, "Task": true, "Closed": true}

// scrub zeroes the scrubbed fields, and a member's Added, everywhere in v.
func scrub(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			if v.Kind() == reflect.Interface {
				// What an interface holds cannot be set: copy it out.
				c := reflect.New(v.Elem().Type()).Elem()
				c.Set(v.Elem())
				scrub(c)
				v.Set(c)
				return
			}
			scrub(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			scrub(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if scrubbed[f.Name] || (f.Name == "Added" && v.Type() == reflect.TypeFor[source.User]()) {
				v.Field(i).SetZero()
				continue
			}
			scrub(v.Field(i))
		}
	}
}

// sameSnapshot fails the test at the first line where got and want differ.
func sameSnapshot(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			t.Fatalf("the destination differs from a clean import at line %d:\n got  %s\n want %s\n\ngot:\n%s", i+1, a, b, got)
		}
	}
}
