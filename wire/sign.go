package wire

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// How a call of the administrative API is signed with the account's key,
// in either of the two ways the API takes (docs/api.md): the hash
// parameter over the call's other parameters, or an Authorization header
// over the action and the time. The server checks both (package api);
// its clients, the importer's among them, make them here.

// Hash returns md5(signed + key) in hex, the value of the hash parameter
// of a call whose other parameters are the form-encoded text signed.
func Hash(signed, key string) string {
	sum := md5.Sum([]byte(signed + key))
	return hex.EncodeToString(sum[:])
}

// AdminHeader returns the Authorization header value of a call of the
// action at time now: "Admin {unix}_{hex hmac-sha256(key, action:unix)}".
func AdminHeader(key, action string, now time.Time) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	h := hmac.New(sha256.New, []byte(key))
	h.Write([]byte(action + ":" + ts))
	return "Admin " + ts + "_" + hex.EncodeToString(h.Sum(nil))
}
