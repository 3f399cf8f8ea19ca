package importer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestAhead: results are used in the keys' order whatever order the
// fetches end in, never more than n fetch at once, and the first error
// stops the run.
func TestAhead(t *testing.T) {
	t.Parallel()
	keys := make([]int, 40)
	for i := range keys {
		keys[i] = i
	}
	var mu sync.Mutex
	inFlight, most := 0, 0
	second := make(chan struct{})
	fetch := func(ctx context.Context, k int) (int, error) {
		// The first fetch ends only once the second began: fetches overlap.
		switch k {
		case 0:
			select {
			case <-second:
			case <-time.After(10 * time.Second):
				return 0, errors.New("the second fetch never began while the first ran")
			}
		case 1:
			close(second)
		}
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		// Later keys end first, so order comes from ahead, not from luck.
		time.Sleep(time.Duration(40-k%7) * 100 * time.Microsecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		return k * k, nil
	}
	var got []int
	err := ahead(context.Background(), 3, keys, fetch, func(k, v int) error {
		if v != k*k {
			t.Errorf("key %d got %d", k, v)
		}
		got = append(got, k)
		return nil
	}, nil)
	if err != nil || !slices.Equal(got, keys) {
		t.Fatalf("used %v, %v", got, err)
	}
	if most > 3 {
		t.Errorf("%d fetches at once, want at most 3", most)
	}

	boom := errors.New("boom")
	used := 0
	err = ahead(context.Background(), 3, keys, func(ctx context.Context, k int) (int, error) {
		if k == 5 {
			return 0, boom
		}
		return k, nil
	}, func(int, int) error { used++; return nil }, nil)
	if !errors.Is(err, boom) || used != 5 {
		t.Fatalf("a fetch's error: %v after %d used", err, used)
	}
	second = make(chan struct{})
	err = ahead(context.Background(), 3, keys, fetch, func(k, _ int) error {
		if k == 7 {
			return boom
		}
		return nil
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("a use's error: %v", err)
	}
}

// TestAheadLeases: each key's lease is made in the keys' order before its
// fetch, the fetch runs with its context, and every lease is released
// once: after its result was used and before the next key's is, or when
// ahead stops on an error.
func TestAheadLeases(t *testing.T) {
	t.Parallel()
	type leaseKey struct{}
	keys := make([]int, 30)
	for i := range keys {
		keys[i] = i
	}
	for _, failAt := range []int{-1, 0, 11} {
		var mu sync.Mutex
		var made []int
		released := map[int]int{}
		used := map[int]bool{}
		next := 0
		lease := func(ctx context.Context) (context.Context, func()) {
			mu.Lock()
			defer mu.Unlock()
			k := next
			next++
			made = append(made, k)
			return context.WithValue(ctx, leaseKey{}, k), func() {
				mu.Lock()
				defer mu.Unlock()
				if k != failAt && k < len(keys) && !used[k] && (failAt < 0 || k < failAt) {
					t.Errorf("lease %d released before its use", k)
				}
				released[k]++
			}
		}
		boom := errors.New("boom")
		err := ahead(context.Background(), 4, keys, func(ctx context.Context, k int) (int, error) {
			if got := ctx.Value(leaseKey{}); got != k {
				return 0, fmt.Errorf("key %d fetched with lease %v", k, got)
			}
			if k == failAt {
				return 0, boom
			}
			return k, nil
		}, func(k, _ int) error {
			mu.Lock()
			defer mu.Unlock()
			used[k] = true
			if k > 0 && released[k-1] != 1 {
				t.Errorf("key %d used while the lease of key %d is held (released %d times)", k, k-1, released[k-1])
			}
			return nil
		}, lease)
		if failAt < 0 && err != nil || failAt >= 0 && !errors.Is(err, boom) {
			t.Fatalf("fail at %d: %v", failAt, err)
		}
		mu.Lock()
		if !slices.IsSorted(made) {
			t.Errorf("leases made in the order %v", made)
		}
		for _, k := range made {
			if released[k] != 1 {
				t.Errorf("fail at %d: lease %d released %d times", failAt, k, released[k])
			}
		}
		if failAt < 0 && len(made) != len(keys) {
			t.Errorf("%d leases for %d keys", len(made), len(keys))
		}
		mu.Unlock()
	}
}
