package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/internal/testsite"
)

// TestTaskNotificationsByEmail: the assignee of a task hears of its
// creation, a comment and its completion in one digest once the changes
// settle, with a link to the task, and never of their own changes; the
// digest's link turns the e-mails off without signing in.
func TestTaskNotificationsByEmail(t *testing.T) {
	t.Parallel()
	testsite.One(t, func(t *testing.T, s *testsite.Site) {
		url := s.AccountURL()
		pid := s.APIID("action=post_project&title=Site")
		tid := s.APIID("action=post_task&id_project=" + pid + "&title=Logo&email_user_to=" + testsite.UserEmail)
		testsite.APICall(t, url, s.Key, "action=post_comment&id_task="+tid+"&text=Please+use+the+new+colours")
		testsite.APICall(t, url, s.Key, "action=complete_task&id_task="+tid)
		time.Sleep(100 * time.Millisecond)
		for _, m := range s.Mail.Messages() {
			if m.To == testsite.UserEmail {
				t.Fatal("a digest went out before the changes settled")
			}
		}
		s.Clock.Advance(2 * time.Hour)
		m := s.MailTo(t, testsite.UserEmail)
		if m.Subject != "Acme: 3 changes to Logo" {
			t.Fatalf("digest subject %q\n%s", m.Subject, m.Text)
		}
		for _, want := range []string{"Olga Owner created the task, assigned to Uma User", "Olga Owner commented: Please use the new colours",
			"Olga Owner completed the task", s.Base + "/a/" + s.Slug + "/project/" + pid + "/" + tid + "/"} {
			if !strings.Contains(m.Text, want) {
				t.Fatalf("digest lacks %q:\n%s", want, m.Text)
			}
		}
		for _, r := range s.Mail.Messages() {
			if r.To == testsite.OwnerEmail {
				t.Fatal("the owner was told of their own changes")
			}
		}

		// The stop link.
		i := strings.Index(m.Text, s.Base+"/notifications/off?")
		link := strings.Fields(m.Text[i:])[0]
		b := s.Browser()
		page := b.Get(link)
		if page.Status != http.StatusOK {
			t.Fatalf("stop page: %d\n%s", page.Status, page.Body)
		}
		if p := b.Get(strings.Replace(link, "&s=", "&s=00", 1)); p.Status != http.StatusNotFound {
			t.Fatalf("a forged stop link: %d", p.Status)
		}
		if p := b.Submit(s.Base, page, "/notifications/off", nil); p.Status != http.StatusOK || !strings.Contains(p.Body, "no more e-mail") {
			t.Fatalf("stopping: %d\n%s", p.Status, p.Body)
		}
		testsite.APICall(t, url, s.Key, "action=reopen_task&id_task="+tid)
		s.Clock.Advance(2 * time.Hour)
		time.Sleep(200 * time.Millisecond)
		n := 0
		for _, r := range s.Mail.Messages() {
			if r.To == testsite.UserEmail {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d digests to a person who stopped them, want the first only", n)
		}
	})
}
