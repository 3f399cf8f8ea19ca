package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/taskd/taskd"
)

func TestPKCEVector(t *testing.T) {
	t.Parallel()
	// RFC 7636 Appendix B.
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	if err := checkPKCE(challenge, verifier); err != nil {
		t.Fatalf("RFC 7636 vector: %v", err)
	}
	if checkPKCE(challenge, verifier+"x") == nil || checkPKCE(challenge, "") == nil || checkPKCE("", verifier) == nil {
		t.Fatal("a wrong, missing or downgraded verifier passed")
	}
	if checkPKCE("", "") != nil {
		t.Fatal("no PKCE at all must pass")
	}
}

func testKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestJWTRoundTrip(t *testing.T) {
	t.Parallel()
	k := testKey(t)
	c := Claims{Issuer: "https://auth.example", Subject: "101", ID: "j", Expires: 2e9, Account: "acme", Scope: "tasks_read"}
	tok, err := sign(k, "kid1", c)
	if err != nil {
		t.Fatal(err)
	}
	kid, verify, err := parse(tok)
	if err != nil || kid != "kid1" {
		t.Fatalf("parse: %q %v", kid, err)
	}
	got, err := verify(&k.PublicKey)
	if err != nil || got != c {
		t.Fatalf("verify: %+v %v", got, err)
	}
	if _, err := verify(&testKey(t).PublicKey); err == nil {
		t.Fatal("verified with another key")
	}
	// Flip one character of the payload: the signature must fail.
	parts := strings.Split(tok, ".")
	p := []byte(parts[1])
	p[3] ^= 1
	if _, v, err := parse(parts[0] + "." + string(p) + "." + parts[2]); err == nil {
		if _, err := v(&k.PublicKey); err == nil {
			t.Fatal("tampered payload verified")
		}
	}
	// alg=none and other algorithms are refused before any key is used.
	for _, h := range []string{`{"alg":"none","typ":"at+jwt","kid":"kid1"}`, `{"alg":"HS256","typ":"at+jwt","kid":"kid1"}`, `{"alg":"ES256","typ":"JWT","kid":"kid1"}`} {
		if _, _, err := parse(b64.EncodeToString([]byte(h)) + "." + parts[1] + "." + parts[2]); err == nil {
			t.Errorf("header %s accepted", h)
		}
	}
}

func TestGrantedScopes(t *testing.T) {
	t.Parallel()
	req := []string{"tasks_read", taskd.ScopeAdministrative}
	if got := GrantedScopes(req, taskd.RoleUser); len(got) != 1 || got[0] != "tasks_read" {
		t.Errorf("user: %v", got)
	}
	for _, r := range []taskd.Role{taskd.RoleOwner, taskd.RoleAdmin} {
		if got := GrantedScopes(req, r); len(got) != 2 {
			t.Errorf("%s: %v", r, got)
		}
	}
}

func TestValidRedirectURI(t *testing.T) {
	t.Parallel()
	for uri, ok := range map[string]bool{
		"https://app.example/cb":          true,
		"https://app.example:8443/cb?x=1": true,
		"http://app.example/cb":           false,
		"https://app.example/cb#frag":     false,
		"https://user:pw@app.example/cb":  false,
		"/relative":                       false,
		"https:///nohost":                 false,
		"javascript:alert(1)":             false,
		"https://app.example/c b":         false,
	} {
		if got := ValidRedirectURI(uri) == nil; got != ok {
			t.Errorf("%q: valid=%v, want %v", uri, got, ok)
		}
	}
}

// FuzzParseJWT: any string is refused without a panic unless it is exactly
// the one token the key signed: the signature is accepted only in its
// low-S form and canonical base64url, so a token has one string.
func FuzzParseJWT(f *testing.F) {
	k := testKey(f)
	tok, err := sign(k, "kid", Claims{ID: "j", Expires: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tok)
	f.Add("a.b.c")
	f.Add("")
	f.Add(strings.Repeat(".", 5000))
	f.Fuzz(func(t *testing.T, s string) {
		_, verify, err := parse(s)
		if err != nil {
			return
		}
		if _, err := verify(&k.PublicKey); err == nil && s != tok {
			t.Fatalf("%q verified", s)
		}
	})
}
