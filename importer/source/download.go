package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrTooLarge is a file over the download bound (Options.MaxFileBytes).
var ErrTooLarge = errors.New("the file is larger than the download bound")

// Download streams the content of f to w through the API's download action
// (id_file), on the source's own host only: the File's page, an address of
// the answer, is never followed, and redirects to another host are refused.
// It returns the size and the hex SHA-256 of what it wrote. A file over
// Options.MaxFileBytes, or whose size differs from the one the source
// listed, is an error. Failures before the first byte are retried as any
// call's; once bytes were written to w, an error is returned as is (the
// caller starts again with a fresh w).
func (c *Client) Download(ctx context.Context, f File, w io.Writer) (size int64, sum string, err error) {
	if _, err := id("id_file", flexString(f.ID)); err != nil {
		return 0, "", &ActionError{Action: "download", Err: err}
	}
	if f.Size > c.maxF {
		return 0, "", &ActionError{Action: "download", Err: fmt.Errorf("file %s: %w (%d > %d bytes)", f.ID, ErrTooLarge, f.Size, c.maxF)}
	}
	// A download that waits longer than c.stall for its next bytes is
	// stopped; it has no bound on the whole.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stalled := fmt.Errorf("file %s: no bytes for %v", f.ID, c.stall)
	timer := time.AfterFunc(c.stall, func() { cancel(stalled) })
	defer timer.Stop()
	err = c.do(ctx, "download", []param{{"id_file", f.ID}}, nil, func(res *http.Response) error {
		res.Body = &progressReader{ReadCloser: res.Body, moved: func() { timer.Reset(c.stall) }}
		if res.ContentLength > c.maxF {
			return fmt.Errorf("file %s: %w (%d > %d bytes)", f.ID, ErrTooLarge, res.ContentLength, c.maxF)
		}
		h := sha256.New()
		w := &writeErr{w: w} // tells the writer's failure from the body's
		n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(res.Body, c.maxF+1))
		if err != nil {
			if n == 0 && w.err == nil {
				// The body failed before its first byte: retried as any
				// call's network error.
				return netError{fmt.Errorf("file %s before its first byte: %w", f.ID, clean(err))}
			}
			return fmt.Errorf("file %s after %d bytes: %w", f.ID, n, clean(err))
		}
		if n > c.maxF {
			return fmt.Errorf("file %s: %w (more than %d bytes)", f.ID, ErrTooLarge, c.maxF)
		}
		if res.ContentLength >= 0 && n != res.ContentLength {
			return fmt.Errorf("file %s: %d bytes of the %d announced", f.ID, n, res.ContentLength)
		}
		if f.Size >= 0 && n != f.Size {
			return fmt.Errorf("file %s: %d bytes, the source listed %d", f.ID, n, f.Size)
		}
		size, sum = n, hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil {
		if context.Cause(ctx) == stalled {
			return 0, "", &ActionError{Action: "download", Err: stalled}
		}
		return 0, "", err
	}
	return size, sum, nil
}

// progressReader calls moved after each read that brought bytes.
type progressReader struct {
	io.ReadCloser
	moved func()
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.ReadCloser.Read(b)
	if n > 0 {
		p.moved()
	}
	return n, err
}

// writeErr keeps the error of writing to w.
type writeErr struct {
	w   io.Writer
	err error
}

func (w *writeErr) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}
