package importer_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer"
	"github.com/taskd/taskd/internal/testsite"
	"github.com/taskd/taskd/store"
)

// killer is the destination's store, stopping the run (its context
// cancelled) at its at-th write: a run killed between any two writes.
type killer struct {
	*store.DB
	n, at  int
	cancel context.CancelFunc
	// stopped is the write the run was stopped at.
	stopped string
}

func (k *killer) tick(what string) {
	if k.n++; k.n == k.at {
		k.stopped = what
		k.cancel()
	}
}

func (k *killer) CreateProject(ctx context.Context, by taskd.Actor, in taskd.ProjectInput) (taskd.Project, error) {
	k.tick("CreateProject")
	return k.DB.CreateProject(ctx, by, in)
}

func (k *killer) UpdateProject(ctx context.Context, by taskd.Actor, id int64, in taskd.ProjectInput) (taskd.Project, error) {
	k.tick("UpdateProject")
	return k.DB.UpdateProject(ctx, by, id, in)
}

func (k *killer) SetProjectStatus(ctx context.Context, by taskd.Actor, id int64, status string) (taskd.Project, error) {
	k.tick("SetProjectStatus")
	return k.DB.SetProjectStatus(ctx, by, id, status)
}

func (k *killer) CreateTask(ctx context.Context, by taskd.Actor, projectID, parentID int64, in taskd.TaskInput) (taskd.Task, error) {
	k.tick("CreateTask")
	return k.DB.CreateTask(ctx, by, projectID, parentID, in)
}

func (k *killer) CompleteTask(ctx context.Context, by taskd.Actor, id int64) (taskd.Task, error) {
	k.tick("CompleteTask")
	return k.DB.CompleteTask(ctx, by, id)
}

func (k *killer) PostComment(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CommentInput) (taskd.Comment, error) {
	k.tick("PostComment")
	return k.DB.PostComment(ctx, by, taskID, in)
}

func (k *killer) CreateFile(ctx context.Context, by taskd.Actor, name, contentType string, r io.Reader, limits taskd.FileLimits) (taskd.File, error) {
	k.tick("CreateFile")
	return k.DB.CreateFile(ctx, by, name, contentType, r, limits)
}

func (k *killer) AttachImportedFile(ctx context.Context, by taskd.Actor, id int64, owner string, ownerID int64, rec taskd.ImportRecord) error {
	k.tick("AttachImportedFile")
	return k.DB.AttachImportedFile(ctx, by, id, owner, ownerID, rec)
}

// DeleteFile is refused once the run is stopped: a killed process cleans
// nothing up, so a stopped run's uploads stay for the sweep.
func (k *killer) DeleteFile(ctx context.Context, by taskd.Actor, id int64) error {
	if k.stopped != "" {
		return context.Canceled
	}
	k.tick("DeleteFile")
	return k.DB.DeleteFile(ctx, by, id)
}

func (k *killer) AddCost(ctx context.Context, by taskd.Actor, taskID int64, in taskd.CostInput) (taskd.Cost, error) {
	k.tick("AddCost")
	return k.DB.AddCost(ctx, by, taskID, in)
}

func (k *killer) AddTeam(ctx context.Context, by taskd.Actor, title string, client bool) (taskd.Team, error) {
	k.tick("AddTeam")
	return k.DB.AddTeam(ctx, by, title, client)
}

func (k *killer) SetMemberTeam(ctx context.Context, by taskd.Actor, personID int64, team string) error {
	k.tick("SetMemberTeam")
	return k.DB.SetMemberTeam(ctx, by, personID, team)
}

func (k *killer) AddContactFolder(ctx context.Context, by taskd.Actor, title string) (taskd.Folder, error) {
	k.tick("AddContactFolder")
	return k.DB.AddContactFolder(ctx, by, title)
}

func (k *killer) AddImportedContact(ctx context.Context, by taskd.Actor, c taskd.Contact, rec taskd.ImportRecord) (taskd.Contact, error) {
	k.tick("AddImportedContact")
	return k.DB.AddImportedContact(ctx, by, c, rec)
}

func (k *killer) AddProjectFolder(ctx context.Context, by taskd.Actor, title string) (taskd.Folder, error) {
	k.tick("AddProjectFolder")
	return k.DB.AddProjectFolder(ctx, by, title)
}

func (k *killer) AddImportedRelation(ctx context.Context, by taskd.Actor, r taskd.Relation, rec taskd.ImportRecord) error {
	k.tick("AddImportedRelation")
	return k.DB.AddImportedRelation(ctx, by, r, rec)
}

// TestImportInterrupted stops an import at its 2nd, 3rd or 4th write, again and again,
// each time starting from what the stopped runs left, until a run
// finishes; then the account is the source's, with nothing made twice
// (a file stopped between its upload and its attach is there once, its
// first upload unseen until the sweep removes it), and one more run
// changes nothing.
func TestImportInterrupted(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, d *testsite.Site) {
		p := newPair(t, d)
		// Uma is registered here: she joins first, so that one run can
		// bring everything over.
		d.AddMember("moved", testsite.UserEmail, "Uma", "User", taskd.RoleUser)
		stops := 0
		stoppedAt := map[string]int{}
		for {
			ctx, cancel := context.WithCancel(context.Background())
			k := &killer{DB: d.Store, at: 2 + stops%3, cancel: cancel}
			_, err := importer.Run(ctx, p.client, p.dest(k), importer.Options{})
			cancel()
			if err == nil {
				break
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: %v", stops+1, err)
			}
			stoppedAt[k.stopped]++
			if stops++; stops > 100 {
				t.Fatal("the import never finishes")
			}
		}
		t.Logf("stopped %d times: %v", stops, stoppedAt)
		if stops < 5 {
			t.Fatalf("stopped only %d times", stops)
		}
		// A run stopped between a file's upload and its attach left an
		// upload no one sees, the sweep's.
		if stoppedAt["AttachImportedFile"] == 0 {
			t.Fatalf("no run was stopped between an upload and its attach: %v", stoppedAt)
		}
		p.same(t, "after the stops")
		if n, err := d.Store.DeleteUnattachedFiles(context.Background(), time.Now().Add(time.Hour)); err != nil || n == 0 {
			t.Fatalf("the sweep deleted %d uploads left unattached (%v)", n, err)
		}
		p.same(t, "after the sweep")
		sum, err := importer.Run(context.Background(), p.client, p.dest(d.Store), importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range sum.Families {
			if c.Created != 0 || c.Updated != 0 {
				t.Errorf("one more run: %+v", c)
			}
		}
	})
}

// afterMember is the destination's store with the run stopped right after
// the first member it makes is written: a kill between the member's
// commit and the mapping that says the import made them.
type afterMember struct {
	*store.DB
	cancel context.CancelFunc
}

func (a *afterMember) AddMember(ctx context.Context, accountID int64, np taskd.NewPerson, role taskd.Role) (taskd.Person, error) {
	p, err := a.DB.AddMember(ctx, accountID, np, role)
	a.cancel()
	if err == nil {
		err = context.Canceled
	}
	return p, err
}

// TestImportStoppedAfterMakingAMember: a run stopped right after it made
// Nina a member, before it mapped her, leaves her the import's: the next
// run puts her on her team (it puts no member it did not bring in on one),
// and the account is the source's.
func TestImportStoppedAfterMakingAMember(t *testing.T) {
	t.Parallel()
	testsite.Each(t, func(t *testing.T, d *testsite.Site) {
		p := newPair(t, d)
		d.AddMember("moved", testsite.UserEmail, "Uma", "User", taskd.RoleUser)
		ctx, cancel := context.WithCancel(context.Background())
		_, err := importer.Run(ctx, p.client, p.dest(&afterMember{DB: d.Store, cancel: cancel}), importer.Options{})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the stopped run: %v", err)
		}
		if _, err := d.Store.MemberByEmail(context.Background(), p.acct.ID, nina); err != nil {
			t.Fatalf("Nina was not made before the stop: %v", err)
		}
		if _, err := importer.Run(context.Background(), p.client, p.dest(d.Store), importer.Options{}); err != nil {
			t.Fatal(err)
		}
		p.same(t, "after the run that followed")
	})
}
