package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// hostileSize is what the hostile source answers: one project of tasks
// tasks, whose get_tasks (and get_all_tasks) answer and each task's
// get_comments answer are about answerBytes of valid JSON, made of
// comments of commentBytes of text each.
type hostileSize struct {
	tasks        int
	answerBytes  int64
	commentBytes int64
}

// hostile is a source that answers as a Worksection account would, in
// valid JSON, but with answers as large as asked (issue 46, item 6): the
// reads an importer must bound. It serves on loopback in this process and
// writes its answers as it goes, so that its own memory stays small; it
// takes any key and counts the requests by action.
type hostile struct {
	size       hostileSize
	hs         *http.Server
	accountURL string
	key        string
	counts     *counter
	text       string // the words its texts are cut from
}

// newHostile serves a hostile source of sz.
func newHostile(sz hostileSize) (*hostile, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hostile{size: sz, key: "hostile-key", counts: &counter{}, text: strings.Repeat(phrase, (64<<10)/len(phrase))}
	h.counts.reset()
	h.hs = &http.Server{Handler: h.counts.wrap(http.HandlerFunc(h.serve)), ReadHeaderTimeout: 10 * time.Second}
	go h.hs.Serve(ln)
	h.accountURL = "http://" + ln.Addr().String()
	return h, nil
}

func (h *hostile) close() { h.hs.Close() }

const (
	hostileOwner  = `{"id":"1","email":"owner@hostile.example","name":"Olga Owner"}`
	hostileMember = `{"id":"2","email":"member@hostile.example","name":"Max Member"}`
)

// serve answers one call: the people, one project, its tasks and their
// comments; every other list is empty.
func (h *hostile) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	switch q.Get("action") {
	case "get_users":
		fmt.Fprintf(bw, `{"status":"ok","data":[%s,%s]}`,
			strings.Replace(hostileOwner, `}`, `,"role":"owner"}`, 1), strings.Replace(hostileMember, `}`, `,"role":"user"}`, 1))
	case "get_projects":
		if q.Get("filter") != "" {
			bw.WriteString(`{"status":"ok","data":[]}`)
			return
		}
		fmt.Fprintf(bw, `{"status":"ok","data":[{"id":"1","name":"Hostile","status":"active","user_from":%s,"user_to":%s,"users":[%s,%s]}]}`,
			hostileOwner, hostileOwner, hostileOwner, hostileMember)
	case "get_tasks", "get_all_tasks":
		h.tasks(bw)
	case "get_comments":
		h.comments(bw, q.Get("id_task"))
	default:
		bw.WriteString(`{"status":"ok","data":[]}`)
	}
}

// tasks writes the project's tasks, their texts sharing the answer's
// bytes.
func (h *hostile) tasks(w *bufio.Writer) {
	n := max(1, h.size.tasks)
	text := max(1, h.size.answerBytes/int64(n))
	w.WriteString(`{"status":"ok","data":[`)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"id":"%d","name":"Task %d","status":"active","priority":"1","project":{"id":"1"},"user_from":%s,"user_to":%s,"date_added":"2024-01-16 10:00","text":"`,
			100+i, i+1, hostileMember, hostileMember)
		h.words(w, text)
		w.WriteString(`"}`)
	}
	w.WriteString(`]}`)
}

// comments writes a task's comments, of h.size.commentBytes of text each,
// up to the answer's bytes.
func (h *hostile) comments(w *bufio.Writer, task string) {
	each := max(1, h.size.commentBytes)
	n := max(1, h.size.answerBytes/each)
	w.WriteString(`{"status":"ok","data":[`)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"id":"%s-%d","date_added":"2024-01-16 10:05","user_from":%s,"text":"`, task, i+1, hostileMember)
		h.words(w, each)
		w.WriteString(`"}`)
	}
	w.WriteString(`]}`)
}

// phrase is the text the hostile source repeats: valid, plain words.
const phrase = "All work and no play makes a long answer. "

// words writes n bytes of h.text, repeated.
func (h *hostile) words(w *bufio.Writer, n int64) {
	for n > 0 {
		k := min(n, int64(len(h.text)))
		w.WriteString(h.text[:k])
		n -= k
	}
}

// parseInts reads a comma-separated list of positive numbers.
func parseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, v)
	}
	return out, nil
}
