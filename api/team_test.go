package api_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd"
)

// TestOffTheTeam: a guest or reader taken off a project's team, by
// delete_project_members or by update_project's members alike, loses what
// they kept running there: the guest's timer on its task is stopped and
// its time recorded, and both lose their notices of it waiting to be
// mailed. Who stays on the team keeps theirs.
func TestOffTheTeam(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		s := a.server
		ctx := context.Background()
		acct := mustAccount(t, s, a)
		person := func(name string, role taskd.Role) taskd.Person {
			p, err := s.DB.AddMember(ctx, acct.ID, taskd.NewPerson{Email: name + "-" + a.Slug + "@example.com", PasswordHash: "x", FirstName: name}, role)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		waiting := func(t *testing.T, p taskd.Person) bool {
			t.Helper()
			due, err := s.DB.DigestsDue(ctx, time.Now().Add(24*time.Hour), 1000)
			if err != nil {
				t.Fatal(err)
			}
			return slices.Contains(due, p.ID)
		}
		for _, how := range []struct {
			name string
			drop func(a *account, pid string, gone []taskd.Person, stays taskd.Person)
		}{
			{"delete_project_members", func(a *account, pid string, gone []taskd.Person, _ taskd.Person) {
				a.ok("action", "delete_project_members", "id_project", pid, "members", gone[0].Email+","+gone[1].Email)
			}},
			{"update_project members", func(a *account, pid string, _ []taskd.Person, stays taskd.Person) {
				a.ok("action", "update_project", "id_project", pid, "members", stays.Email)
			}},
		} {
			t.Run(how.name, func(t *testing.T) {
				a := a.in(t)
				tag := strings.Fields(how.name)[0][:6]
				gus, rae, gil := person("gus-"+tag, taskd.RoleGuest), person("rae-"+tag, taskd.RoleReader), person("gil-"+tag, taskd.RoleGuest)
				pid := a.id("action", "post_project", "title", how.name, "members", gus.Email+","+rae.Email+","+gil.Email)
				tid := a.id("action", "post_task", "id_project", pid, "title", "T", "email_user_to", gus.Email, "subscribe", rae.Email+","+gil.Email)
				gusToken := tokenFor(t, s, a, gus, taskd.RoleGuest, "costs_read", "costs_write")
				gilToken := tokenFor(t, s, a, gil, taskd.RoleGuest, "costs_read", "costs_write")
				for _, token := range []string{gusToken, gilToken} {
					if r := a.as(token, "action", "start_my_timer", "id_task", tid); r.code() != -1 {
						t.Fatalf("a guest on the team starts a timer: %v", r)
					}
				}
				a.ok("action", "update_task", "id_task", tid, "priority", "7")
				for _, p := range []taskd.Person{gus, rae, gil} {
					if !waiting(t, p) {
						t.Fatalf("%s has no notice waiting before", p.Email)
					}
				}

				how.drop(a, pid, []taskd.Person{gus, rae}, gil)

				if r := a.as(gusToken, "action", "get_my_timer"); r.code() != -1 || len(r.list()) != 0 {
					t.Errorf("a guest off the team keeps a timer on its task: %v", r)
				}
				lines := a.ok("action", "get_costs", "id_task", tid).list()
				if len(lines) != 1 || lines[0].(map[string]any)["is_timer"] != true ||
					lines[0].(map[string]any)["user_from"].(map[string]any)["email"] != gus.Email {
					t.Errorf("the stopped timer's line: %v", lines)
				}
				if waiting(t, gus) || waiting(t, rae) {
					t.Errorf("notices of the project still wait for who is off its team (guest %v, reader %v)", waiting(t, gus), waiting(t, rae))
				}
				if r := a.as(gilToken, "action", "get_my_timer"); len(r.list()) != 1 || !waiting(t, gil) {
					t.Errorf("the guest who stays on the team lost their timer or notice: %v", r)
				}
			})
		}
	})
}
