package wire_test

import (
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// lineBreaks are the one-sided inputs of the rule "one line": a carriage
// return alone, a line feed alone, and the two together, each between
// words, where trimming cannot take it away.
var lineBreaks = map[string]string{"CR": "\r", "LF": "\n", "CRLF": "\r\n"}

// TestOneLineRulesRefuseEachBreak: every domain rule that keeps a value on
// one line (a folder's title, a tag's title, a webhook's URL, an e-mail
// address and a list of them) refuses a lone CR and a lone LF as it refuses
// both, and takes the same value with a space.
func TestOneLineRulesRefuseEachBreak(t *testing.T) {
	params := func(field, v string) wire.Params {
		return func(name string) (string, bool) { return v, name == field }
	}
	for _, rule := range []struct {
		name  string
		value string // with {} where the break goes
		check func(v string) error
	}{
		{"folder title", "Big{}Client", func(v string) error {
			_, err := wire.ParseProjectInput(params("company", v))
			return err
		}},
		{"tag title", "To{}do", func(v string) error { _, err := taskd.TagTitle(v); return err }},
		{"webhook URL", "https://hooks.example/in{}x", func(v string) error { _, err := taskd.ParseWebhookURL(v); return err }},
		{"e-mail address", "ann{}lee@example.com", func(v string) error { _, err := taskd.NormalizeEmail(v); return err }},
		{"e-mail list", "a@example.com,b{}c@example.com", func(v string) error { _, err := wire.ParseEmails("members", v); return err }},
	} {
		t.Run(rule.name, func(t *testing.T) {
			if err := rule.check(strings.ReplaceAll(rule.value, "{}", "-")); err != nil {
				t.Fatalf("the value on one line is refused: %v", err)
			}
			for name, br := range lineBreaks {
				v := strings.ReplaceAll(rule.value, "{}", br)
				if err := rule.check(v); taskd.ErrorKind(err) != taskd.KindInvalid {
					t.Errorf("with a %s inside (%q): %v, want it refused as invalid", name, v, err)
				}
			}
		})
	}
}
