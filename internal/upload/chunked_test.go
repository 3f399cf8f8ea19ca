package upload

import (
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestChunkedRefusalIsAnsweredAtOnce: an upload of unknown length (a
// chunked body, as a client streaming a file sends) refused at the gate is
// answered while its body is still arriving, not after 256 KB more of it
// (which net/http otherwise reads before answering, to keep the
// connection) or the server's read timeout.
func TestChunkedRefusalIsAnsweredAtOnce(t *testing.T) {
	g := New(Limits{PerPerson: 1})
	hold, err := g.Enter(1, 7) // the person's one place is taken
	if err != nil {
		t.Fatal(err)
	}
	defer hold()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mr, _, err := g.MultipartReader(w, r)
		if err == nil {
			_, err = mr.NextPart() // the file's headers: now the sender is known
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := g.Enter(1, 7); err != nil {
			http.Error(w, err.Error(), http.StatusTooManyRequests)
			return
		}
		t.Error("a second upload was admitted")
	}))
	defer srv.Close()

	pr, pw := io.Pipe()
	defer pw.Close()
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, pr) // no length: chunked
	req.Header.Set("Content-Type", mw.FormDataContentType())
	answered := make(chan *http.Response, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	part, _ := mw.CreateFormFile("attach[0]", "big.bin")
	part.Write([]byte(strings.Repeat("x", 64<<10))) // and the rest never comes
	select {
	case res := <-answered:
		if res == nil || res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("answered %v, want 429", res)
		}
		res.Body.Close()
	case <-time.After(30 * time.Second): // a hang, not a slowness check
		t.Fatal("the refusal waited for the rest of the body")
	}
}
