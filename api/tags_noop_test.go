package api_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
)

// TestTagsWithNeitherList: update_task_tags and update_project_tags
// without plus or minus (the PHP SDK's call, C2) change nothing, but only
// for an object the caller sees: an unknown id, or one hidden from the
// caller, answers as it does with lists, and no event is written.
func TestTagsWithNeitherList(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		s := a.server
		acct := mustAccount(t, s, a)
		gus, err := s.DB.AddMember(context.Background(), acct.ID, taskd.NewPerson{Email: "gus-" + a.Slug + "@example.com", PasswordHash: "x"}, taskd.RoleGuest)
		if err != nil {
			t.Fatal(err)
		}
		token := tokenFor(t, s, a, gus, taskd.RoleGuest, "tags_write")
		mine := a.id("action", "post_project", "title", "Gus's", "members", gus.Email)
		theirs := a.id("action", "post_project", "title", "Not Gus's")
		visible := a.id("action", "post_task", "id_project", mine, "title", "Seen")
		hidden := a.id("action", "post_task", "id_project", mine, "title", "Unseen", "hidden", a.Owner.Email)
		unseen := a.id("action", "post_task", "id_project", theirs, "title", "Elsewhere")
		nothing := fmt.Sprint(1 << 40)
		events := len(a.ok("action", "get_events", "period", "1h").list())

		for _, tc := range []struct {
			action, param, id string
			want              api.Code // -1: ok
		}{
			{"update_task_tags", "id_task", visible, -1},
			{"update_task_tags", "id_task", hidden, api.CodeTaskInvalid},
			{"update_task_tags", "id_task", unseen, api.CodeTaskInvalid},
			{"update_task_tags", "id_task", nothing, api.CodeTaskInvalid},
			{"update_project_tags", "id_project", mine, -1},
			{"update_project_tags", "id_project", theirs, api.CodeProjectInvalid},
			{"update_project_tags", "id_project", nothing, api.CodeProjectInvalid},
		} {
			got := a.as(token, "action", tc.action, tc.param, tc.id)
			with := a.as(token, "action", tc.action, tc.param, tc.id, "plus", "Nothing such")
			if got.code() != int(tc.want) {
				t.Errorf("%s %s=%s without lists: %v, want code %d", tc.action, tc.param, tc.id, got, tc.want)
			}
			if tc.want != -1 && got.Raw != with.Raw {
				t.Errorf("%s %s=%s: without lists %v, with them %v", tc.action, tc.param, tc.id, got, with)
			}
		}
		if n := len(a.ok("action", "get_events", "period", "1h").list()); n != events {
			t.Fatalf("update_*_tags without lists wrote %d events", n-events)
		}
	})
}
