package mail_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/smtptest"
	"github.com/taskd/taskd/internal/testdb"
	taskdmail "github.com/taskd/taskd/mail"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/store/storetest"
)

// newOutbox returns an outbox on a fresh database of the backend, with a
// clock the test moves, sending through sender.
func newOutbox(t *testing.T, d testdb.DB, sender taskdmail.Sender) (*taskdmail.Outbox, *store.DB, *storetest.Clock) {
	t.Helper()
	clock := storetest.NewClock(time.Date(2026, 5, 6, 7, 0, 0, 0, time.UTC))
	db := d.OpenWith(t, store.Options{Now: clock.Now})
	return &taskdmail.Outbox{Store: db, Sealer: testdb.Sealer(t), Sender: sender, From: sender_, Now: clock.Now}, db, clock
}

const sender_ = "taskd <taskd@example.com>"

// TestOutboxLosesNothingWhileTheServerIsDown: mail queued while the mail
// server is down waits, visibly (attempts, the last error, the next try),
// with its body sealed; once the server is back every message arrives once
// and whole, and the outbox keeps no body of a sent message. A sender that
// dies mid-attempt leaves its message to the next one once the lease ends.
func TestOutboxLosesNothingWhileTheServerIsDown(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		srv := smtptest.Start(t, smtptest.StartTLS)
		client := srv.Client(t, "")
		srv.Stop() // the server is down
		ob, db, clock := newOutbox(t, d, client)

		subjects := []string{"Invitation to Acme", "Réinitialiser le mot de passe", "3 changes in Website"}
		for i, s := range subjects {
			to := []string{"olga@example.com", "jean@example.fr", "Ann <ann@example.com>"}[i]
			if err := ob.Queue(ctx, "test", taskdmail.Message{To: to, Subject: s, Text: "Open https://taskd.example/link/" + s, HTML: "<p>" + s + "</p>"}); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := ob.SendDue(ctx); err != nil || n != 3 {
			t.Fatalf("first round: %d tried, %v", n, err)
		}
		list, _ := db.Mail(ctx, 10)
		for _, m := range list {
			if m.State != taskd.MailPending || m.Attempts != 1 || m.LastError == "" || !m.NextAt.After(clock.Now()) {
				t.Fatalf("while down: %+v", m)
			}
			if strings.Contains(string(m.Body), "taskd.example") || strings.Contains(m.LastError, smtptest.Password) {
				t.Fatalf("body in clear or password in the error: %+v", m)
			}
		}
		if n, _ := ob.SendDue(ctx); n != 0 {
			t.Fatalf("tried %d before the retry time", n)
		}

		srv.Restart(t)
		clock.Advance(taskdmail.Backoff[0])
		// A sender claims one message and dies before it records anything.
		if lost, err := db.ClaimMail(ctx, 1, 2*time.Minute); err != nil || len(lost) != 1 {
			t.Fatalf("claim: %v %v", lost, err)
		}
		if n, err := ob.SendDue(ctx); err != nil || n != 2 {
			t.Fatalf("server back: %d tried, %v", n, err)
		}
		clock.Advance(2 * time.Minute)
		if n, err := ob.SendDue(ctx); err != nil || n != 1 {
			t.Fatalf("after the lost lease: %d tried, %v", n, err)
		}
		got := srv.Wait(t, 3, 5*time.Second)
		bySubject := map[string]smtptest.Parsed{}
		for _, r := range got {
			p := smtptest.Parse(t, r.Data)
			bySubject[p.Subject] = p
		}
		for _, s := range subjects {
			p, ok := bySubject[s]
			if !ok || p.Text != "Open https://taskd.example/link/"+s || p.HTML != "<p>"+s+"</p>" {
				t.Fatalf("%q: received %+v", s, p)
			}
		}
		if len(got) != 3 {
			t.Fatalf("%d messages received, want 3", len(got))
		}
		list, _ = db.Mail(ctx, 10)
		for _, m := range list {
			if m.State != taskd.MailSent || len(m.Body) != 0 || m.DoneAt.IsZero() {
				t.Fatalf("after sending: %+v", m)
			}
		}
	})
}

// TestOutboxOutcomes: a message refused for good fails at once with the
// server's answer; one that cannot be delivered for two days is given up;
// without a mail server a message is kept, its body readable for the
// developer's page.
func TestOutboxOutcomes(t *testing.T) {
	ctx := context.Background()
	srv := smtptest.Start(t, smtptest.StartTLS)
	ob, db, clock := newOutbox(t, testdb.New(t, "sqlite"), srv.Client(t, ""))

	srv.Refuse(&smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"})
	if err := ob.Queue(ctx, "test", taskdmail.Message{To: "nobody@example.com", Subject: "Hi", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	ob.SendDue(ctx)
	list, _ := db.Mail(ctx, 1)
	if m := list[0]; m.State != taskd.MailFailed || !strings.Contains(m.LastError, "no such user") || m.Attempts != 1 {
		t.Fatalf("refused: %+v", m)
	}

	srv.Refuse(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
	if err := ob.Queue(ctx, "test", taskdmail.Message{To: "later@example.com", Subject: "Hi", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	for tries := 0; ; tries++ {
		ob.SendDue(ctx)
		list, _ = db.Mail(ctx, 1)
		if list[0].State != taskd.MailPending {
			break
		}
		if tries > 40 {
			t.Fatalf("still pending after %d tries: %+v", tries, list[0])
		}
		clock.Advance(list[0].NextAt.Sub(clock.Now()))
	}
	if m := list[0]; m.State != taskd.MailFailed || !strings.HasPrefix(m.LastError, "gave up after 48h") || m.DoneAt.Sub(m.Added) > taskdmail.GiveUpAfter {
		t.Fatalf("given up: %+v", m)
	}

	keep := &taskdmail.Outbox{Store: db, Sealer: ob.Sealer, From: sender_, Now: clock.Now}
	msg := taskdmail.Message{To: "dev@example.com", Subject: "Kept", Text: "the link", HTML: "<b>the link</b>"}
	if err := keep.Queue(ctx, "test", msg); err != nil {
		t.Fatal(err)
	}
	keep.SendDue(ctx)
	list, _ = db.Mail(ctx, 1)
	if list[0].State != taskd.MailKept {
		t.Fatalf("kept: %+v", list[0])
	}
	if back, err := keep.Open(list[0]); err != nil || back != msg {
		t.Fatalf("opened %+v, %v", back, err)
	}
	if err := keep.Queue(ctx, "test", taskdmail.Message{To: "x@example.com", Subject: "two\r\nBcc: all@example.com", Text: "x"}); err == nil {
		t.Fatal("a subject with a line break was queued")
	}
}
