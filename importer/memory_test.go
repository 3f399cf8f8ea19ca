package importer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/store"
)

// TestImportAnswerBound (issue 46): comments read ahead
// by eight at once, from a source whose answers together are over the
// client's memory budget, stay within it; an answer over the bound of
// one answer stops the run with an error that names the action, the
// answer and the bound, after the comments of the tasks before it, with
// nothing of its own written and nothing held; a run again with a larger
// bound brings the rest, each comment once.
func TestImportAnswerBound(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		owner := testsite.OwnerEmail
		ws := &worksection{answers: map[string]string{}}
		ws.set("get_users", `[{"id":"1","first_name":"Olga","email":"`+owner+`","role":"owner"},{"id":"2","first_name":"Mia","email":"`+mia+`","role":"user"}]`)
		ws.set("get_projects", `[{"id":"26","name":"Launch","status":"active","user_from":`+person(owner)+`,"users":`+people(owner, mia)+`}]`)
		var tasks []string
		want := map[string][]string{} // comments by task name, texts' first words
		for i := range 8 {
			id, name := fmt.Sprint(101+i), fmt.Sprintf("Task %d", i+1)
			tasks = append(tasks, wsTask(id, name, owner, nil, ""))
			n, size := 3, 20000 // about 60 KB an answer
			if id == "105" {
				n, size = 2, 150000 // 300 KB: over the bound of 256 KiB
			}
			var list []string
			for j := range n {
				first := fmt.Sprintf("%s comment %d", name, j+1)
				list = append(list, wsComment(fmt.Sprintf("%s-%d", id, j+1), first+" "+strings.Repeat("w", size), mia))
				want[name] = append(want[name], first)
			}
			ws.set("get_comments_"+id, "["+strings.Join(list, ",")+"]")
		}
		ws.set("get_tasks_26", "["+strings.Join(tasks, ",")+"]")
		srv := httptest.NewServer(ws)
		t.Cleanup(srv.Close)
		key := d.CreateAccount("moved", "Moved", owner, "Olga", "Owner")
		acct, err := d.Store.AccountBySlug(ctx, "moved")
		if err != nil {
			t.Fatal(err)
		}
		dst := importer.Dest{Account: acct, Store: d.Store}
		run := func(bound int64) (*source.Client, error) {
			c, err := source.New(srv.URL, "7776461cd931e7b1c8e9632ff8e979ce",
				source.Options{Concurrency: 8, MaxAnswerBytes: bound, MaxHeldBytes: bound + 64<<10})
			if err != nil {
				t.Fatal(err)
			}
			_, err = importer.Run(ctx, c, dst, importer.Options{})
			if h := c.Held(); h.Peak > h.Limit || h.Now != 0 || h.Peak < 60000 {
				t.Errorf("the reads held %d bytes at most of %d, %d at the end", h.Peak, h.Limit, h.Now)
			}
			return c, err
		}

		_, err = run(256 << 10)
		const says = "source: get_comments: the answer for id_task=105 is larger than 256 KiB, the bound of one answer"
		if !errors.Is(err, source.ErrAnswerTooLarge) || !strings.Contains(err.Error(), says) {
			t.Fatalf("got %v, want %q", err, says)
		}
		before := map[string][]string{}
		for _, name := range []string{"Task 1", "Task 2", "Task 3", "Task 4"} {
			before[name] = want[name]
		}
		eq(t, "the comments after the refused answer", commentsOf(t, d.Base+"/a/moved", key), before)

		if _, err := run(1 << 20); err != nil {
			t.Fatal(err)
		}
		eq(t, "the comments after a run again", commentsOf(t, d.Base+"/a/moved", key), want)
	})
}

// commentsOf reads the comments of an account's tasks through its API: by
// task name, each comment's first four words.
func commentsOf(t *testing.T, accountURL, key string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	c, err := source.New(accountURL, key, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	projects, err := c.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range projects {
		tasks, err := c.Tasks(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			list, err := c.Comments(ctx, task.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, cm := range list {
				out[task.Name] = append(out[task.Name], strings.Join(strings.Fields(cm.Text)[:4], " "))
			}
			slices.Sort(out[task.Name])
		}
	}
	return out
}

// watcher is the destination's store, noting what the source's client
// holds of its memory budget as each comment is written, by the first
// six bytes of the comment's text.
type watcher struct {
	*store.DB
	client *source.Client
	mu     sync.Mutex
	held   map[string][]int64
}

func (w *watcher) PostComment(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CommentInput) (taskd.Comment, error) {
	w.mu.Lock()
	w.held[in.Text[:6]] = append(w.held[in.Text[:6]], w.client.Held().Now)
	w.mu.Unlock()
	return w.DB.PostComment(ctx, by, taskID, in)
}

// TestImportHoldsWhatItWrites (issue 46): the comments
// read ahead are held against the source's budget until they are
// written: while the two large comments of the first task are written,
// what they keep (200 KB) is held, though the reads of the seven tasks
// after it, eight at once, may hold no more than 16 KiB beside it.
func TestImportHoldsWhatItWrites(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, d *testsite.Site) {
		ctx := context.Background()
		owner := testsite.OwnerEmail
		ws := &worksection{answers: map[string]string{}}
		ws.set("get_users", `[{"id":"1","first_name":"Olga","email":"`+owner+`","role":"owner"}]`)
		ws.set("get_projects", `[{"id":"26","name":"Launch","status":"active","user_from":`+person(owner)+`,"users":`+people(owner)+`}]`)
		var tasks []string
		for i := range 8 {
			id := fmt.Sprint(101 + i)
			tasks = append(tasks, wsTask(id, fmt.Sprintf("Task %d", i+1), owner, nil, ""))
			n, size := 1, 100
			if i == 0 {
				n, size = 2, 100000
			}
			var list []string
			for j := range n {
				list = append(list, wsComment(fmt.Sprintf("%s-%d", id, j+1), fmt.Sprintf("Task %d comment %d ", i+1, j+1)+strings.Repeat("w", size), owner))
			}
			ws.set("get_comments_"+id, "["+strings.Join(list, ",")+"]")
		}
		ws.set("get_tasks_26", "["+strings.Join(tasks, ",")+"]")
		srv := httptest.NewServer(ws)
		t.Cleanup(srv.Close)
		d.CreateAccount("moved", "Moved", owner, "Olga", "Owner")
		acct, err := d.Store.AccountBySlug(ctx, "moved")
		if err != nil {
			t.Fatal(err)
		}
		c, err := source.New(srv.URL, "7776461cd931e7b1c8e9632ff8e979ce",
			source.Options{Concurrency: 8, MaxAnswerBytes: 1 << 20, MaxHeldBytes: 1<<20 + 16<<10})
		if err != nil {
			t.Fatal(err)
		}
		w := &watcher{DB: d.Store, client: c, held: map[string][]int64{}}
		dst := importer.Dest{Account: acct, Store: w}
		if _, err := importer.Run(ctx, c, dst, importer.Options{}); err != nil {
			t.Fatal(err)
		}
		if got := w.held["Task 1"]; len(got) != 2 || got[0] < 200000 || got[1] < 200000 {
			t.Errorf("held %v bytes while the first task's two comments were written, want 200 KB and more", got)
		}
		if h := c.Held(); h.Now != 0 || h.Peak > h.Limit {
			t.Errorf("held %d bytes at the end, %d at most of %d", h.Now, h.Peak, h.Limit)
		}
	})
}
