package main

import (
	"context"
	"fmt"
	"io"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
)

// The demo account, made by serve --dev --demo.
const (
	demoSlug     = "demo"
	demoEmail    = "owner@demo.example"
	demoPassword = "taskd-demo-password"
)

// seedDemo creates the demo account with some work in it, or reuses it, and
// prints how to reach it. It runs only with --dev, on loopback.
func seedDemo(ctx context.Context, out io.Writer, db *store.DB, sealer *secret.Sealer, base string) error {
	a, err := db.AccountBySlug(ctx, demoSlug)
	var key string
	switch {
	case err == nil:
		plain, err := sealer.OpenAPIKey(a.Slug, a.APIKey)
		if err != nil {
			return err
		}
		key = string(plain)
	case taskd.ErrorCode(err) == taskd.CodeAuth:
		if key, err = createDemo(ctx, db, sealer); err != nil {
			return err
		}
	default:
		return err
	}
	url := accountURL(base, demoSlug)
	fmt.Fprintf(out, `
Demo account ready
  account URL:  %[1]s
  owner login:  %[2]s / %[3]s
  API key:      %[4]s
  try:          curl '%[1]s/api/admin/v2/?action=get_projects&hash=%[5]s'
  sign in:      %[6]s/login  (API applications: %[1]s/settings/api)

`, url, demoEmail, demoPassword, key, api.Hash("action=get_projects", key), base)
	return nil
}

func createDemo(ctx context.Context, db *store.DB, sealer *secret.Sealer) (string, error) {
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
	if _, err := db.AddMember(ctx, a.ID, mate, taskd.RoleUser); err != nil {
		return "", err
	}
	by := taskd.Actor{AccountID: a.ID, Person: o.Ref(), Role: taskd.RoleOwner}
	s := func(v string) *string { return &v }
	n := func(v int) *int { return &v }
	launch, err := db.CreateProject(ctx, by, taskd.ProjectInput{Name: s("Website launch"), Text: s("Ship the new site"), ManagerEmail: s(demoEmail)})
	if err != nil {
		return "", err
	}
	design, err := db.CreateTask(ctx, by, launch.ID, 0, taskd.TaskInput{Name: s("Design the landing page"), Priority: n(7), AssigneeEmail: s("sam@demo.example")})
	if err != nil {
		return "", err
	}
	for _, name := range []string{"Wireframes", "Colour palette"} {
		if _, err := db.CreateTask(ctx, by, launch.ID, design.ID, taskd.TaskInput{Name: s(name)}); err != nil {
			return "", err
		}
	}
	copyTask, err := db.CreateTask(ctx, by, launch.ID, 0, taskd.TaskInput{Name: s("Write the copy"), AssigneeEmail: s(demoEmail), DateEnd: s("2030-01-31")})
	if err != nil {
		return "", err
	}
	if _, err := db.CreateComment(ctx, by, copyTask.ID, "First draft is in the shared folder."); err != nil {
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
