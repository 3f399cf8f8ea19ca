// Package httpfile serves stored files over HTTP as downloads that no
// browser renders in the service's origin, for the API and the pages alike.
package httpfile

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
)

// Write streams a stored file as an attachment that no browser renders in
// the account's origin: a safe type, nosniff, a sandbox, and the name in
// Content-Disposition both as plain ASCII and as UTF-8 (RFC 6266).
func Write(w http.ResponseWriter, f taskd.File, body io.Reader) error {
	// A large file takes longer than the server's write timeout: allow a
	// minute plus the time at 64 KB/s.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute + time.Duration(f.Size/(64<<10))*time.Second))
	h := w.Header()
	h.Set("Content-Type", SafeContentType(f.ContentType))
	h.Set("Content-Disposition", ContentDisposition(f.Name))
	h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	_, err := io.Copy(w, body)
	return err
}

// inlineSafe are the types served as they are; anything else, HTML and
// SVG above all, is application/octet-stream.
var inlineSafe = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "application/pdf": true,
	"text/plain": true, "text/csv": true, "application/zip": true, "application/json": true,
	"audio/mpeg": true, "video/mp4": true,
}

// SafeContentType is the type a stored type is served as.
func SafeContentType(t string) string {
	media, _, err := mime.ParseMediaType(t)
	if err != nil || !inlineSafe[media] {
		return "application/octet-stream"
	}
	if strings.HasPrefix(media, "text/") {
		return media + "; charset=utf-8"
	}
	return media
}

// ContentDisposition names a file for a download: an ASCII fallback
// (other characters as _) and the exact name as filename*.
func ContentDisposition(name string) string {
	var ascii strings.Builder
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '%' {
			r = '_'
		}
		ascii.WriteRune(r)
	}
	return `attachment; filename="` + ascii.String() + `"; filename*=UTF-8''` + encodeRFC5987(name)
}

// encodeRFC5987 percent-encodes every byte but RFC 5987's attr-char.
func encodeRFC5987(s string) string {
	const attrChar = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(attrChar, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
