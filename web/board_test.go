package web_test

import (
	"net/http"
	"testing"

	"github.com/taskd/taskd/internal/testsite"
)

// TestBoardCardReturnsToItsBoard: a card's complete control comes back to
// the board of the group it was shown in, without the card, when the
// browser follows the page's redirect (no script: with one, the browser
// test stays on the board whatever the redirect says).
func TestBoardCardReturnsToItsBoard(t *testing.T) {
	s := testsite.New(t)
	url0 := s.AccountURL()
	pid := s.APIID("action=post_project&title=Cards")
	tid := s.APIID("action=post_task&id_project=" + pid + "&title=Send+invoice")
	testsite.APICall(t, url0, s.Key, "action=add_task_tag_groups&type=status&access=public&title=Other")
	testsite.APICall(t, url0, s.Key, "action=add_task_tag_groups&type=status&access=public&title=Stage")
	_, groups := testsite.APICall(t, url0, s.Key, "action=get_task_tag_groups")
	stage := testsite.JSONNumber(groups["data"].([]any)[1].(map[string]any)["id"]) // not the first group: the board's default
	b := s.SignedIn(testsite.OwnerEmail)
	acct := "/a/" + s.Slug
	board := acct + "/project/" + pid + "/board?group=" + stage
	p := b.In(t).Get(s.Base + board)
	if p.Status != http.StatusOK {
		t.Fatalf("the board: HTTP %d\n%s", p.Status, p.Body)
	}
	to := b.Submit(s.Base, p, acct+"/tasks/"+tid+"/complete", nil).Location(t)
	if got := to.Path + "?" + to.RawQuery; got != board {
		t.Errorf("completing a card returns to %s, want its board %s", got, board)
	}
}
