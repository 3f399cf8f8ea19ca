package oauth

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
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

// b64 is strict, so that each byte string has exactly one encoding.
var b64 = base64.RawURLEncoding.Strict()

// errMalformed is any token that is not a well-formed ES256 JWT of ours.
var errMalformed = errors.New("oauth: malformed token")

// sign returns the compact JWS of claims, signed with ES256 under kid.
func sign(key *ecdsa.PrivateKey, kid string, c Claims) (string, error) {
	h, err := json.Marshal(header{Alg: "ES256", Typ: "at+jwt", Kid: kid})
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(p)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64.EncodeToString(sig), nil
}

// parse splits a compact JWS and returns its key id, so that the caller can
// find the key, and a function that verifies the signature with it and
// decodes the claims.
func parse(token string) (kid string, verify func(*ecdsa.PublicKey) (Claims, error), err error) {
	if len(token) > 4096 {
		return "", nil, errMalformed
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", nil, errMalformed
	}
	hb, err := b64.DecodeString(parts[0])
	if err != nil {
		return "", nil, errMalformed
	}
	var h header
	if json.Unmarshal(hb, &h) != nil || h.Alg != "ES256" || h.Typ != "at+jwt" || h.Kid == "" {
		return "", nil, errMalformed
	}
	verify = func(pub *ecdsa.PublicKey) (Claims, error) {
		var c Claims
		sig, err := b64.DecodeString(parts[2])
		if err != nil || len(sig) != 64 {
			return c, errMalformed
		}
		digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		if !ecdsa.Verify(pub, digest[:], r, s) {
			return c, errMalformed
		}
		pb, err := b64.DecodeString(parts[1])
		if err != nil || json.Unmarshal(pb, &c) != nil {
			return c, errMalformed
		}
		return c, nil
	}
	return h.Kid, verify, nil
}
