package api

import (
	"bytes"
	"strings"
	"sync"
)

// maxVerifiedHashes bounds verifiedHashes: the signed texts it holds, each
// at most maxVerifiedForm bytes (at most 32 MiB in all, most far less).
const (
	maxVerifiedHashes = 16384
	maxVerifiedForm   = 2048
)

// verifiedHashes remembers the signed texts whose hash verified against an
// account's sealed administrative key. Whether a hash verifies depends on
// nothing but the signed text (which carries the hash) and the key, and
// sealed bytes name one key for good: a new or revoked key is other bytes
// (or none), so an entry never vouches for a key the account no longer
// has, and nothing needs invalidating. Only successes are kept, so a
// refused signature is checked every time. Bounded: when full it is
// emptied. A lookup allocates nothing.
type verifiedHashes struct {
	mu       sync.RWMutex
	accounts map[int64]*verifiedKey
	n        int // signed texts held
	limit    int
}

// verifiedKey is the signed texts that verified under one account's
// sealed key; the slug is the one the key was opened for.
type verifiedKey struct {
	slug   string
	sealed []byte
	forms  map[string]struct{}
}

func newVerifiedHashes(limit int) *verifiedHashes {
	return &verifiedHashes{accounts: make(map[int64]*verifiedKey), limit: limit}
}

// has reports whether form verified under the account's sealed key.
func (v *verifiedHashes) has(acct int64, slug string, sealed []byte, form string) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	k := v.accounts[acct]
	if k == nil || k.slug != slug || !bytes.Equal(k.sealed, sealed) {
		return false
	}
	_, ok := k.forms[form]
	return ok
}

// add remembers that form verified under the account's sealed key,
// forgetting what verified under the account's previous key. A longer
// text than maxVerifiedForm (a signed form body) is not kept.
func (v *verifiedHashes) add(acct int64, slug string, sealed []byte, form string) {
	if len(form) > maxVerifiedForm {
		return
	}
	form = strings.Clone(form) // not the request's buffer
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.n >= v.limit {
		clear(v.accounts)
		v.n = 0
	}
	k := v.accounts[acct]
	if k == nil || k.slug != slug || !bytes.Equal(k.sealed, sealed) {
		if k != nil {
			v.n -= len(k.forms)
		}
		k = &verifiedKey{slug: slug, sealed: bytes.Clone(sealed), forms: make(map[string]struct{})}
		v.accounts[acct] = k
	}
	if _, ok := k.forms[form]; !ok {
		k.forms[form] = struct{}{}
		v.n++
	}
}
