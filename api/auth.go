package api

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// AdminHeaderSkew is how far the time in an Admin authorization header may
// be from the server's clock.
const AdminHeaderSkew = 300 * time.Second

// checkAdminHeader verifies "Admin {unix}_{hex hmac-sha256(key, action:unix)}".
func checkAdminHeader(header, action string, key []byte, now time.Time) bool {
	cred, ok := strings.CutPrefix(header, "Admin ")
	if !ok {
		return false
	}
	ts, mac, ok := strings.Cut(strings.TrimSpace(cred), "_")
	if !ok || len(ts) > 12 || len(mac) != 64 {
		return false
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(unix, 0)); d > AdminHeaderSkew || d < -AdminHeaderSkew {
		return false
	}
	got, err := hex.DecodeString(mac)
	if err != nil {
		return false
	}
	h := hmac.New(sha256.New, key)
	h.Write([]byte(action + ":" + ts))
	return hmac.Equal(got, h.Sum(nil))
}

// checkHash verifies the hash parameter against the form-encoded text that
// carried it. Clients disagree on encoding, so three renderings of the
// remainder (the pairs other than hash, in their order) are candidates: as
// sent, percent-decoded, and re-encoded the way PHP's http_build_query does.
// A rendering counts only when it parses back to exactly the parameters that
// will run, so one signature authenticates one parameter set: a decoded "&"
// or "=" (a%26b%3Dc against a&b=c) or a decoded "+" could otherwise let a
// signature made for some parameters vouch for others. Every candidate is
// compared in constant time.
func checkHash(signed, hash string, key []byte) bool {
	want, err := hex.DecodeString(strings.ToLower(hash))
	if err != nil || len(want) != md5.Size {
		return false
	}
	params, err := url.ParseQuery(signed)
	if err != nil {
		return false
	}
	params.Del("hash")
	var raw, decoded, php []string
	for _, pair := range strings.Split(signed, "&") {
		k, v, _ := strings.Cut(pair, "=")
		dk, err1 := url.QueryUnescape(k)
		dv, err2 := url.QueryUnescape(v)
		if dk == "hash" || pair == "" {
			continue
		}
		raw = append(raw, pair)
		if err1 != nil || err2 != nil {
			dk, dv = k, v
		}
		decoded = append(decoded, dk+"="+dv)
		php = append(php, phpEncode(dk)+"="+phpEncode(dv))
	}
	ok := 0
	for _, candidate := range []string{strings.Join(raw, "&"), strings.Join(decoded, "&"), strings.Join(php, "&")} {
		if !parsesTo(candidate, params) {
			continue
		}
		sum := md5.Sum(append([]byte(candidate), key...))
		ok |= subtle.ConstantTimeCompare(sum[:], want)
	}
	return ok == 1
}

// parsesTo reports whether form-encoded text holds exactly the parameters
// want, each with its one value.
func parsesTo(text string, want url.Values) bool {
	got, err := url.ParseQuery(text)
	if err != nil || len(got) != len(want) {
		return false
	}
	for k, vs := range want {
		g, ok := got[k]
		if !ok || len(g) != len(vs) {
			return false
		}
		for i := range vs {
			if g[i] != vs[i] {
				return false
			}
		}
	}
	return true
}

// phpEncode is PHP's urlencode: like url.QueryEscape, but "~" is escaped too.
func phpEncode(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "~", "%7E")
}
