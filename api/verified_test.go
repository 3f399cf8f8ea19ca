package api

import (
	"strings"
	"testing"
)

// TestVerifiedHashesBounds: an entry answers only for its account, slug
// and sealed key; a new key forgets the old one's; a long signed text is
// not kept; a full cache starts again.
func TestVerifiedHashesBounds(t *testing.T) {
	v := newVerifiedHashes(3)
	sealed, other := []byte("sealed-1"), []byte("sealed-2")
	v.add(1, "acme", sealed, "a=1&hash=x")
	for _, c := range []struct {
		acct   int64
		slug   string
		sealed []byte
		form   string
		want   bool
	}{
		{1, "acme", sealed, "a=1&hash=x", true},
		{1, "acme", sealed, "a=2&hash=x", false},
		{2, "acme", sealed, "a=1&hash=x", false},
		{1, "other", sealed, "a=1&hash=x", false},
		{1, "acme", other, "a=1&hash=x", false},
	} {
		if got := v.has(c.acct, c.slug, c.sealed, c.form); got != c.want {
			t.Errorf("has(%d, %s, %s, %s) = %v", c.acct, c.slug, c.sealed, c.form, got)
		}
	}
	v.add(1, "acme", other, "a=2&hash=y")
	if v.has(1, "acme", sealed, "a=1&hash=x") || !v.has(1, "acme", other, "a=2&hash=y") || v.n != 1 {
		t.Fatalf("after a new key: old %v, new %v, n %d", v.has(1, "acme", sealed, "a=1&hash=x"), v.has(1, "acme", other, "a=2&hash=y"), v.n)
	}
	long := strings.Repeat("a", maxVerifiedForm+1)
	v.add(1, "acme", other, long)
	if v.has(1, "acme", other, long) {
		t.Fatal("a long signed text was kept")
	}
	v.add(1, "acme", other, "b")
	v.add(1, "acme", other, "c")
	v.add(1, "acme", other, "d") // the fourth: emptied first
	if v.n != 1 || v.has(1, "acme", other, "b") || !v.has(1, "acme", other, "d") {
		t.Fatalf("full cache: n %d", v.n)
	}
}
