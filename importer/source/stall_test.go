package source

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDownloadStall: a download has no bound on the whole but on each
// wait for bytes (Options.Stall): one that keeps sending for longer than
// the bound is brought whole, one whose source stops sending is stopped
// with an error that says so.
func TestDownloadStall(t *testing.T) {
	const chunks = 15
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", "15")
		hang := r.URL.Query().Get("id_file") == "2"
		for i := range chunks {
			if hang && i == 5 {
				select { // the source stops sending
				case <-stop:
				case <-r.Context().Done():
				case <-time.After(5 * time.Second): // and the answer ends short
				}
				return
			}
			w.Write([]byte{'a'})
			w.(http.Flusher).Flush()
			time.Sleep(40 * time.Millisecond)
		}
	}, Options{Stall: 300 * time.Millisecond})
	ctx := context.Background()

	var got bytes.Buffer
	size, _, err := c.Download(ctx, File{ID: "1", Size: chunks}, &got)
	if err != nil || size != chunks || got.String() != strings.Repeat("a", chunks) {
		t.Fatalf("a steady download of 600 ms with a stall bound of 300 ms: %d %q %v", size, got.String(), err)
	}
	_, _, err = c.Download(ctx, File{ID: "2", Size: chunks}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "no bytes for 300ms") {
		t.Fatalf("a download whose source stops sending: %v", err)
	}
}
