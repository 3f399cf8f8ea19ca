package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Claims are an access token's claims (RFC 9068 plus the account).
type Claims struct {
	Issuer   string `json:"iss"`
	Subject  string `json:"sub"`
	Audience string `json:"aud"`
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
	IssuedAt int64  `json:"iat"`
	Expires  int64  `json:"exp"`
	ID       string `json:"jti"`
	Account  string `json:"account"`
}

type header struct {
	Alg string `json:"alg"`
	Typ string `json:"typ"`
	Kid string `json:"kid"`
}

// b64 is strict, so that each byte string has exactly one encoding. Strict
// decoding still skips CR and LF, so decodeSegment also checks that the input
// is the encoding of what it decodes to.
var b64 = base64.RawURLEncoding.Strict()

// errMalformed is any token that is not a well-formed ES256 JWT of ours.
var errMalformed = errors.New("oauth: malformed token")

// ES256 (RFC 7518 §3.4) signs with P-256 and encodes a signature as r||s,
// each a 32-byte big-endian integer.
//
// ECDSA signatures are malleable: if (r, s) is valid, so is (r, n−s). So that
// a token has exactly one valid string, sign only makes signatures with
// s ≤ n/2 and verification refuses any other (as Bitcoin's BIP 62 does).
const (
	scalarLen = 32
	sigLen    = 2 * scalarLen
)

var (
	p256      = elliptic.P256()
	p256Order = p256.Params().N
	halfOrder = new(big.Int).Rsh(p256Order, 1) // ⌊n/2⌋; n is odd
)

// sign returns the compact JWS of claims, signed with ES256 under kid.
func sign(key *ecdsa.PrivateKey, kid string, c Claims) (string, error) {
	if key.Curve != p256 {
		return "", fmt.Errorf("oauth: sign token: key %s is not P-256", kid)
	}
	h, err := json.Marshal(header{Alg: "ES256", Typ: "at+jwt", Kid: kid})
	if err != nil {
		return "", fmt.Errorf("oauth: encode token header: %w", err)
	}
	p, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("oauth: encode token claims: %w", err)
	}
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(p)
	sig, err := signES256(key, input)
	if err != nil {
		return "", fmt.Errorf("oauth: sign token with key %s: %w", kid, err)
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// signES256 returns the canonical (low-s) ES256 signature of input.
func signES256(key *ecdsa.PrivateKey, input string) ([]byte, error) {
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return nil, err
	}
	return encodeSig(r, lowS(s)), nil
}

// lowS returns whichever of s and n−s is at most n/2.
func lowS(s *big.Int) *big.Int {
	if s.Cmp(halfOrder) > 0 {
		return new(big.Int).Sub(p256Order, s)
	}
	return s
}

// encodeSig returns r||s, each as a fixed-width 32-byte big-endian integer.
// Both must be in [0, n).
func encodeSig(r, s *big.Int) []byte {
	sig := make([]byte, sigLen)
	r.FillBytes(sig[:scalarLen])
	s.FillBytes(sig[scalarLen:])
	return sig
}

// decodeSig returns the r and s of a canonical ES256 signature: 64 bytes,
// r in [1, n−1] and s in [1, n/2].
func decodeSig(sig []byte) (r, s *big.Int, err error) {
	if len(sig) != sigLen {
		return nil, nil, fmt.Errorf("signature is %d bytes, want %d", len(sig), sigLen)
	}
	r = new(big.Int).SetBytes(sig[:scalarLen])
	s = new(big.Int).SetBytes(sig[scalarLen:])
	if r.Sign() == 0 || r.Cmp(p256Order) >= 0 {
		return nil, nil, errors.New("signature r out of range")
	}
	if s.Sign() == 0 || s.Cmp(halfOrder) > 0 {
		return nil, nil, errors.New("signature s out of range or not low-s")
	}
	return r, s, nil
}

// verifyES256 checks that sig is the canonical ES256 signature of input.
func verifyES256(pub *ecdsa.PublicKey, input string, sig []byte) error {
	if pub.Curve != p256 {
		return errors.New("key is not P-256")
	}
	r, s, err := decodeSig(sig)
	if err != nil {
		return err
	}
	digest := sha256.Sum256([]byte(input))
	if !ecdsa.Verify(pub, digest[:], r, s) {
		return errors.New("bad signature")
	}
	return nil
}

// decodeSegment decodes one base64url segment of a compact JWS and refuses
// every encoding but the canonical one, so that no two strings decode alike.
func decodeSegment(seg string) ([]byte, error) {
	b, err := b64.DecodeString(seg)
	if err != nil {
		return nil, err
	}
	if b64.EncodeToString(b) != seg {
		return nil, errors.New("non-canonical base64url")
	}
	return b, nil
}

// malformed wraps errMalformed with what was wrong.
func malformed(what string, err error) error {
	return fmt.Errorf("%w: %s: %w", errMalformed, what, err)
}

// parse splits a compact JWS and returns its key id, so that the caller can
// find the key, and a function that verifies the signature with it and
// decodes the claims. Errors wrap errMalformed.
func parse(token string) (kid string, verify func(*ecdsa.PublicKey) (Claims, error), err error) {
	if len(token) > 4096 {
		return "", nil, fmt.Errorf("%w: %d bytes long", errMalformed, len(token))
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", nil, fmt.Errorf("%w: %d segments, want 3", errMalformed, len(parts))
	}
	hb, err := decodeSegment(parts[0])
	if err != nil {
		return "", nil, malformed("header", err)
	}
	var h header
	if err := json.Unmarshal(hb, &h); err != nil {
		return "", nil, malformed("header", err)
	}
	if h.Alg != "ES256" || h.Typ != "at+jwt" || h.Kid == "" {
		return "", nil, fmt.Errorf("%w: header alg %q typ %q kid %q", errMalformed, h.Alg, h.Typ, h.Kid)
	}
	verify = func(pub *ecdsa.PublicKey) (Claims, error) {
		return verifyClaims(pub, parts)
	}
	return h.Kid, verify, nil
}

// verifyClaims checks the signature of a split compact JWS and decodes its
// claims.
func verifyClaims(pub *ecdsa.PublicKey, parts []string) (Claims, error) {
	var c Claims
	sig, err := decodeSegment(parts[2])
	if err != nil {
		return c, malformed("signature", err)
	}
	if err := verifyES256(pub, parts[0]+"."+parts[1], sig); err != nil {
		return c, malformed("signature", err)
	}
	pb, err := decodeSegment(parts[1])
	if err != nil {
		return c, malformed("claims", err)
	}
	if err := json.Unmarshal(pb, &c); err != nil {
		return c, malformed("claims", err)
	}
	return c, nil
}
