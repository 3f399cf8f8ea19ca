package storetest

import (
	"testing"
	"time"
)

// testRateCounts: hits add up per key and window, a taken-back hit is
// gone, and expired windows are pruned.
func testRateCounts(t *testing.T, f *Fixture) {
	ctx, s := t.Context(), f.Store
	key := "test:" + f.Account.Slug
	w1 := f.Clock.Now().Truncate(time.Minute)
	w2 := w1.Add(time.Minute)
	if n := must(s.AddHits(ctx, key, w1, w1.Add(2*time.Minute), 3))(t); n != 3 {
		t.Fatalf("first hits: %d", n)
	}
	if n := must(s.AddHits(ctx, key, w1, w1.Add(2*time.Minute), 2))(t); n != 5 {
		t.Fatalf("hits add up to %d, want 5", n)
	}
	must(s.AddHits(ctx, key, w2, w2.Add(2*time.Minute), 1))(t)
	must(s.AddHits(ctx, key+"-other", w1, w1.Add(2*time.Minute), 7))(t)
	noErr(t, s.RemoveHit(ctx, key, w1))
	counts := must(s.Counts(ctx, key, w1))(t)
	if len(counts) != 2 || !counts[0].Start.Equal(w1) || counts[0].Hits != 4 || counts[1].Hits != 1 {
		t.Fatalf("counts = %+v", counts)
	}
	noErr(t, s.PruneHits(ctx, w1.Add(150*time.Second)))
	if counts := must(s.Counts(ctx, key, w1))(t); len(counts) != 1 || !counts[0].Start.Equal(w2) {
		t.Fatalf("after pruning: %+v", counts)
	}
}
