package web

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"
)

// icalWriter writes an iCalendar object (RFC 5545): every content line
// ends in CRLF and is folded at 75 octets (§3.1), TEXT values are escaped
// (§3.3.11).
type icalWriter struct{ b bytes.Buffer }

// icalLineOctets is the longest a content line may be, CRLF aside (§3.1).
const icalLineOctets = 75

// line writes one content line, name and value already in their form,
// folded: after 75 octets a CRLF and one space start the next line, never
// inside a UTF-8 sequence (§3.1: "multi-octet characters" are not split).
func (w *icalWriter) line(name, value string) {
	s := name + ":" + value
	room := icalLineOctets
	for len(s) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		w.b.WriteString(s[:cut])
		w.b.WriteString("\r\n ")
		s = s[cut:]
		room = icalLineOctets - 1 // the leading space counts
	}
	w.b.WriteString(s)
	w.b.WriteString("\r\n")
}

// text writes a property of type TEXT.
func (w *icalWriter) text(name, value string) { w.line(name, icalText(value)) }

// date writes a property of type DATE (§3.3.4) from YYYY-MM-DD.
func (w *icalWriter) date(name string, day time.Time) {
	w.line(name+";VALUE=DATE", day.Format("20060102"))
}

// stamp writes a DATE-TIME in UTC (§3.3.5, form 2).
func (w *icalWriter) stamp(name string, t time.Time) {
	w.line(name, t.UTC().Format("20060102T150405Z"))
}

// icalText escapes a TEXT value (§3.3.11): backslash, semicolon and comma
// are escaped, a line break becomes \n, and the other control characters,
// which TEXT may not hold, are left out.
func icalText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\' || r == ';' || r == ',':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n' || r == '\r':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
