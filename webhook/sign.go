package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// secretPrefix marks a Standard Webhooks secret.
const secretPrefix = "whsec_"

// NewSecret returns a new signing secret: whsec_ and 32 random bytes in base64.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("webhook: crypto/rand failed: " + err.Error())
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Sign returns the webhook-signature header value (Standard Webhooks v1):
// "v1," + base64(HMAC-SHA256(key, id + "." + unix timestamp + "." + body)).
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) == 0 {
		return "", errors.New("malformed secret")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// ErrStale is Verify's error for a timestamp outside the tolerance: the
// same for every secret, so a clock to look at rather than a key.
var ErrStale = errors.New("webhook-timestamp is outside the tolerance")

// Verify checks a delivery's headers against the secret: one of the
// space-separated v1 signatures must match, and the timestamp must be
// within tolerance of now.
func Verify(secret string, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("malformed webhook-timestamp")
	}
	at := time.Unix(ts, 0)
	if at.Before(now.Add(-tolerance)) || at.After(now.Add(tolerance)) {
		return ErrStale
	}
	want, err := Sign(secret, id, at, body)
	if err != nil {
		return err
	}
	for _, s := range strings.Fields(signatures) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return errors.New("no valid signature")
}
