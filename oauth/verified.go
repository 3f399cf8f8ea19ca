package oauth

import (
	"crypto/sha256"
	"sync"
)

// verifiedCap bounds the cache of verified signatures.
const verifiedCap = 1 << 16

// verified remembers tokens whose signature has been checked, keyed by the
// token's SHA-256. A signature's validity never changes, so the cache needs
// no invalidation across replicas: expiry and whether the token is still
// its grant's current one are checked on every call regardless. It saves
// the ECDSA verification, which was 40% of a token-authenticated call.
type verified struct {
	mu sync.RWMutex
	m  map[[32]byte]Claims
}

func (v *verified) get(token string) (Claims, bool) {
	k := sha256.Sum256([]byte(token))
	v.mu.RLock()
	defer v.mu.RUnlock()
	c, ok := v.m[k]
	return c, ok
}

func (v *verified) put(token string, c Claims) {
	k := sha256.Sum256([]byte(token))
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = make(map[[32]byte]Claims)
	}
	if len(v.m) >= verifiedCap {
		// Drop about half, in map order (effectively random): cheaper than
		// LRU bookkeeping on every hit, and a miss only costs one verification.
		n := 0
		for key := range v.m {
			if n >= verifiedCap/2 {
				break
			}
			delete(v.m, key)
			n++
		}
	}
	v.m[k] = c
}
