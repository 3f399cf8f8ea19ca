package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/oauth"
	"github.com/taskd/taskd/people"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/server"
	"github.com/taskd/taskd/store"
	"github.com/taskd/taskd/webhook"
	"github.com/taskd/taskd/wire"
)

// The demo account, made by serve --dev --demo.
const (
	demoSlug     = "demo"
	demoEmail    = "owner@demo.example"
	demoPassword = "taskd-demo-password"
)

// demo is what the demo account offers a newcomer.
type demo struct {
	key, clientID, clientSecret string
	hookID                      int64
	hookURL, hookSecret         string
	hookEnabled                 bool
}

// seedDemo creates the demo account with some work in it, or reuses it, and
// prints how to reach it. It runs only with --dev, on loopback. A new
// demo's webhook points at hookURL (--demo-webhook-url).
func seedDemo(ctx context.Context, out io.Writer, db *store.DB, sealer *secret.Sealer, hooks *webhook.Service, folks *people.Service, base, hookURL string) error {
	a, err := db.AccountBySlug(ctx, demoSlug)
	var d demo
	switch {
	case err == nil:
		if d, err = existingDemo(ctx, db, sealer, a); err != nil {
			return err
		}
	case taskd.IsNotFound(err):
		if d, err = createDemo(ctx, db, sealer, hooks, hookURL); err != nil {
			return err
		}
		if err := inviteDemo(ctx, db, folks); err != nil {
			return err
		}
	default:
		return err
	}
	url := server.AccountURL(base, demoSlug)
	fmt.Fprintf(out, `
Demo account ready: sign in at %[6]s/login as %[2]s / %[3]s
  account URL:   %[1]s   (also sam@demo.example, a plain user, same password)
  API key:       %[4]s
  for the README's shell lines, paste:  KEY=%[4]s
  try:           curl '%[1]s/api/admin/v2/?action=get_projects&hash=%[5]s'
`, url, demoEmail, demoPassword, d.key, wire.Hash("action=get_projects", d.key), base)
	if d.clientID != "" {
		fmt.Fprintf(out, "  OAuth app:     client_id %s", d.clientID)
		if d.clientSecret != "" {
			fmt.Fprintf(out, ", client_secret %s", d.clientSecret)
		} else {
			fmt.Fprintf(out, "\n                 client_secret: shown only when the demo was made; for a new one, rotate it at %s/settings/api", url)
		}
		fmt.Fprintf(out, "\n                 authorize: %s/oauth2/authorize?client_id=%s&response_type=code&redirect_uri=%s&state=demo&scope=tasks_read\n",
			base, d.clientID, demoRedirect)
	}
	if d.hookID != 0 {
		listen := "go run ./cmd/taskd listen --addr " + listenAddr(d.hookURL) + " --secret "
		if d.hookSecret != "" {
			listen += d.hookSecret
		} else {
			listen += "whsec_…"
		}
		state := "disabled"
		if d.hookEnabled {
			state = "enabled"
		}
		fmt.Fprintf(out, "  webhook:       %s (%s). Start a receiver:\n                   %s\n", d.hookURL, state, listen)
		if d.hookSecret == "" {
			fmt.Fprintf(out, "                 the secret was shown only when the demo was made; for a new one, rotate it at %s/settings/webhooks/%d\n", url, d.hookID)
		}
		if !d.hookEnabled {
			fmt.Fprintf(out, "                 then enable it at %s/settings/webhooks/%d\n", url, d.hookID)
		}
	}
	fmt.Fprintf(out, "  mail:          %s/dev/mail (kept on this page without --smtp-url: open the invitation to new@demo.example)\n", base)
	fmt.Fprintln(out)
	return nil
}

// The demo's status group: its tags, in order, are the columns of the
// board of "Website launch".
const demoStage = "Stage"

var demoStatuses = []string{"To do", "Doing", "Review", "Done"}

// The demo's OAuth application, and where its webhook points unless
// --demo-webhook-url says otherwise.
const (
	demoRedirect = "https://app.example/callback"
	demoHookURL  = "http://127.0.0.1:9000/"
)

// listenAddr is the --addr of a taskd listen that receives at the URL.
func listenAddr(hookURL string) string {
	u, err := url.Parse(hookURL)
	switch {
	case err != nil:
		return hookURL
	case u.Port() != "":
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

func existingDemo(ctx context.Context, db *store.DB, sealer *secret.Sealer, a taskd.Account) (demo, error) {
	if len(a.APIKey) == 0 { // revoked in the pages (taskd.TrustEnded): the demo makes a new one
		a.APIKey = sealer.SealAPIKey(a.Slug, secret.APIKey())
		if err := db.SetAPIKey(ctx, a.ID, a.APIKey, 0); err != nil {
			return demo{}, err
		}
	}
	plain, err := sealer.OpenAPIKey(a.Slug, a.APIKey)
	if err != nil {
		return demo{}, err
	}
	d := demo{key: string(plain)}
	if clients, err := db.Clients(ctx, a.ID); err == nil && len(clients) > 0 {
		d.clientID = clients[0].ClientID
	}
	if hooks, err := db.Webhooks(ctx, a.ID); err == nil && len(hooks) > 0 {
		d.hookID, d.hookURL, d.hookEnabled = hooks[0].ID, hooks[0].URL, hooks[0].Enabled
	}
	return d, nil
}

func createDemo(ctx context.Context, db *store.DB, sealer *secret.Sealer, hooks *webhook.Service, hookURL string) (demo, error) {
	key, err := createDemoWork(ctx, db, sealer)
	if err != nil {
		return demo{}, err
	}
	d := demo{key: key}
	a, err := db.AccountBySlug(ctx, demoSlug)
	if err != nil {
		return d, err
	}
	c, sec, err := oauth.NewClient(a.ID, "Demo app", []string{demoRedirect})
	if err != nil {
		return d, err
	}
	if c, err = db.CreateClient(ctx, c); err != nil {
		return d, err
	}
	d.clientID, d.clientSecret = c.ClientID, sec
	w, hsec, err := hooks.AddUnchecked(ctx, a.ID, taskd.WebhookInput{URL: hookURL, Events: strings.Join(taskd.SubscribableEvents, ",")})
	if err != nil {
		return d, err
	}
	d.hookID, d.hookURL, d.hookSecret, d.hookEnabled = w.ID, w.URL, hsec, w.Enabled
	return d, nil
}

// createDemoWork makes the demo account, its people and some work.
func createDemoWork(ctx context.Context, db *store.DB, sealer *secret.Sealer) (string, error) {
	owner, err := newPerson(demoEmail, demoPassword, "Dana", "Demo")
	if err != nil {
		return "", err
	}
	key := secret.APIKey()
	a, o, err := db.CreateAccount(ctx, taskd.NewAccount{Slug: demoSlug, Name: "Demo Company",
		APIKey: sealer.SealAPIKey(demoSlug, key), Owner: owner})
	if err != nil {
		return "", err
	}
	mate, err := newPerson("sam@demo.example", demoPassword, "Sam", "Builder")
	if err != nil {
		return "", err
	}
	sam, err := db.AddMember(ctx, a.ID, mate, taskd.RoleUser)
	if err != nil {
		return "", err
	}
	by := taskd.Actor{AccountID: a.ID, Person: o.Ref(), Role: taskd.RoleOwner}
	s := func(v string) *string { return &v }
	n := func(v int) *int { return &v }
	hours, money := int64(40*60), int64(2000_00)
	launch, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: s("Website launch"), Text: s("Ship the new site"), ManagerEmail: s(demoEmail),
		MaxMinutes: &hours, MaxCents: &money})
	if err != nil {
		return "", err
	}
	// A status group, so that the project's board is there on first run:
	// each task below sits in one of its columns.
	if _, err := db.AddTagGroups(ctx, by, taskd.TagsOfTasks, "status", "public", []string{demoStage}); err != nil {
		return "", err
	}
	if _, err := db.AddTags(ctx, by, taskd.TagsOfTasks, demoStage, demoStatuses); err != nil {
		return "", err
	}
	stage := func(status string) *[]string { return &[]string{status} }
	design, err := db.CreateTask(ctx, by, launch.ID, 0, taskd.TaskInput{Name: s("Design the landing page"), Priority: n(7), AssigneeEmail: s("sam@demo.example"),
		Tags: stage("Doing")})
	if err != nil {
		return "", err
	}
	for _, sub := range [][2]string{{"Wireframes", "Review"}, {"Colour palette", "To do"}} {
		if _, err := db.CreateTask(ctx, by, launch.ID, design.ID, taskd.TaskInput{Name: s(sub[0]), Tags: stage(sub[1])}); err != nil {
			return "", err
		}
	}
	copyTask, err := db.CreateTask(ctx, by, launch.ID, 0, taskd.TaskInput{Name: s("Write the copy"), AssigneeEmail: s(demoEmail), DateEnd: s("2030-01-31"),
		Tags: stage("To do")})
	if err != nil {
		return "", err
	}
	if _, err := db.CreateTask(ctx, by, launch.ID, 0, taskd.TaskInput{Name: s("Choose the hosting"), Priority: n(5), Tags: stage("Done")}); err != nil {
		return "", err
	}
	if _, err := db.CreateComment(ctx, by, copyTask.ID, "First draft is in the shared folder."); err != nil {
		return "", err
	}
	if err := demoCosts(ctx, db, by, taskd.Actor{AccountID: a.ID, Person: sam.Ref(), Role: taskd.RoleUser}, design.ID, copyTask.ID); err != nil {
		return "", err
	}
	ops, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: s("Operations")})
	if err != nil {
		return "", err
	}
	done, err := db.CreateTask(ctx, by, ops.ID, 0, taskd.TaskInput{Name: s("Renew the domain"), Priority: n(9)})
	if err != nil {
		return "", err
	}
	_, err = db.CompleteTask(ctx, by, done.ID)
	return key, err
}

// inviteDemo invites a newcomer to the demo account, so that the mail page
// shows an invitation whose link works.
func inviteDemo(ctx context.Context, db *store.DB, folks *people.Service) error {
	a, err := db.AccountBySlug(ctx, demoSlug)
	if err != nil {
		return err
	}
	owner, err := db.Owner(ctx, a.ID)
	if err != nil {
		return err
	}
	by := taskd.Actor{AccountID: a.ID, Person: owner.Ref(), Role: owner.Role}
	_, err = folks.Invite(ctx, by, a, people.Invitation{Email: "new@demo.example", FirstName: "Nell", LastName: "Newcomer", Role: taskd.RoleUser})
	return err
}

// demoCosts logs some time and money on the demo's tasks, so that the
// task pages, the budget and the timesheet have something to show.
func demoCosts(ctx context.Context, db *store.DB, owner, mate taskd.Actor, design, copyTask int64) error {
	m := func(v int64) *int64 { return &v }
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		by   taskd.Actor
		task int64
		in   taskd.CostInput
	}{
		{mate, design, taskd.CostInput{Minutes: m(150), Comment: s("Wireframes, first round")}},
		{mate, design, taskd.CostInput{Minutes: m(45), Cents: m(29_00), Comment: s("Stock photos")}},
		{owner, copyTask, taskd.CostInput{Minutes: m(75), Comment: s("Outline and first draft")}},
	} {
		if _, err := db.AddCost(ctx, c.by, c.task, c.in); err != nil {
			return err
		}
	}
	return nil
}
