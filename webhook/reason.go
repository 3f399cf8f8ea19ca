package webhook

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Why an attempt or a URL check failed. Result.Error holds exactly one of
// these, short and stable: it is stored with the attempt, written to the
// log, and returned by get_webhooks as last_error, so it does not change.
// Explain says the same in words for the pages.
const (
	reasonPayload    = "payload of %d bytes exceeds the %d-byte limit"
	reasonBadURL     = "invalid URL"
	reasonCannotSign = "cannot sign: "
	reasonSecrets    = "cannot open the webhook's secrets"
	reasonRedirect   = "HTTP %d redirect (redirects are not followed)"
	reasonStatus     = "HTTP %d, want 200"
	reasonTooLong    = "answer longer than %d bytes"
	reasonNotJSON    = "content type %q is not JSON"
	reasonNotOK      = `body is not a JSON object with "status": "OK"`
	reasonTimeout    = "no answer within %s"
	reasonNoHost     = "host not found"
	reasonRefused    = "connection refused"
	reasonConnect    = "connection failed: "
	reasonFailed     = "request failed"
)

// plainReasons pairs each reason with its words; say gets the reason's
// values (the %d, %q and %s of its format, as written). Reasons that end
// in a free text come before the fixed ones, which could end such a text.
var plainReasons = []struct {
	format string
	say    func(v []string) string
}{
	{reasonStatus, func(v []string) string { return "the receiver answered " + statusText(v[0]) }},
	{reasonRedirect, func(v []string) string {
		return "the receiver answered " + statusText(v[0]) + ", a redirect; redirects are not followed"
	}},
	{reasonNotOK, func([]string) string { return `the receiver's answer is not a JSON object with "status": "OK"` }},
	{reasonNotJSON, func(v []string) string {
		if v[0] == `""` {
			return "the receiver's answer has no content type; it must be JSON"
		}
		return "the receiver's answer has the content type " + v[0] + ", not JSON"
	}},
	{reasonTooLong, func(v []string) string { return "the receiver's answer is longer than " + v[0] + " bytes" }},
	{reasonTimeout, func(v []string) string {
		if d, err := time.ParseDuration(v[0]); err == nil && d%time.Second == 0 {
			return "the receiver did not answer within " + strconv.Itoa(int(d/time.Second)) + " seconds"
		}
		return "the receiver did not answer within " + v[0]
	}},
	{reasonConnect + "%s", func(v []string) string { return "the connection to the receiver failed (" + v[0] + ")" }},
	{reasonNoHost, func([]string) string { return "the receiver's host name was not found (DNS)" }},
	{reasonRefused, func([]string) string { return "the receiver's host refused the connection" }},
	{errPrivate.Error(), func([]string) string {
		return "the receiver's address is not a public one (it is private, loopback, link-local, multicast, reserved or special-purpose), and webhooks are sent only to public addresses"
	}},
	{reasonPayload, func(v []string) string {
		return "the events were not sent: together they take " + v[0] + " bytes, over the limit of " + v[1]
	}},
	{reasonBadURL, func([]string) string { return "the webhook's URL cannot be used" }},
	{reasonCannotSign + "%s", func([]string) string { return "the events could not be signed" }},
	{reasonSecrets, func([]string) string { return "the webhook's secrets could not be opened" }},
	{reasonFailed, func([]string) string { return "the request to the receiver failed" }},
}

// reasonPatterns are plainReasons' formats as expressions that find a
// reason at the end of a text, alone or after ": " (as in "The URL check
// failed when enabling: HTTP 503, want 200").
var reasonPatterns = func() []*regexp.Regexp {
	verbs := strings.NewReplacer("%d", `(\d+)`, "%q", `(".*")`, "%s", `(.+)`)
	out := make([]*regexp.Regexp, len(plainReasons))
	for i, r := range plainReasons {
		out[i] = regexp.MustCompile(`(?:^|: )` + verbs.Replace(regexp.QuoteMeta(r.format)) + `$`)
	}
	return out
}()

// Explain says in plain words why an attempt failed, once: the text of a
// reason (Result.Error, Attempt.Error, Webhook.LastError), alone or at the
// end of a longer text after ": " (Webhook.DisabledReason), is replaced by
// a sentence such as "The receiver answered 401 Unauthorized". The result
// starts with a capital letter and has no full stop; a text without a
// known reason comes back unchanged.
func Explain(text string) string {
	for i, re := range reasonPatterns {
		m := re.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		var values []string
		for j := 2; j+1 < len(m); j += 2 {
			values = append(values, text[m[j]:m[j+1]])
		}
		said := plainReasons[i].say(values)
		if m[0] == 0 {
			return upperFirst(said)
		}
		return text[:m[0]] + ": " + said
	}
	return text
}

// statusText is an HTTP status code with its name, "401 Unauthorized".
func statusText(code string) string {
	n, _ := strconv.Atoi(code)
	if name := http.StatusText(n); name != "" {
		return code + " " + name
	}
	return code
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}
