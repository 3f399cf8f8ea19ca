package server

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTaskNotificationsByEmail: the assignee of a task hears of its
// creation, a comment and its completion in one digest once the changes
// settle, with a link to the task, and never of their own changes; the
// digest's link turns the e-mails off without signing in.
func TestTaskNotificationsByEmail(t *testing.T) {
	for name, st := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := newOAuthSite(t, st)
			url := s.accountURL()
			_, p := apiCall(t, url, s.key, "action=post_project&title=Site")
			pid := p["data"].(map[string]any)["id"].(string)
			_, task := apiCall(t, url, s.key, "action=post_task&id_project="+pid+"&title=Logo&email_user_to="+userEmail)
			tid := task["data"].(map[string]any)["id"].(string)
			apiCall(t, url, s.key, "action=post_comment&id_task="+tid+"&text=Please+use+the+new+colours")
			apiCall(t, url, s.key, "action=complete_task&id_task="+tid)
			time.Sleep(100 * time.Millisecond)
			for _, m := range s.mail.Messages() {
				if m.To == userEmail {
					t.Fatal("a digest went out before the changes settled")
				}
			}
			s.clock.advance(2 * time.Hour)
			m := s.mailTo(t, userEmail)
			if m.Subject != "Acme: 3 changes to Logo" {
				t.Fatalf("digest subject %q\n%s", m.Subject, m.Text)
			}
			for _, want := range []string{"Olga Owner created the task, assigned to Uma User", "Olga Owner commented: Please use the new colours",
				"Olga Owner completed the task", s.base + "/a/" + s.slug + "/project/" + pid + "/" + tid + "/"} {
				if !strings.Contains(m.Text, want) {
					t.Fatalf("digest lacks %q:\n%s", want, m.Text)
				}
			}
			for _, r := range s.mail.Messages() {
				if r.To == ownerEmail {
					t.Fatal("the owner was told of their own changes")
				}
			}

			// The stop link.
			i := strings.Index(m.Text, s.base+"/notifications/off?")
			link := strings.Fields(m.Text[i:])[0]
			b := s.browser()
			page := b.get(link)
			if page.status != http.StatusOK {
				t.Fatalf("stop page: %d\n%s", page.status, page.body)
			}
			if p := b.get(strings.Replace(link, "&s=", "&s=00", 1)); p.status != http.StatusNotFound {
				t.Fatalf("a forged stop link: %d", p.status)
			}
			if p := b.submit(s.base, page, "/notifications/off", nil); p.status != http.StatusOK || !strings.Contains(p.body, "no more e-mail") {
				t.Fatalf("stopping: %d\n%s", p.status, p.body)
			}
			apiCall(t, url, s.key, "action=reopen_task&id_task="+tid)
			s.clock.advance(2 * time.Hour)
			time.Sleep(200 * time.Millisecond)
			n := 0
			for _, r := range s.mail.Messages() {
				if r.To == userEmail {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d digests to a person who stopped them, want the first only", n)
			}
		})
	}
}
