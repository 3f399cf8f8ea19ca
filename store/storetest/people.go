package storetest

import (
	"sync"
	"testing"

	"github.com/taskd/taskd"
)

// testPeople: teams and folders are made once per title, even by eight
// callers at once; contacts keep every field and refuse a second contact
// with one e-mail; project teams and task subscribers take members only,
// twice is no error, and another account's ids find nothing; an
// invitation's team and department become the member's; removing a member
// leaves their tasks assigned to nobody; readers change nothing.
func testPeople(t *testing.T, f *Fixture) {
	ctx, s, by := t.Context(), f.Store, f.Owner

	var wg sync.WaitGroup
	ids := make(chan int64, 8)
	for range 8 {
		wg.Go(func() {
			team, err := s.AddTeam(ctx, by, " Designers ", false)
			if err != nil {
				t.Error(err)
			}
			ids <- team.ID
		})
	}
	wg.Wait()
	close(ids)
	first := <-ids
	for id := range ids {
		if id != first {
			t.Fatalf("one title, two teams: %d and %d", first, id)
		}
	}
	client := must(s.AddTeam(ctx, by, "Clients Inc", true))(t)
	if again := must(s.AddTeam(ctx, by, "Clients Inc", false))(t); again.ID != client.ID || !again.Client {
		t.Fatalf("adding an existing team changed it: %+v", again)
	}
	teams := must(s.Teams(ctx, f.Account.ID))(t)
	if len(teams) != 2 || teams[0].Title != "Clients Inc" || teams[1].Title != "Designers" {
		t.Fatalf("teams: %+v", teams)
	}
	_, err := s.AddTeam(ctx, by, "  ", false)
	want(t, err, taskd.KindInvalid, "title")

	folder := must(s.AddProjectFolder(ctx, by, "Internal"))(t)
	if again := must(s.AddProjectFolder(ctx, by, "Internal"))(t); again.ID != folder.ID {
		t.Fatal("a project folder was made twice")
	}
	c := must(s.AddContact(ctx, by, taskd.Contact{Email: "ann@client.example", FirstName: "Ann", LastName: "Lee", Folder: "Suppliers",
		Profile: taskd.Profile{Title: "Buyer", Phone: "1", Phone2: "2", Phone3: "3", Phone4: "4", Address: "Main St", Address2: "Kyiv"}}))(t)
	if c.Folder != "Suppliers" || c.Phone4 != "4" || c.Address2 != "Kyiv" || c.Title != "Buyer" || c.DisplayName() != "Ann Lee" {
		t.Fatalf("contact: %+v", c)
	}
	_, err = s.AddContact(ctx, by, taskd.Contact{Email: "ann@client.example"})
	want(t, err, taskd.KindConflict, "email")
	if folders := must(s.ContactFolders(ctx, f.Account.ID))(t); len(folders) != 1 || folders[0].Title != "Suppliers" {
		t.Fatalf("contact folders: %+v", folders)
	}

	// Project teams and subscriptions.
	bob := must(s.AddMember(ctx, f.Account.ID, taskd.NewPerson{Email: "bob-" + f.Account.Slug + "@example.com", PasswordHash: "h", FirstName: "Bob"}, taskd.RoleUser))(t)
	p := must(s.CreateProject(ctx, by, taskd.ProjectInput{Name: new("Site")}))(t)
	noErr(t, second(s.SetProjectMembers(ctx, by, p.ID, []string{bob.Email, by.Person.Email}, true)))
	noErr(t, second(s.SetProjectMembers(ctx, by, p.ID, []string{bob.Email}, true)))
	if team := must(s.ProjectMembers(ctx, f.Account.ID, p.ID))(t); len(team) != 2 || team[0].Name != "Bob" {
		t.Fatalf("project team: %+v", team)
	}
	_, err = s.SetProjectMembers(ctx, by, p.ID, []string{"stranger@example.com"}, true)
	want(t, err, taskd.KindNotFound, "member")
	noErr(t, second(s.SetProjectMembers(ctx, by, p.ID, []string{by.Person.Email}, false)))
	if team := must(s.ProjectMembers(ctx, f.Account.ID, p.ID))(t); len(team) != 1 {
		t.Fatalf("after removing: %+v", team)
	}
	// The author and the assignee are subscribed when a task is made.
	task := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Logo"), AssigneeEmail: new(bob.Email)}))(t)
	if subs := must(s.Subscribers(ctx, f.Account.ID, task.ID))(t); len(subs) != 2 || subs[0].ID != bob.ID || subs[1].ID != by.Person.ID {
		t.Fatalf("subscribers of a new task: %+v", subs)
	}
	noErr(t, s.Subscribe(ctx, by, task.ID, by.Person.Email, false))
	noErr(t, s.Subscribe(ctx, by, task.ID, by.Person.Email, false))
	noErr(t, s.Subscribe(ctx, by, task.ID, bob.Email, true))
	if subs := must(s.Subscribers(ctx, f.Account.ID, task.ID))(t); len(subs) != 1 || subs[0].ID != bob.ID {
		t.Fatalf("subscribers: %+v", subs)
	}
	want(t, s.Subscribe(ctx, by, task.ID, "stranger@example.com", true), taskd.KindNotFound, "member")
	// The project's default assignee takes new tasks; email_user_to wins.
	must(s.UpdateProject(ctx, by, p.ID, taskd.ProjectInput{AssigneeEmail: new(bob.Email), Folder: new("Internal"), Members: &[]string{bob.Email}}))(t)
	if got := must(s.Project(ctx, taskd.AccountViewer(f.Account.ID), p.ID))(t); got.Assignee.ID != bob.ID || got.Folder != "Internal" {
		t.Fatalf("project: %+v", got)
	}
	if dt := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Default")}))(t); dt.Assignee.ID != bob.ID {
		t.Fatalf("default assignee: %+v", dt.Assignee)
	}
	if dt := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("Mine"), AssigneeEmail: new("NOONE")}))(t); dt.Assignee.ID != taskd.NobodyID {
		t.Fatalf("email_user_to over the default: %+v", dt.Assignee)
	}

	// Another account's ids find nothing.
	other, stranger := NewAccount(t, s, "people")
	want(t, second(s.SetProjectMembers(ctx, stranger, p.ID, []string{stranger.Person.Email}, true)), taskd.KindNotFound, "project")
	want(t, s.Subscribe(ctx, stranger, task.ID, stranger.Person.Email, true), taskd.KindNotFound, "task")
	if subs := must(s.Subscribers(ctx, other.ID, task.ID))(t); len(subs) != 0 {
		t.Fatal("another account reads the subscribers")
	}
	if team := must(s.ProjectMembers(ctx, other.ID, p.ID))(t); len(team) != 0 {
		t.Fatal("another account reads the project team")
	}

	// Readers change nothing; guests may work.
	noErr(t, second(s.SetRole(ctx, by, bob.ID, taskd.RoleReader)))
	reader := taskd.Actor{AccountID: f.Account.ID, Person: bob.Ref(), Role: taskd.RoleReader}
	_, err = s.CreateTask(ctx, reader, p.ID, 0, taskd.TaskInput{Name: new("No")})
	want(t, err, taskd.KindForbidden, "")
	want(t, s.Subscribe(ctx, reader, task.ID, bob.Email, false), taskd.KindForbidden, "")
	noErr(t, second(s.SetRole(ctx, by, bob.ID, taskd.RoleGuest)))
	if m := must(s.Member(ctx, f.Account.ID, bob.ID))(t); m.Role != taskd.RoleGuest {
		t.Fatalf("role: %s", m.Role)
	}

	// Removing a member.
	want(t, second(s.RemoveMember(ctx, by, by.Person.ID)), taskd.KindForbidden, "member")
	noErr(t, second(s.RemoveMember(ctx, by, bob.ID)))
	if got := must(s.Task(ctx, taskd.AccountViewer(f.Account.ID), task.ID))(t); got.Assignee.ID != taskd.NobodyID || got.Name != "Logo" {
		t.Fatalf("the removed member's task: %+v", got)
	}
	if subs := must(s.Subscribers(ctx, f.Account.ID, task.ID))(t); len(subs) != 0 {
		t.Fatal("a removed member stays subscribed")
	}
	want(t, second(s.RemoveMember(ctx, by, bob.ID)), taskd.KindNotFound, "member")
	// Bob was the project's default assignee: new tasks go to nobody now.
	if after := must(s.CreateTask(ctx, by, p.ID, 0, taskd.TaskInput{Name: new("After")}))(t); after.Assignee.ID != taskd.NobodyID {
		t.Fatalf("a removed default assignee: %+v", after.Assignee)
	}

	// An invitation's team and department.
	inv := must(s.Invite(ctx, taskd.InviteInput{AccountID: f.Account.ID, Person: taskd.NewPerson{Email: "cara-" + f.Account.Slug + "@example.com", Title: "Designer"},
		Role: taskd.RoleGuest, Team: "Designers", Department: "Brand", By: by.Person.ID}))(t)
	cara := must(s.PersonByEmail(ctx, inv.Person.Email))(t)
	must(s.AcceptInvitation(ctx, cara.ID, inv.ID))(t)
	m := must(s.Member(ctx, f.Account.ID, cara.ID))(t)
	if m.Role != taskd.RoleGuest || m.Team != "Designers" || m.Department != "Brand" || m.Title != "Designer" || !m.Notify {
		t.Fatalf("member from an invitation: %+v", m)
	}
	pr := must(s.SetProfile(ctx, m.ID, "Cara", "Cole", taskd.Profile{Title: "Lead", TimeZone: "Europe/Kyiv"}))(t)
	if pr.FirstName != "Cara" || pr.TimeZone != "Europe/Kyiv" || pr.Notify {
		t.Fatalf("profile: %+v", pr)
	}
}
