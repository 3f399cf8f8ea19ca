package admit_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/admit"
)

// TestGateBounds: each bound refuses the holder past it, and says which;
// a release frees the place once, however often it is called.
func TestGateBounds(t *testing.T) {
	g := admit.New(admit.Limits{PerPerson: 2, PerAccount: 3, Total: 4})
	enter := func(acct, person int64, want admit.Bound) func() {
		t.Helper()
		release, got := g.Enter(acct, person)
		if got != want {
			t.Fatalf("Enter(%d, %d) = %v, want %v (held %d)", acct, person, got, want, g.Held())
		}
		if (release == nil) != (want != admit.None) {
			t.Fatalf("Enter(%d, %d): release %v with bound %v", acct, person, release != nil, got)
		}
		return release
	}
	a1 := enter(1, 10, admit.None)
	enter(1, 10, admit.None)
	enter(1, 10, admit.Person) // the person's third
	enter(1, 11, admit.None)
	enter(1, 12, admit.Account) // the account's fourth
	enter(2, 20, admit.None)
	enter(3, 30, admit.Total) // the fifth in all
	a1()
	a1() // again: harmless, frees one place only
	if n := g.Held(); n != 3 {
		t.Fatalf("held %d after one release, want 3", n)
	}
	enter(1, 10, admit.None)
	enter(3, 30, admit.Total)

	var none *admit.Gate
	if release, b := none.Enter(1, 1); b != admit.None || release == nil {
		t.Fatalf("a nil gate refused: %v", b)
	}
	if g := admit.New(admit.Limits{}); g.Limits() != (admit.Limits{}) {
		t.Fatal("limits not kept")
	}
}

// TestGateUnderConcurrency: however many enter at once, never more are
// held than the bounds allow, and all is released in the end.
func TestGateUnderConcurrency(t *testing.T) {
	g := admit.New(admit.Limits{PerPerson: 2, PerAccount: 5})
	var held, most, admitted atomic.Int64
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			release, b := g.Enter(1, int64(i%8))
			if b != admit.None {
				return
			}
			admitted.Add(1)
			n := held.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			held.Add(-1)
			release()
		})
	}
	wg.Wait()
	if most.Load() > 5 || admitted.Load() == 0 {
		t.Fatalf("at most %d held at once (bound 5), %d admitted", most.Load(), admitted.Load())
	}
	if n := g.Held(); n != 0 {
		t.Fatalf("%d held after every release", n)
	}
}

// TestEnterWithinWaitsForAPlace: a holder beyond a bound is admitted when
// a place is freed while it waits, and refused when none is within its
// time or its context ends.
func TestEnterWithinWaitsForAPlace(t *testing.T) {
	g := admit.New(admit.Limits{PerPerson: 1})
	held, _ := g.Enter(1, 1)
	got := make(chan admit.Bound)
	go func() {
		release, b := g.EnterWithin(context.Background(), 20*time.Second, 1, 1) // a bound, so that a lost wake fails rather than hangs
		if release != nil {
			release() // before telling: the test takes the place next
		}
		got <- b
	}()
	for g.Waiting() == 0 { // the waiter waits: only the release can admit it
		runtime.Gosched()
	}
	held() // frees the place the waiter takes
	if b := <-got; b != admit.None {
		t.Fatalf("a waiter was refused after the place was freed: %v", b)
	}
	held, b := g.Enter(1, 1)
	if b != admit.None {
		t.Fatalf("the place the waiter gave back: %v", b)
	}
	defer held()
	if _, b := g.EnterWithin(context.Background(), time.Millisecond, 1, 1); b != admit.Person {
		t.Fatalf("a waiter with no place freed: %v", b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, b := g.EnterWithin(ctx, time.Hour, 1, 1); b != admit.Person {
		t.Fatalf("a waiter whose context ended: %v", b)
	}
}
