package api

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
)

// A long list (get_all_tasks, get_events) is written as it is read: the
// success envelope's opening, each item as the store hands it over, then
// the closing. The bytes are those json.Marshal writes of the whole
// envelope, so a client cannot tell a streamed answer from another.
//
// An error before anything was sent (the first 64 KiB are held back)
// answers the error envelope, as any call does. An error after that
// cannot change the status line any more: the connection is aborted
// (http.ErrAbortHandler) with the list left open, so no client takes the
// part it received for a whole answer: the chunked body has no last
// chunk, and the JSON has no closing "]}".

// streamBody is an answer written as it is read: it calls put with each
// item of the envelope's data, in order.
type streamBody func(put func(item any) error) error

// streamHold is how much of a streamed answer is held back before the
// first bytes are sent: an answer shorter than this is sent whole, and an
// error within it answers the error envelope.
const streamHold = 64 << 10

// streams admits streamed answers: each holds a read connection (and a
// snapshot) while its client reads, so that only a few may run at once and
// other reads always find a connection.
type streams chan struct{}

func newStreams(n int) streams { return make(streams, max(n, 1)) }

// acquire waits for a turn; false when ctx ended first.
func (s streams) acquire(ctx context.Context) bool {
	select {
	case s <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s streams) release() { <-s }

// sentWriter sends the success headers before the first bytes it passes on,
// and remembers whether it did.
type sentWriter struct {
	w    http.ResponseWriter
	sent bool
}

func (s *sentWriter) Write(p []byte) (int, error) {
	if !s.sent {
		s.sent = true
		h := s.w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		s.w.WriteHeader(http.StatusOK)
	}
	return s.w.Write(p)
}

// writeStream writes a streamed answer (see above).
func writeStream(w http.ResponseWriter, r *http.Request, log *slog.Logger, lanes streams, body streamBody) {
	if !lanes.acquire(r.Context()) {
		panic(http.ErrAbortHandler) // the client is gone
	}
	defer lanes.release()
	sw := &sentWriter{w: w}
	bw := bufio.NewWriterSize(sw, streamHold)
	bw.WriteString(`{"status":"ok","data":[`)
	first := true
	err := body(func(item any) error {
		b, err := json.Marshal(item)
		if err != nil {
			return err
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		_, err = bw.Write(b)
		return err
	})
	if err == nil {
		bw.WriteString("]}\n")
		err = bw.Flush()
	}
	if err == nil {
		return
	}
	if !sw.sent {
		writeError(w, r, log, err)
		return
	}
	log.WarnContext(r.Context(), "streamed answer cut short", "path", r.URL.Path, "err", err)
	panic(http.ErrAbortHandler)
}
