package importer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/store"
)

// q is a query string of pairs, in order.
func q(pairs ...string) string { return testsite.Query(pairs...) }

const nina = "nina@new.example"

// fill makes a source account through its API: three people, teams
// (two people on them), contacts in folders, project folders, tag groups
// and tags in a chosen order, two projects (one archived), tasks three
// deep with every field, a dependency of each type, comments and cost
// lines, and files: 3 MiB on a project, one on a task three deep and two
// on a comment. Uma (registered in the destination too) is on a team, assigned
// a task and writes a comment and a cost line: all of it waits for her
// there until she accepts. The owner writes a task (with a subtask) and a
// comment hidden for Nina: Uma never sees them, here or there.
func fill(t *testing.T, s *testsite.Site) (top, sub, planB string) {
	owner, uma := testsite.OwnerEmail, testsite.UserEmail
	s.AddMember(s.Slug, nina, "Nina", "New", taskd.RoleUser)
	s.APIOK(q("action", "add_user_group", "title", "Designers"))
	s.APIOK(q("action", "add_user_group", "title", "Clients team", "client", "1"))
	acct, by := s.Owner()
	for email, team := range map[string]string{nina: "Designers", owner: "Board"} {
		m, err := s.Store.MemberByEmail(context.Background(), acct.ID, email)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Store.SetMemberTeam(context.Background(), by, m.ID, team); err != nil {
			t.Fatal(err)
		}
	}
	s.APIOK(q("action", "add_contact_group", "title", "Partners"))
	s.APIOK(q("action", "add_contact", "email", "carl@vendor.example", "name", "Carl Contact", "group", "Vendors", "title", "Buyer",
		"phone", "555-0100", "phone3", "555-0199", "address", "1 Quay"))
	s.APIOK(q("action", "add_contact", "email", "dora@client.example", "name", "Dora"))
	s.APIOK(q("action", "add_project_group", "title", "Later"))
	s.APIOK(q("action", "add_task_tag_groups", "title", "Workflow", "type", "status"))
	s.APIOK(q("action", "add_task_tag_groups", "title", "Topics", "access", "private"))
	s.APIOK(q("action", "add_task_tags", "group", "Workflow", "title", "Doing,Review,Done"))
	s.APIOK(q("action", "add_task_tags", "group", "Topics", "title", "Legal"))
	s.APIOK(q("action", "sort_task_tags", "group", "Workflow", "order", "Review,Done,Doing"))
	s.APIOK(q("action", "sort_task_tag_groups", "order", "Topics,Workflow"))
	s.APIOK(q("action", "add_project_tag_groups", "title", "Kind"))
	s.APIOK(q("action", "add_project_tags", "group", "Kind", "title", "Fixed price"))

	pid := withFiles(t, s, q("action", "post_project", "title", "Launch", "text", "The launch\nof it", "company", "Internal",
		"members", uma+","+nina, "email_manager", nina, "datestart", "01.03.2026", "dateend", "30.06.2026", "max_time", "20",
		"max_money", "50.5", "tags", "Fixed price", "options.time_require", "1"), upload{"brief.bin", randomBytes(3 << 20)})
	old := s.APIID(q("action", "post_project", "title", "Old site", "email_user_from", nina))
	s.APIID(q("action", "post_task", "id_project", old, "title", "Archived work", "email_user_from", nina))

	top = s.APIID(q("action", "post_task", "id_project", pid, "title", "Write copy", "text", "Draft it", "priority", "5",
		"email_user_to", uma, "datestart", "02.03.2026", "dateend", "31.03.2026", "max_time", "1:30", "max_money", "25",
		"tags", "Review,Legal", "subscribe", nina))
	sub = s.APIID(q("action", "post_task", "id_project", pid, "id_parent", top, "title", "First draft", "email_user_from", nina,
		"email_user_to", nina, "priority", "9"))
	subsub := withFiles(t, s, q("action", "post_task", "id_project", pid, "id_parent", sub, "title", "Outline", "priority", "0",
		"email_user_from", nina, "tags", "Doing"), upload{"outline.txt", []byte("1. Why\n2. How\n")})
	s.APIOK(q("action", "add_costs", "id_task", subsub, "time", "1:30", "money", "25,5", "comment", "Copy", "date", "02.03.2026", "email_user_from", nina))
	s.APIOK(q("action", "add_costs", "id_task", top, "time", "0:45", "comment", "Review", "date", "03.03.2026", "email_user_from", owner))
	s.APIOK(q("action", "complete_task", "id_task", subsub))
	planB = s.APIID(q("action", "post_task", "id_project", pid, "title", "Plan B", "email_user_to", "ANY"))
	s.APIOK(q("action", "add_task_relation", "id_task_from", top, "id_task_to", planB))
	s.APIOK(q("action", "add_task_relation", "id_task_from", subsub, "id_task_to", planB, "type", "start-to-start"))
	withFiles(t, s, q("action", "post_comment", "id_task", top, "text", "Started", "email_user_from", nina),
		upload{"notes.md", []byte("# Notes\n")}, upload{"empty.txt", nil})
	s.APIOK(q("action", "post_comment", "id_task", subsub, "text", "Done, see the outline", "email_user_from", owner))
	withFiles(t, s, q("action", "post_comment", "id_task", top, "text", "On it", "email_user_from", uma), upload{"plan.txt", []byte("Uma's plan")})
	s.APIOK(q("action", "add_costs", "id_task", top, "time", "0:15", "comment", "Notes", "date", "04.03.2026", "email_user_from", uma))
	boardOnly := s.APIID(q("action", "post_task", "id_project", pid, "title", "Board only", "email_user_from", owner, "hidden", nina))
	s.APIID(q("action", "post_task", "id_project", pid, "id_parent", boardOnly, "title", "Board detail", "email_user_from", owner))
	s.APIOK(q("action", "post_comment", "id_task", top, "text", "Between Nina and me", "email_user_from", owner, "hidden", nina))
	s.APIOK(q("action", "close_project", "id_project", old))
	return top, sub, planB
}

// account is what the API shows of an account, ids aside.
type account struct {
	People         []string
	Teams          []string // title/client
	OnTeams        []string // e-mail: team
	Contacts       []string
	ContactFolders []string
	ProjectFolders []string
	TaskTags       []string
	ProjTags       []string
	TagGroups      []string
	Projects       []project
}

type project struct {
	Name, Text, Status, Author, Manager, Start, End, Folder, Added string
	MaxMinutes, MaxCents                                           int64
	Tags, Members                                                  []string
	Options                                                        map[string]bool
	Tasks                                                          []task
	Costs, Files                                                   []string
}

type task struct {
	Name, Text, Status, Author, Assignee, Start, End, Added string
	Priority, Level                                         int
	MaxMinutes, MaxCents                                    int64
	Tags, Subscribers, Comments, Files                      []string
	Hidden                                                  []string // who alone may see it (seenBy)
	DependsOn                                               []string // type: the other task's name
	Children                                                []task
}

func emails(ps []source.Person) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Email)
	}
	slices.Sort(out)
	return out
}

// seenBy is who alone may see an object with the hidden list, e-mails in
// order: the list and the author (the import writes the author on the
// list, the source need not), or none for an object that lists nobody.
func seenBy(author source.Person, list []source.Person) []string {
	if len(list) == 0 {
		return nil
	}
	out := emails(list)
	if !slices.Contains(out, author.Email) {
		out = append(out, author.Email)
		slices.Sort(out)
	}
	return out
}

func titles(ts []source.TagRef) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Title)
	}
	slices.Sort(out)
	return out
}

// read reads an account through its API with the import's own client.
func read(t *testing.T, accountURL, key string) account {
	t.Helper()
	ctx := context.Background()
	c, err := source.New(accountURL, key, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var a account
	users, err := c.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		a.People = append(a.People, u.Email)
		if u.Group != "" {
			a.OnTeams = append(a.OnTeams, u.Email+": "+u.Group)
		}
	}
	slices.Sort(a.People)
	slices.Sort(a.OnTeams)
	readDirectory(t, c, &a)
	for _, kind := range []source.TagKind{source.TaskTags, source.ProjectTags} {
		gs, err := c.TagGroups(ctx, kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			a.TagGroups = append(a.TagGroups, string(kind)+"/"+g.Title+"/"+g.Type+"/"+g.Access)
		}
		tags, err := c.Tags(ctx, kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range tags {
			if kind == source.TaskTags {
				a.TaskTags = append(a.TaskTags, tg.Group.Title+"/"+tg.Title)
			} else {
				a.ProjTags = append(a.ProjTags, tg.Group.Title+"/"+tg.Title)
			}
		}
	}
	projects, err := c.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		out := project{Name: p.Name, Text: p.Text, Status: p.Status, Author: p.Author.Email, Manager: p.Manager.Email, Start: p.Start, End: p.End,
			Folder: p.Folder, Added: p.Added.Format(time.RFC3339), MaxMinutes: p.MaxMinutes, MaxCents: p.MaxCents, Tags: titles(p.Tags),
			Members: emails(p.Members), Options: p.Options}
		tasks, err := c.Tasks(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]string{}
		source.Walk(tasks, func(x *source.Task) { names[x.ID] = x.Name })
		all, err := c.Files(ctx, p.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		fs := files{c: c, listed: map[string]source.File{}}
		for _, f := range all {
			fs.listed[f.ID] = f
		}
		out.Tasks = readTasks(t, &fs, names, tasks)
		out.Files = fs.read(t, source.OwnFiles(all, fs.attached...))
		costs, err := c.ProjectCosts(ctx, p.ID, tasks)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range costs {
			b, _ := json.Marshal([]any{names[l.TaskID], l.Minutes, l.Cents, l.Comment, l.Date, l.Author.Email})
			out.Costs = append(out.Costs, string(b))
		}
		slices.Sort(out.Costs)
		a.Projects = append(a.Projects, out)
	}
	slices.SortFunc(a.Projects, func(x, y project) int { return strings.Compare(x.Name, y.Name) })
	return a
}

// readDirectory reads the teams, contacts and folders of an account.
func readDirectory(t *testing.T, c *source.Client, a *account) {
	t.Helper()
	ctx := context.Background()
	teams, err := c.Teams(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range teams {
		a.Teams = append(a.Teams, fmt.Sprintf("%s/%v", tm.Title, tm.Client))
	}
	contacts, err := c.Contacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range contacts {
		ct.ID, ct.Notes = "", nil
		b, _ := json.Marshal(ct)
		a.Contacts = append(a.Contacts, string(b))
	}
	for _, f := range []struct {
		read func(context.Context) ([]source.Folder, error)
		into *[]string
	}{{c.ContactFolders, &a.ContactFolders}, {c.ProjectFolders, &a.ProjectFolders}} {
		list, err := f.read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			*f.into = append(*f.into, x.Title+"/"+x.Type)
		}
	}
}

// readTasks reads the tasks of list with their comments and files.
func readTasks(t *testing.T, fs *files, names map[string]string, list []source.Task) []task {
	var out []task
	for _, x := range list {
		comments, err := fs.c.Comments(context.Background(), x.ID)
		if err != nil {
			t.Fatal(err)
		}
		var cs []string
		for _, cm := range comments {
			cs = append(cs, cm.Author.Email+": "+cm.Text+" @"+cm.Added.Format(time.RFC3339)+" with "+strings.Join(fs.read(t, cm.Files), ", ")+
				" hidden for "+strings.Join(seenBy(cm.Author, cm.Hidden), ", "))
		}
		out = append(out, task{Name: x.Name, Text: x.Text, Status: x.Status, Author: x.Author.Email, Assignee: x.Assignee.Email,
			Start: x.Start, End: x.End, Added: x.Added.Format(time.RFC3339), Priority: x.Priority, Level: x.Level,
			MaxMinutes: x.MaxMinutes, MaxCents: x.MaxCents, Tags: titles(x.Tags), Subscribers: emails(x.Subscribers), Comments: cs, Hidden: seenBy(x.Author, x.Hidden),
			DependsOn: dependsOn(names, x.From), Files: fs.read(t, x.Files), Children: readTasks(t, fs, names, x.Children)})
	}
	slices.SortFunc(out, func(a, b task) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// dependsOn names the tasks a task depends on, with the types.
func dependsOn(names map[string]string, from []source.Relation) []string {
	var out []string
	for _, r := range from {
		out = append(out, r.Type+": "+names[r.Task])
	}
	slices.Sort(out)
	return out
}

// same fails the test where the two accounts differ.
func same(t *testing.T, step string, got, want account) {
	t.Helper()
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	if string(g) != string(w) {
		gl, wl := strings.Split(string(g), "\n"), strings.Split(string(w), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var a, b string
			if i < len(gl) {
				a = gl[i]
			}
			if i < len(wl) {
				b = wl[i]
			}
			if a != b {
				t.Fatalf("%s: the accounts differ at line %d:\n imported %s\n source   %s\nimported:\n%s", step, i+1, a, b, g)
			}
		}
	}
}

// receiver records the events delivered to it.
type receiver struct {
	mu     sync.Mutex
	events []string
}

func (rc *receiver) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []map[string]any
		var one map[string]any
		var raw json.RawMessage
		json.NewDecoder(r.Body).Decode(&raw)
		if json.Unmarshal(raw, &body) != nil && json.Unmarshal(raw, &one) == nil {
			body = []map[string]any{one}
		}
		rc.mu.Lock()
		for _, e := range body {
			name, _ := e["event"].(string)
			rc.events = append(rc.events, name)
		}
		rc.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (rc *receiver) seen() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.events)
}

// TestImportTaskd fills a taskd account through its API, imports it into
// a new account of a second taskd (on each database), and compares the
// two through the API once the person invited accepts, with no run;
// imports again (nothing new), changes the source and imports again (the
// destination follows). The destination's owner, on the source's team
// "Board" there, stays on no team here (asImported). No webhook of the
// destination fires for imported history.
func TestImportTaskd(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, d *testsite.Site) {
		p := newPair(t, d)
		src, top, sub, key, movedURL, acct, client := p.src, p.top, p.sub, p.key, p.movedURL, p.acct, p.client
		ctx := context.Background()
		var rc receiver
		recv := rc.serve(t)
		_, res := testsite.APICall(t, movedURL, key, q("action", "add_webhook", "url", recv.URL, "events", strings.Join(taskd.WebhookEvents, ",")))
		if res["status"] != "ok" {
			t.Fatalf("add_webhook: %v", res)
		}
		// A webhook starts paused; enabled now, it hears of every change
		// as it happens.
		if _, res := testsite.APICall(t, movedURL, key, q("action", "enable_webhook", "id", testsite.JSONNumber(res["id"]))); res["status"] != "ok" {
			t.Fatalf("enable_webhook: %v", res)
		}
		dst := p.dest(d.Store)
		run := func(step string) importer.Summary {
			t.Helper()
			var progress strings.Builder
			sum, err := importer.Run(ctx, client, dst, importer.Options{Progress: &progress})
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if strings.Count(progress.String(), "\n") != len(importer.Families) || strings.Contains(progress.String(), src.Key) {
				t.Errorf("%s: progress %q", step, progress.String())
			}
			return sum
		}
		count := func(sum importer.Summary, what string) int {
			n := 0
			for _, c := range sum.Families {
				switch what {
				case "created":
					n += c.Created
				case "updated":
					n += c.Updated
				}
			}
			return n
		}

		// A dry run writes nothing.
		// Its progress, on a clock a second ahead at each look, has lines
		// while a family runs as well as one when it is done.
		var progress strings.Builder
		clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		tick := func() time.Time { clock = clock.Add(time.Second); return clock }
		dry, err := importer.Run(ctx, client, dst, importer.Options{DryRun: true, Progress: &progress, ProgressEvery: 3 * time.Second, Now: tick})
		if err != nil || count(dry, "created") == 0 {
			t.Fatalf("dry run %+v %v", dry, err)
		}
		lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
		during := 0
		for _, l := range lines {
			if strings.HasSuffix(l, " …") {
				during++
			}
		}
		if during == 0 || len(lines) != len(importer.Families)+during || !strings.Contains(progress.String(), "import: tasks    ") {
			t.Errorf("dry run's progress:\n%s", progress.String())
		}
		if n := len(read(t, movedURL, key).Projects); n != 0 {
			t.Fatalf("a dry run made %d projects", n)
		}
		if n := p.downloads.count(); n != 0 {
			t.Fatalf("a dry run downloaded %d files", n)
		}
		if c := family(dry, importer.FamilyFiles); c.Read != 5 || c.Created != 5 {
			t.Fatalf("a dry run's files: %+v", c)
		}

		first := run("first import")
		if count(first, "created") == 0 {
			t.Fatalf("first %+v", first)
		}
		if c, n := family(first, importer.FamilyFiles), p.downloads.count(); c.Created != 5 || n != 5 {
			t.Fatalf("the first run's files: %+v, %d downloads", c, n)
		}
		// taskd's API shows hidden lists (extra=hidden): nothing is said of
		// them.
		for _, sk := range first.Skipped {
			if sk.Family == "hidden" {
				t.Errorf("the report of hidden lists: %+v", sk)
			}
		}
		// Uma is registered in this taskd: invited, not a member; Nina is
		// new: a member at once.
		got := read(t, movedURL, key)
		eq(t, "people before Uma accepts", got.People, []string{nina, testsite.OwnerEmail})
		invs, err := d.Store.AccountInvitations(ctx, acct.ID)
		if err != nil || len(invs) != 1 || invs[0].Person.Email != testsite.UserEmail {
			t.Fatalf("invitations %+v %v", invs, err)
		}
		if p, err := d.Store.PersonByEmail(ctx, nina); err != nil || p.PasswordHash != "" {
			t.Fatalf("nina %+v %v", p, err)
		}
		// Uma accepts: what waited for her is hers at once (the task
		// assigned to her, her subscription, her place on the team), with
		// no run.
		accept(t, d, testsite.UserEmail)
		same(t, "after Uma accepted", read(t, movedURL, key), asImported(read(t, src.AccountURL(), src.Key), testsite.OwnerEmail))
		// What the owner hid for Nina, Nina sees there and Uma does not:
		// the task, its subtask and the comment.
		seesHidden(t, d.Store, acct.ID, map[string]bool{nina: true, testsite.UserEmail: false})

		// A run now has nothing to do: accepting changed no fingerprint.
		p.downloads.count()
		again := run("again")
		if c, u := count(again, "created"), count(again, "updated"); c != 0 || u != 0 {
			t.Fatalf("a second run created %d and updated %d: %+v", c, u, again.Families)
		}
		if c, n := family(again, importer.FamilyFiles), p.downloads.count(); c.Unchanged != 5 || n != 0 {
			t.Fatalf("a second run's files: %+v, %d downloads", c, n)
		}

		// The source changes; the destination follows.
		src.APIOK(q("action", "update_task", "id_task", top, "title", "Write the copy"))
		src.APIOK(q("action", "add_costs", "id_task", sub, "time", "0:30", "date", "04.03.2026", "email_user_from", nina))
		src.APIOK(q("action", "complete_task", "id_task", sub))
		withFiles(t, src, q("action", "post_comment", "id_task", sub, "text", "Draft is in", "email_user_from", nina),
			upload{"draft.txt", []byte("The draft")})
		src.APIOK(q("action", "delete_task_relation", "id_task_from", top, "id_task_to", p.planB))
		changed := run("after the source changed")
		if c, u := count(changed, "created"), count(changed, "updated"); c != 3 || u != 3 {
			t.Errorf("after the change: %d created, %d updated: %+v", c, u, changed.Families)
		}
		if n := p.downloads.count(); n != 1 {
			t.Errorf("after the change: %d downloads, want the new file's", n)
		}
		same(t, "after the source changed", read(t, movedURL, key), asImported(read(t, src.AccountURL(), src.Key), testsite.OwnerEmail))

		// No webhook fired for the history: a change made now through the
		// API is the first and only delivery.
		pid := ""
		for _, p := range read(t, movedURL, key).Projects {
			_ = p
		}
		_, res = testsite.APICall(t, movedURL, key, q("action", "get_projects"))
		for _, p := range res["data"].([]any) {
			if p.(map[string]any)["name"] == "Launch" {
				pid = p.(map[string]any)["id"].(string)
			}
		}
		_, res = testsite.APICall(t, movedURL, key, q("action", "post_task", "id_project", pid, "title", "After the move"))
		if res["status"] != "ok" {
			t.Fatalf("post_task: %v", res)
		}
		deadline := time.Now().Add(15 * time.Second)
		for len(rc.seen()) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		if !slices.Equal(rc.seen(), []string{"post_task"}) {
			_, hooks := testsite.APICall(t, movedURL, key, q("action", "get_webhooks"))
			t.Errorf("webhook deliveries %v; webhooks %v", rc.seen(), hooks)
		}
	})
}

// family is a summary's count of one family.
func family(sum importer.Summary, name string) importer.Count {
	for _, c := range sum.Families {
		if c.Family == name {
			return c
		}
	}
	return importer.Count{}
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// seesHidden checks who of the destination's members sees the task "Board
// only", its subtask "Board detail" and the comment "Between Nina and me",
// through the store as each of them (fill hides them for Nina).
func seesHidden(t *testing.T, db *store.DB, accountID int64, want map[string]bool) {
	t.Helper()
	ctx := context.Background()
	for email, sees := range want {
		m, err := db.MemberByEmail(ctx, accountID, email)
		if err != nil {
			t.Fatal(err)
		}
		v := taskd.Actor{AccountID: accountID, Person: m.Ref(), Role: m.Role}.Viewer()
		tasks, err := db.Tasks(ctx, taskd.TaskQuery{Viewer: v})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		var writeCopy int64
		for _, x := range tasks {
			got[x.Name] = true
			if x.Name == "Write copy" {
				writeCopy = x.ID
			}
		}
		if writeCopy == 0 {
			t.Fatalf("%s sees no task Write copy", email)
		}
		cs, err := db.Comments(ctx, v, writeCopy)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			got[c.Text] = true
		}
		for _, what := range []string{"Board only", "Board detail", "Between Nina and me"} {
			if got[what] != sees {
				t.Errorf("%s sees %q: %v, want %v", email, what, got[what], sees)
			}
		}
	}
}
