package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/store"
)

// size is what a source account holds.
type size struct {
	tasks, comments, files int
	fileBytes              int64
	perProject             int // tasks per project
	members                int // members besides the owner, who author the work in turn
}

// scaled is s with its tasks, comments and files times f.
func (s size) scaled(f float64) size {
	s.tasks = int(float64(s.tasks)*f + 0.5)
	s.comments = int(float64(s.comments)*f + 0.5)
	s.files = int(float64(s.files)*f + 0.5)
	return s
}

// source is a taskd account served in this process on loopback, on a
// SQLite database of its own, with every request to it counted.
type source struct {
	dir        string
	db         *store.DB
	hs         *http.Server
	accountURL string // {base}/a/{slug}
	key        string // the administrative key
	counts     *counter
}

// newSource makes the database and the account, fills it with sz and
// serves it.
func newSource(ctx context.Context, sz size) (*source, error) {
	dir, err := os.MkdirTemp("", "taskd-import-bench-src")
	if err != nil {
		return nil, err
	}
	s := &source{dir: dir, counts: &counter{}}
	s.counts.reset()
	if s.db, err = store.Open(ctx, store.Options{DataDir: dir}); err != nil {
		s.close()
		return nil, fmt.Errorf("source store: %w", err)
	}
	key := make([]byte, 32)
	rand.Read(key)
	sealer, err := secret.NewSealer(key)
	if err != nil {
		s.close()
		return nil, err
	}
	const slug = "source"
	s.key = secret.APIKey()
	acct, owner, err := s.db.CreateAccount(ctx, taskd.NewAccount{Slug: slug, Name: "Import source", APIKey: sealer.SealAPIKey(slug, s.key),
		Owner: taskd.NewPerson{Email: "owner@source.example", PasswordHash: "x", FirstName: "Olga", LastName: "Owner"}})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("source account: %w", err)
	}
	if err := fill(ctx, s.db, acct, owner, sz); err != nil {
		s.close()
		return nil, fmt.Errorf("fill: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.close()
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	srv, err := server.New(ctx, server.Config{Store: s.db, Sealer: sealer, PublicURL: base})
	if err != nil {
		ln.Close()
		s.close()
		return nil, err
	}
	s.hs = &http.Server{Handler: s.counts.wrap(srv), ReadHeaderTimeout: 10 * time.Second}
	go s.hs.Serve(ln)
	s.accountURL = base + "/a/" + slug
	return s, nil
}

func (s *source) close() {
	if s.hs != nil {
		s.hs.Close()
	}
	if s.db != nil {
		s.db.Close()
	}
	os.RemoveAll(s.dir)
}

// counter counts the requests a handler answers, by API action, the
// time it took to answer them and the largest answer's bytes.
type counter struct {
	mu       sync.Mutex
	total    int
	byAction map[string]int
	took     map[string]time.Duration
	largest  map[string]int64
}

// countingWriter counts the bytes of an answer.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// Flush lets a streamed answer be flushed through the count.
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *counter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		action := r.URL.Query().Get("action")
		if action == "" {
			action = "other"
		}
		start := time.Now()
		cw := &countingWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		c.mu.Lock()
		c.total++
		c.byAction[action]++
		c.took[action] += time.Since(start)
		c.largest[action] = max(c.largest[action], cw.n)
		c.mu.Unlock()
	})
}

func (c *counter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total, c.byAction, c.took, c.largest = 0, map[string]int{}, map[string]time.Duration{}, map[string]int64{}
}

// String is the total and the count of each action, most first, with the
// time the source took to answer them where it is 0.1 s or more, and the
// largest answer where it is 64 KiB or more.
func (c *counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.byAction))
	for n := range c.byAction {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := c.byAction[names[i]], c.byAction[names[j]]
		return a > b || a == b && names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, c.byAction[n])
		if t := c.took[n]; t >= 100*time.Millisecond {
			parts[i] += fmt.Sprintf(" in %.1fs", t.Seconds())
		}
		if b := c.largest[n]; b >= 64<<10 {
			parts[i] += fmt.Sprintf(" (largest %.1f MiB)", float64(b)/(1<<20))
		}
	}
	return fmt.Sprintf("%d (%s)", c.total, strings.Join(parts, ", "))
}

// fill writes sz into the account through the store, as the API would:
// members who author the work in turn; projects of sz.perProject tasks,
// every 4th top-level task with 3 subtasks, every 3rd childless task
// done; the comments spread evenly over the tasks; the files, each of
// sz.fileBytes random bytes, attached in turn to a task and to a comment.
func fill(ctx context.Context, db *store.DB, acct taskd.Account, owner taskd.Person, sz size) error {
	actors := []taskd.Actor{{AccountID: acct.ID, Person: owner.Ref(), Role: taskd.RoleOwner}}
	for i := range sz.members {
		p, err := db.AddMember(ctx, acct.ID, taskd.NewPerson{Email: fmt.Sprintf("member%d@source.example", i), PasswordHash: "x",
			FirstName: "Member", LastName: fmt.Sprint(i)}, taskd.RoleUser)
		if err != nil {
			return fmt.Errorf("member %d: %w", i, err)
		}
		actors = append(actors, taskd.Actor{AccountID: acct.ID, Person: p.Ref(), Role: taskd.RoleUser})
	}
	by := func(i int) taskd.Actor { return actors[i%len(actors)] }
	text := strings.Repeat("Some words about the work to do. ", 3)
	var tasks, done []int64
	var project int64
	for made := 0; made < sz.tasks; {
		if made%sz.perProject == 0 {
			p, err := db.CreateProject(ctx, actors[0], taskd.ProjectInput{Name: new(fmt.Sprintf("Project %d", made/sz.perProject+1))})
			if err != nil {
				return fmt.Errorf("project: %w", err)
			}
			project = p.ID
		}
		kids := 0
		if len(tasks)%4 == 0 && sz.tasks-made >= 4 && made%sz.perProject <= sz.perProject-4 {
			kids = 3
		}
		name := fmt.Sprintf("Task %d", made+1)
		top, err := db.CreateTask(ctx, by(made), project, 0, taskd.TaskInput{Name: &name, Text: &text})
		if err != nil {
			return fmt.Errorf("task: %w", err)
		}
		tasks = append(tasks, top.ID)
		made++
		if kids == 0 && made%3 == 0 {
			done = append(done, top.ID)
		}
		for range kids {
			name := fmt.Sprintf("Subtask %d", made+1)
			sub, err := db.CreateTask(ctx, by(made), project, top.ID, taskd.TaskInput{Name: &name})
			if err != nil {
				return fmt.Errorf("subtask: %w", err)
			}
			tasks = append(tasks, sub.ID)
			made++
			if made%3 == 0 {
				done = append(done, sub.ID)
			}
		}
	}
	for _, id := range done {
		if _, err := db.CompleteTask(ctx, actors[0], id); err != nil {
			return fmt.Errorf("complete: %w", err)
		}
	}
	comments := make([]int64, 0, sz.comments)
	for i := range sz.comments {
		c, err := db.CreateComment(ctx, by(i), tasks[i%len(tasks)], fmt.Sprintf("Comment %d: %s", i+1, text))
		if err != nil {
			return fmt.Errorf("comment: %w", err)
		}
		comments = append(comments, c.ID)
	}
	for i := range sz.files {
		owner, id := taskd.OwnerTask, tasks[(i/2)*len(tasks)/max(1, (sz.files+1)/2)%len(tasks)]
		if i%2 == 1 && len(comments) > 0 {
			owner, id = taskd.OwnerComment, comments[(i/2)*len(comments)/max(1, sz.files/2)%len(comments)]
		}
		content := io.LimitReader(mrand.NewChaCha8([32]byte{byte(i), byte(i >> 8)}), sz.fileBytes)
		f, err := db.CreateFile(ctx, actors[0], fmt.Sprintf("file-%d.bin", i+1), "application/octet-stream", content, taskd.DefaultFileLimits)
		if err != nil {
			return fmt.Errorf("file: %w", err)
		}
		if err := db.AttachFiles(ctx, actors[0], []int64{f.ID}, owner, id); err != nil {
			return fmt.Errorf("attach: %w", err)
		}
	}
	return nil
}
