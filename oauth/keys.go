package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"sync"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// Key publication: a new key is listed in the JWKS for publishDelay before it
// signs anything, so that verifiers that cache the JWKS know it in time; a
// key stays listed and accepted for keepAfter once a newer key signs.
const (
	publishDelay = 10 * time.Minute
	keepAfter    = AccessTTL + time.Hour
)

// sealAD binds sealed signing keys to their purpose.
var sealAD = []byte("taskd signing key")

type key struct {
	kid   string
	priv  *ecdsa.PrivateKey
	added time.Time
}

// keyring holds the signing keys, loaded from the store. Any replica may add
// a key; a token signed with a key this replica has not seen reloads the ring.
type keyring struct {
	store  taskd.SigningKeyStore
	sealer *secret.Sealer
	now    func() time.Time

	mu     sync.RWMutex
	keys   []key // oldest first
	loaded time.Time
}

func (k *keyring) load(ctx context.Context) error {
	stored, err := k.store.SigningKeys(ctx)
	if err != nil {
		return err
	}
	keys := make([]key, 0, len(stored))
	for _, s := range stored {
		der, err := k.sealer.Open(s.Private, sealAD)
		if err != nil {
			return fmt.Errorf("oauth: open signing key %s (is --master-key the one it was made with?): %w", s.KID, err)
		}
		pk, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return fmt.Errorf("oauth: parse signing key %s: %w", s.KID, err)
		}
		ec, ok := pk.(*ecdsa.PrivateKey)
		if !ok {
			return fmt.Errorf("oauth: signing key %s is not ECDSA", s.KID)
		}
		keys = append(keys, key{kid: s.KID, priv: ec, added: s.Added})
	}
	k.mu.Lock()
	k.keys, k.loaded = keys, k.now()
	k.mu.Unlock()
	return nil
}

// ensure loads the keys and creates the first one when there is none.
func (k *keyring) ensure(ctx context.Context) error {
	if err := k.load(ctx); err != nil {
		return err
	}
	k.mu.RLock()
	n := len(k.keys)
	k.mu.RUnlock()
	if n > 0 {
		return nil
	}
	// A first key signs at once: no verifier can hold an older JWKS.
	return k.add(ctx, k.now().Add(-publishDelay))
}

// Rotate adds a new key; it signs once it has been published for a while.
func (k *keyring) rotate(ctx context.Context) error { return k.add(ctx, k.now()) }

func (k *keyring) add(ctx context.Context, added time.Time) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("oauth: generate key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return fmt.Errorf("oauth: marshal key: %w", err)
	}
	sk := taskd.SigningKey{KID: secret.Token(12), Private: k.sealer.Seal(der, sealAD), Added: added.UTC()}
	if err := k.store.AddSigningKey(ctx, sk); err != nil {
		return err
	}
	return k.load(ctx)
}

// signer returns the key that signs now: the newest one published for at
// least publishDelay, else the oldest.
func (k *keyring) signer(ctx context.Context) (key, error) {
	if err := k.refresh(ctx); err != nil {
		return key{}, err
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	if len(k.keys) == 0 {
		return key{}, fmt.Errorf("oauth: no signing key")
	}
	cut := k.now().Add(-publishDelay)
	for i := len(k.keys) - 1; i >= 0; i-- {
		if !k.keys[i].added.After(cut) {
			return k.keys[i], nil
		}
	}
	return k.keys[0], nil
}

// refresh reloads the keys once a minute, so that a key another replica
// added starts signing here too.
func (k *keyring) refresh(ctx context.Context) error {
	k.mu.RLock()
	stale := k.now().Sub(k.loaded) > time.Minute
	k.mu.RUnlock()
	if stale {
		return k.load(ctx)
	}
	return nil
}

// public returns the public key of kid, reloading once when it is unknown.
func (k *keyring) public(ctx context.Context, kid string) (*ecdsa.PublicKey, bool) {
	for attempt := 0; attempt < 2; attempt++ {
		k.mu.RLock()
		for _, kk := range k.keys {
			if kk.kid == kid {
				k.mu.RUnlock()
				return &kk.priv.PublicKey, true
			}
		}
		k.mu.RUnlock()
		if attempt == 0 && k.load(ctx) != nil {
			return nil, false
		}
	}
	return nil, false
}

// published returns the keys listed in the JWKS: the signing key, every
// newer one, and older ones that may still have live tokens.
func (k *keyring) published(ctx context.Context) ([]key, error) {
	s, err := k.signer(ctx)
	if err != nil {
		return nil, err
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	var out []key
	for i, kk := range k.keys {
		retiredAt := time.Time{}
		if i+1 < len(k.keys) {
			retiredAt = k.keys[i+1].added.Add(publishDelay)
		}
		if !kk.added.Before(s.added) || retiredAt.IsZero() || k.now().Before(retiredAt.Add(keepAfter)) {
			out = append(out, kk)
		}
	}
	return out, nil
}

// jwk is a public key in JWK form (RFC 7517/7518).
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
}

func toJWK(k key) (jwk, error) {
	pub, err := k.priv.PublicKey.Bytes() // uncompressed point 0x04 || X || Y
	if err != nil {
		return jwk{}, err
	}
	return jwk{Kty: "EC", Crv: "P-256", X: b64.EncodeToString(pub[1:33]), Y: b64.EncodeToString(pub[33:]),
		Kid: k.kid, Use: "sig", Alg: "ES256"}, nil
}
