package source

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/taskd/taskd"
)

// comments is a get_comments answer of n comments of text bytes each.
func comments(n, text int) string {
	var b strings.Builder
	b.WriteString(`{"status":"ok","data":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%d","date_added":"2024-01-16 10:05","user_from":{"email":"a@x.example"},"text":"%s"}`, i+1, strings.Repeat("w", text))
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestAnswerBound (issue 46): an answer over the bound of one answer, by
// its bytes or by what its values take once decoded (many small ones),
// fails its call with an error that names the action, the answer and the
// bound, and is not asked again; an answer of the bound's size is read;
// a string far longer than any text taskd keeps is cut as it is read, so
// that it takes no memory.
func TestAnswerBound(t *testing.T) {
	ctx := context.Background()
	const bound = 256 << 10
	for _, tc := range []struct {
		name, body string
		want       string // in the error; "" for none
	}{
		// Texts longer than taskd keeps: the bytes are over, not the values.
		{"its bytes", comments(2, 150000), "source: get_comments: the answer for id_task=7 is larger than 256 KiB, the bound of one answer"},
		// 180 KiB of comments without text: their values are over.
		{"its values", comments(2000, 0), "source: get_comments: the answer for id_task=7 holds more than 256 KiB once decoded"},
		{"at the bound", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if body == "" { // one comment, padded to the bound exactly
				body = comments(1, bound-len(comments(1, 0)))
			}
			var asked atomic.Int32
			c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				answerBody(body)(w, r)
			}, Options{MaxAnswerBytes: bound})
			list, err := c.Comments(ctx, "7")
			if tc.want == "" {
				if err != nil || len(body) != bound || len(list) != 1 || len(list[0].Text) != taskd.MaxTextLen {
					t.Fatalf("an answer of %d bytes: %d comments, %v", len(body), len(list), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrAnswerTooLarge) {
				t.Fatalf("got %d comments, %v; want %q", len(list), err, tc.want)
			}
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Limit != bound || tl.About != "id_task=7" {
				t.Errorf("the error says %+v", tl)
			}
			if n := asked.Load(); n != 1 {
				t.Errorf("asked %d times", n)
			}
			if h := c.Held(); h.Now != 0 {
				t.Errorf("%d bytes still held after the call", h.Now)
			}
		})
	}

	t.Run("a long string", func(t *testing.T) {
		body := comments(1, 20<<20) // a text of 20 MiB, in an answer under the bound
		c, _ := retryClient(t, answerBody(body), Options{MaxAnswerBytes: 32 << 20})
		list, err := c.Comments(ctx, "7")
		if err != nil || len(list) != 1 || len(list[0].Text) != taskd.MaxTextLen {
			t.Fatalf("%d comments, %v", len(list), err)
		}
		if h := c.Held(); h.Peak > 2*MaxString {
			t.Errorf("the read held %d bytes at most, over twice MaxString", h.Peak)
		}
	})
}

// answerBody is a handler that sends body as JSON.
func answerBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}
}

// TestBudgetSharedByReads (issue 46): however many reads run at once,
// what they hold together stays within the client's budget (the counter
// of the code under test), though each answer is most of one answer's
// bound and all of them together twice the budget: the oldest read goes
// on while the others wait, and every read ends.
func TestBudgetSharedByReads(t *testing.T) {
	const bound = 256 << 10
	body := comments(50, 4000) // about 205 KiB, kept nearly whole
	c, _ := retryClient(t, answerBody(body), Options{MaxAnswerBytes: bound, MaxHeldBytes: bound + 64<<10, Concurrency: 8})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			list, err := c.Comments(context.Background(), fmt.Sprint(i))
			if err != nil || len(list) != 50 {
				t.Errorf("read %d: %d comments, %v", i, len(list), err)
			}
		})
	}
	wg.Wait()
	h := c.Held()
	if h.Limit != bound+64<<10+readChunk {
		t.Errorf("the budget is %d bytes", h.Limit)
	}
	if h.Peak > h.Limit || h.Peak < 200<<10 {
		t.Errorf("the reads held %d bytes at most; the budget is %d, one answer keeps 200 KiB and more", h.Peak, h.Limit)
	}
	if h.Now != 0 {
		t.Errorf("%d bytes still held", h.Now)
	}
}

// TestLeaseHoldsUntilReleased (issue 46): what a call made under a Lease
// keeps stays held after it returns, until the lease is released; a read
// under a younger lease that does not fit beside it waits until every
// older lease is released, and then goes on.
func TestLeaseHoldsUntilReleased(t *testing.T) {
	const bound = 128 << 10
	body := comments(20, 4000) // about 82 KiB kept
	c, _ := retryClient(t, answerBody(body), Options{MaxAnswerBytes: bound, MaxHeldBytes: bound + 16<<10})
	ctx := context.Background()
	ctx1, release1 := c.Lease(ctx)
	_, release2 := c.Lease(ctx) // a lease whose call is still to come
	ctx3, release3 := c.Lease(ctx)
	defer release3()

	third := make(chan error, 1)
	go func() {
		_, err := c.Comments(ctx3, "3") // the youngest: 16 KiB of room at most
		third <- err
	}()
	if _, err := c.Comments(ctx1, "1"); err != nil { // the oldest: never waits
		t.Fatal(err)
	}
	if h := c.Held(); h.Now < 80<<10 {
		t.Errorf("the oldest lease holds %d bytes after its call returned", h.Now)
	}
	release1()
	select {
	case err := <-third:
		t.Fatalf("the youngest read ended (%v) while an older lease was held", err)
	default:
	}
	release2()
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	if h := c.Held(); h.Now < 80<<10 || h.Peak > h.Limit {
		t.Errorf("held %d bytes now, %d at most, of %d", h.Now, h.Peak, h.Limit)
	}
	release3()
	if h := c.Held(); h.Now != 0 {
		t.Errorf("%d bytes held once every lease was released", h.Now)
	}
}

// TestFailedAttemptGivesBack (issue 46): what an attempt that failed
// midway had read and kept goes back to the budget before the next one,
// under a Lease too: the lease holds the values of the answer returned
// only.
func TestFailedAttemptGivesBack(t *testing.T) {
	body := comments(20, 4000) // about 82 KiB kept
	var asked atomic.Int32
	c, _ := retryClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if asked.Add(1) == 1 { // two thirds of the answer, then the connection ends
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write([]byte(body[:2*len(body)/3]))
			return
		}
		w.Write([]byte(body))
	}, Options{})
	ctx, release := c.Lease(context.Background())
	defer release()
	list, err := c.Comments(ctx, "7")
	if err != nil || len(list) != 20 || asked.Load() != 2 {
		t.Fatalf("%d comments in %d attempts, %v", len(list), asked.Load(), err)
	}
	if h := c.Held(); h.Now < 80<<10 || h.Now > 90<<10 {
		t.Errorf("the lease holds %d bytes for the values of one answer, about 82 KiB", h.Now)
	}
}
