package api

import (
	"encoding/binary"
	"sync"
)

// maxVerifiedHashes bounds verifiedHashes: about 200 bytes an entry.
const maxVerifiedHashes = 16384

// verifiedHashes remembers the signed texts whose hash verified against an
// account's sealed administrative key. Whether a hash verifies depends on
// nothing but the signed text (which carries the hash) and the key, and
// the sealed bytes name one key for good: a new or revoked key is other
// bytes (or none), so an entry never vouches for a key the account no
// longer has, and nothing needs invalidating. Only successes are kept, so
// a refused signature is checked every time. Bounded: when full it is
// emptied.
type verifiedHashes struct {
	mu    sync.RWMutex
	m     map[string]struct{}
	limit int
}

func newVerifiedHashes(limit int) *verifiedHashes {
	return &verifiedHashes{m: make(map[string]struct{}), limit: limit}
}

// verifiedKey is the entry of the signed text form under the account slug
// and its sealed key; the lengths keep two different triples from making
// the same entry.
func verifiedKey(slug string, sealed []byte, form string) []byte {
	b := make([]byte, 0, 2*binary.MaxVarintLen64+len(slug)+len(sealed)+len(form))
	b = binary.AppendUvarint(b, uint64(len(slug)))
	b = append(b, slug...)
	b = binary.AppendUvarint(b, uint64(len(sealed)))
	b = append(b, sealed...)
	return append(b, form...)
}

// has reports whether form verified under the account's sealed key.
func (v *verifiedHashes) has(slug string, sealed []byte, form string) bool {
	k := verifiedKey(slug, sealed, form)
	v.mu.RLock()
	defer v.mu.RUnlock()
	_, ok := v.m[string(k)]
	return ok
}

// add remembers that form verified under the account's sealed key.
func (v *verifiedHashes) add(slug string, sealed []byte, form string) {
	k := string(verifiedKey(slug, sealed, form))
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.m) >= v.limit {
		clear(v.m)
	}
	v.m[k] = struct{}{}
}
