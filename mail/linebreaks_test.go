package mail_test

import (
	"testing"
	"time"

	"github.com/taskd/taskd/mail"
)

// TestSubjectRefusesEachBreak: a subject is one header line, so a lone CR
// and a lone LF are refused as the pair is (either alone ends a header for
// some mail software), and the subject with a space is composed.
func TestSubjectRefusesEachBreak(t *testing.T) {
	compose := func(subject string) error {
		_, err := mail.Compose("taskd <taskd@example.com>", mail.Message{To: "ann@example.com", Subject: subject, Text: "Hello"}, time.Now())
		return err
	}
	if err := compose("Your invitation Bcc: x@evil.example"); err != nil {
		t.Fatalf("a subject on one line: %v", err)
	}
	for name, br := range map[string]string{"CR": "\r", "LF": "\n", "CRLF": "\r\n"} {
		if err := compose("Your invitation" + br + "Bcc: x@evil.example"); err == nil {
			t.Errorf("a subject with a %s inside was composed", name)
		}
	}
}
