package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/admit"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/server"
)

// refusedLive asks for a live stream that must be refused: 429, with
// Retry-After, and a page that says why in words containing want.
func refusedLive(t *testing.T, b *testsite.Browser, url, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	res, err := b.C.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "60" || !strings.Contains(string(body), want) {
		t.Fatalf("a stream beyond the bound: %d, Retry-After %q, want 429 saying %q:\n%s", res.StatusCode, res.Header.Get("Retry-After"), want, body)
	}
}

// TestLiveStreamsAreBounded: a person holds at most PerPerson streams at
// once, an account PerAccount, the replica Total; beyond, a stream is
// refused at once with 429, Retry-After and a sentence saying which bound,
// and a stream closed frees its place.
func TestLiveStreamsAreBounded(t *testing.T) {
	t.Parallel()
	s := testsite.Limited(t, testdb.New(t, "sqlite"), server.Limits{Live: admit.Limits{PerPerson: 2, PerAccount: 3, Total: 4}})
	acme, other := s.AccountURL()+"/live", s.Base+"/a/"+s.Other+"/live"
	uma := s.SignedIn(testsite.UserEmail)
	first := openLive(t, uma, acme, "")
	openLive(t, uma, acme, "")
	refusedLive(t, uma, acme, "You have 2 pages with live updates open, the most at once.")
	first.close()
	var umas []*liveStream
	// Its place is freed once the server sees the stream gone.
	for i := 0; ; i++ {
		if l, ok := tryLive(t, uma, acme); ok {
			l.close()
			break
		}
		if i == 100 {
			t.Fatal("a closed stream's place was not freed")
		}
		time.Sleep(100 * time.Millisecond)
	}
	umas = append(umas, openLive(t, uma, acme, ""))

	owner := s.SignedIn(testsite.OwnerEmail)
	openLive(t, owner, acme, "") // the account's third
	s.AddMember(s.Slug, adaEmail, "Ada", "Admin", taskd.RoleAdmin)
	refusedLive(t, s.SignedIn(adaEmail), acme, "Your account has as many pages with live updates open as this server allows.")

	openLive(t, owner, other, "") // the replica's fourth
	s.AddMember(s.Other, "otto@other.example", "Otto", "Other", taskd.RoleUser)
	refusedLive(t, s.SignedIn("otto@other.example"), other, "This server has as many pages with live updates open as it allows.")

	// A stream beyond a bound waits a moment for a place: a page's stream
	// often starts before the server sees the previous page's end.
	third := make(chan int)
	go func() {
		l, ok := tryLive(t, uma, acme)
		if ok {
			l.close()
			third <- http.StatusOK
			return
		}
		third <- http.StatusTooManyRequests
	}()
	time.Sleep(500 * time.Millisecond) // the third waits at the gate (2 s)
	first.close()
	for _, l := range umas {
		l.close()
	}
	if got := <-third; got != http.StatusOK {
		t.Errorf("a stream waiting while a place was freed: HTTP %d", got)
	}
}

// TestLiveStreamsShareOfAnAccount: with only a bound in all, one account
// holds at most a quarter of it.
func TestLiveStreamsShareOfAnAccount(t *testing.T) {
	t.Parallel()
	s := testsite.Limited(t, testdb.New(t, "sqlite"), server.Limits{Live: admit.Limits{Total: 8}})
	acme := s.AccountURL() + "/live"
	uma, owner := s.SignedIn(testsite.UserEmail), s.SignedIn(testsite.OwnerEmail)
	openLive(t, uma, acme, "")
	openLive(t, owner, acme, "")
	refusedLive(t, uma, acme, "Your account has as many pages with live updates open as this server allows.")
}

// tryLive opens a live stream, reporting false when it is refused.
func tryLive(t *testing.T, b *testsite.Browser, url string) (*liveStream, bool) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	res, err := b.C.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == http.StatusTooManyRequests {
		return nil, false
	}
	return openLive(t, b, url, ""), true
}
