package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"math/big"
	"strings"
	"testing"
)

// testN is the order of P-256, computed here independently of jwt.go.
var testN = elliptic.P256().Params().N

// signTest signs a fixed set of claims with k under kid "kid".
func signTest(t testing.TB, k *ecdsa.PrivateKey) string {
	t.Helper()
	tok, err := sign(k, "kid", Claims{Issuer: "https://auth.example", Subject: "1", ID: "j", Expires: 2e9})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// splitSig returns a token's signing input and its signature's r and s.
func splitSig(t testing.TB, tok string) (input string, r, s *big.Int) {
	t.Helper()
	i := strings.LastIndexByte(tok, '.')
	sig, err := b64.DecodeString(tok[i+1:])
	if err != nil || len(sig) != 64 {
		t.Fatalf("signature of %q: %d bytes, %v", tok, len(sig), err)
	}
	return tok[:i], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
}

// withSig returns input with a signature segment of r||s, each as 32 bytes.
func withSig(input string, r, s *big.Int) string {
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64.EncodeToString(sig)
}

// isHighS reports whether s is in the upper half of [1, n-1].
func isHighS(s *big.Int) bool {
	return new(big.Int).Lsh(s, 1).Cmp(testN) > 0
}

// verifyTest parses tok and verifies it with pub.
func verifyTest(tok string, pub *ecdsa.PublicKey) (Claims, error) {
	_, verify, err := parse(tok)
	if err != nil {
		return Claims{}, err
	}
	return verify(pub)
}

func TestJWTSignVerify(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	tok := signTest(t, k)
	c, err := verifyTest(tok, &k.PublicKey)
	if err != nil || c.ID != "j" {
		t.Fatalf("verify: %+v %v", c, err)
	}
}

// TestJWTHighSRefused: of the two valid ECDSA signatures (r, s) and
// (r, n−s) of the same token, only the low-s one is accepted.
func TestJWTHighSRefused(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	tok := signTest(t, k)
	input, r, s := splitSig(t, tok)
	flipped := new(big.Int).Sub(testN, s)
	low, high := s, flipped
	if isHighS(s) {
		low, high = flipped, s
	}
	// Both are mathematically valid: only the canonical check tells them apart.
	digest := sha256.Sum256([]byte(input))
	if !ecdsa.Verify(&k.PublicKey, digest[:], r, high) || !ecdsa.Verify(&k.PublicKey, digest[:], r, low) {
		t.Fatal("n−s variant is not a valid ECDSA signature; the test is broken")
	}
	if _, err := verifyTest(withSig(input, r, low), &k.PublicKey); err != nil {
		t.Errorf("low-s form refused: %v", err)
	}
	if _, err := verifyTest(withSig(input, r, high), &k.PublicKey); err == nil {
		t.Error("high-s form (r, n−s) of a valid token accepted: two strings for one token")
	}
	if isHighS(s) {
		t.Error("sign produced a high-s signature")
	}
}

// TestJWTSignLowS: every signature sign makes has s ≤ n/2. Half of raw
// ECDSA signatures have a high s, so 200 tokens all pass by chance with
// probability 2^-200.
func TestJWTSignLowS(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	for i := range 200 {
		tok := signTest(t, k)
		if _, _, s := splitSig(t, tok); isHighS(s) {
			t.Fatalf("token %d has a high s", i)
		}
		if _, err := verifyTest(tok, &k.PublicKey); err != nil {
			t.Fatalf("token %d refused: %v", i, err)
		}
	}
}

// TestJWTSignatureBounds: r and s must be in [1, n−1], s at most n/2.
func TestJWTSignatureBounds(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	input, r, s := splitSig(t, signTest(t, k))
	half := new(big.Int).Rsh(testN, 1) // (n−1)/2, n being odd
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for name, rs := range map[string][2]*big.Int{
		"r=0":       {big.NewInt(0), s},
		"s=0":       {r, big.NewInt(0)},
		"r=n":       {testN, s},
		"s=n":       {r, testN},
		"r=2^256-1": {max, s},
		"s=2^256-1": {r, max},
		"r=n+1":     {new(big.Int).Add(testN, big.NewInt(1)), s},
		"s=n+1":     {r, new(big.Int).Add(testN, big.NewInt(1))},
		"s=n/2+1":   {r, new(big.Int).Add(half, big.NewInt(1))},
	} {
		if _, err := verifyTest(withSig(input, rs[0], rs[1]), &k.PublicKey); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestJWTSignatureEncoding: a signature segment has one encoding only.
func TestJWTSignatureEncoding(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	tok := signTest(t, k)
	i := strings.LastIndexByte(tok, '.')
	input, sigText := tok[:i], tok[i+1:]
	sig, _ := b64.DecodeString(sigText)
	variants := map[string]string{
		"padding":       sigText + "==",
		"newline":       sigText[:10] + "\n" + sigText[10:],
		"carriage ret":  sigText[:10] + "\r\n" + sigText[10:],
		"trailing LF":   sigText + "\n",
		"std alphabet":  strings.NewReplacer("-", "+", "_", "/").Replace(sigText),
		"63 bytes":      b64.EncodeToString(sig[:63]),
		"65 bytes":      b64.EncodeToString(append(sig[:64:64], 0)),
		"leading zero":  b64.EncodeToString(append([]byte{0}, sig...)),
		"empty":         "",
		"trailing bits": sigText[:len(sigText)-1] + flipLowBits(sigText[len(sigText)-1]),
	}
	for name, v := range variants {
		if v == sigText {
			continue // the replacement changed nothing (no '-' or '_')
		}
		if _, err := verifyTest(input+"."+v, &k.PublicKey); err == nil {
			t.Errorf("%s: %q accepted", name, input+"."+v)
		}
	}
	// Header and payload segments are held to the same rule.
	parts := strings.Split(tok, ".")
	for n := range 2 {
		p := append([]string(nil), parts...)
		p[n] = p[n][:5] + "\n" + p[n][5:]
		if _, err := verifyTest(strings.Join(p, "."), &k.PublicKey); err == nil {
			t.Errorf("newline in segment %d accepted", n)
		}
	}
}

// flipLowBits returns the base64url character that differs from c only in
// its lowest bit. The last character of a 64-byte (86-character) encoding
// carries 2 bits of data, so its 4 low bits must be zero.
func flipLowBits(c byte) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, c)
	return string(alphabet[i^1])
}

// FuzzVerifyJWT: the key signs exactly one token, so the only string the
// verifier may accept is that token, byte for byte: no other encoding of its
// signature (high s, padding, line breaks) gets through, and nothing panics.
// Seeds include the token's high-s twin and a line-broken copy.
func FuzzVerifyJWT(f *testing.F) {
	k := testKey(f)
	tok := signTest(f, k)
	input, r, s := splitSig(f, tok)
	f.Add(tok)
	f.Add(withSig(input, r, new(big.Int).Sub(testN, s)))
	f.Add(tok[:len(tok)-20] + "\n" + tok[len(tok)-20:])
	f.Add(tok + "=")
	f.Add(withSig(input, big.NewInt(0), big.NewInt(0)))
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := verifyTest(in, &k.PublicKey)
		if err != nil {
			return
		}
		if in != tok {
			t.Fatalf("%q verified, but only %q was signed", in, tok)
		}
		if c.ID != "j" {
			t.Fatalf("claims %+v", c)
		}
	})
}
