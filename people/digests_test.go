package people

import (
	"net/url"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testdb"
)

// TestUnsubscribeLinkFollowsTheAddress: a digest's stop link works for its
// person at the address it was mailed to; another person, or the same
// person once their address changed, cannot use it.
func TestUnsubscribeLinkFollowsTheAddress(t *testing.T) {
	s := testdb.Sealer(t)
	n := &Notifier{Sealer: s, PublicURL: "https://tasks.example/"}
	p := taskd.Person{ID: 101, Email: "uma@acme.example"}
	u, err := url.Parse(n.UnsubscribeLink(p))
	if err != nil || u.Host != "tasks.example" || u.Path != "/notifications/off" || u.Query().Get("p") != "101" {
		t.Fatalf("link: %v %v", u, err)
	}
	mac := u.Query().Get("s")
	if !CheckUnsubscribe(s, p, mac) {
		t.Fatal("the link does not work for its person")
	}
	other := p
	other.ID = 102
	if CheckUnsubscribe(s, other, mac) {
		t.Fatal("the link works for another person")
	}
	moved := p
	moved.Email = "uma@elsewhere.example"
	if CheckUnsubscribe(s, moved, mac) {
		t.Fatal("the link outlived its person's change of address")
	}
}
