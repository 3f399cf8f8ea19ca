// Package importer writes a source account, read by package
// importer/source, into an account of this taskd (issue 36, DESIGN §12):
// people with their consent, teams and who is on them, contacts and their
// folders, project folders, tag groups and tags in their order, projects,
// tasks at every depth with their hidden lists where the source shows
// them, dependencies between tasks, comments, cost lines and files. Every object
// is made and changed through the same use cases as the API (the store's
// families, Store), by an actor marked Imported, so every rule holds and
// the imported history fires no webhook and sends no digest.
//
// Each object made is mapped to its source id (taskd.ImportKey) in its
// own transaction: its creation takes a taskd.ImportRecord, a field of its
// input. A second run finds the mapping and changes only what changed in
// the source (a fingerprint of what was written is kept with the
// mapping), so runs repeat, and a run killed at any point finishes with
// the same result when started again.
package importer

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
	"github.com/taskd/taskd/people"
)

// The families, in the order they are imported.
const (
	FamilyPeople    = "people"
	FamilyTeams     = "teams"
	FamilyContacts  = "contacts"
	FamilyFolders   = "folders"
	FamilyTags      = "tags"
	FamilyProjects  = "projects"
	FamilyTasks     = "tasks"
	FamilyRelations = "relations"
	FamilyComments  = "comments"
	FamilyCosts     = "costs"
	FamilyFiles     = "files"
)

// Families are every family Run imports, in order.
var Families = []string{FamilyPeople, FamilyTeams, FamilyContacts, FamilyFolders, FamilyTags, FamilyProjects, FamilyTasks,
	FamilyRelations, FamilyComments, FamilyCosts, FamilyFiles}

// NotYet are the families of issue 36 this importer does not bring over
// yet; every run reports them as skipped.
var NotYet = map[string]string{}

// noHiddenLists is reported (family "hidden") by a run whose source showed
// no hidden list in any task or comment it read: taskd's own API does not.
const noHiddenLists = "the source does not show hidden lists: its tasks and comments are imported seen by all who see their project"

// Dest is the account written to, with the ways to write it.
type Dest struct {
	Account taskd.Account
	Store   Store
	// FileLimits bound the files the run stores, as the server's bound
	// uploads; taskd.DefaultFileLimits when zero.
	FileLimits taskd.FileLimits
	// Invite mails an invitation to someone taskd knows already
	// (people.Service.Invite, with --invite); when nil the invitation is
	// kept without a mail, as "taskd user add" keeps it: they see it when
	// they sign in.
	Invite func(ctx context.Context, by taskd.Actor, acct taskd.Account, in people.Invitation) (taskd.Invitation, error)
	// PasswordLink mails someone new the link to set their password
	// (people.Service.RequestReset, with --invite); when nil none is sent
	// and they ask for one ("forgot password") when they come.
	PasswordLink func(ctx context.Context, email string) error
}

// Options configure a run.
type Options struct {
	// Only limits the families (names of Families); all when empty.
	Only []string
	// DryRun reads everything and counts what would be made, writing
	// nothing.
	DryRun bool
	// Progress receives a line per family when it is done; nil: none.
	Progress io.Writer
	// ProgressEvery, when positive, also writes a line to Progress while
	// a family runs, at most this often: counts so far and the rate.
	ProgressEvery time.Duration
	// Now is the clock of the progress lines; time.Now when nil.
	Now func() time.Time
	// Admins are the addresses (the command's --admins) of the source's
	// owners and admins who arrive as admins; every other owner or admin
	// of the source arrives as a user (DESIGN §13). Run refuses an
	// address that is not an owner or admin of the source. A member here
	// already keeps their role: an import changes no member's role.
	Admins []string
}

// Count is what a run did with one family.
type Count struct {
	Family    string  `json:"family"`
	Read      int     `json:"read"`
	Created   int     `json:"created"`
	Updated   int     `json:"updated"`
	Unchanged int     `json:"unchanged"`
	Skipped   int     `json:"skipped"`
	Seconds   float64 `json:"seconds"`
}

// Skip is something not imported, and why. A date of the source that
// taskd does not keep (run.date) names its field and the source's value
// too.
type Skip struct {
	Family   string `json:"family"`
	SourceID string `json:"source_id,omitempty"`
	Field    string `json:"field,omitempty"`
	Value    string `json:"value,omitempty"`
	Reason   string `json:"reason"`
}

// Summary is what a run did.
type Summary struct {
	Source   string  `json:"source"`
	Account  string  `json:"account"`
	DryRun   bool    `json:"dry_run"`
	Families []Count `json:"families"`
	// People are everyone the run made a member or invited (a dry run:
	// would have), in the source's order, with their roles.
	People  []Person `json:"people"`
	Skipped []Skip   `json:"skipped"`
}

// Run imports the source account into dst.Account.
func Run(ctx context.Context, src *source.Client, dst Dest, opts Options) (Summary, error) {
	for _, f := range opts.Only {
		if !slices.Contains(Families, f) {
			return Summary{}, fmt.Errorf("import: unknown family %q (families: %s)", f, strings.Join(Families, ", "))
		}
	}
	r := &run{src: src, dst: dst, opts: opts, now: opts.Now, sum: Summary{Source: src.URL(), Account: dst.Account.Slug, DryRun: opts.DryRun},
		tagIDs: map[string]string{}, projects: map[string]int64{}, tasks: map[string]int64{},
		comments: map[string]int64{}, commentFiles: map[string][]commentFiles{}}
	if r.now == nil {
		r.now = time.Now
	}
	owner, err := dst.Store.Owner(ctx, dst.Account.ID)
	if err != nil {
		return r.sum, fmt.Errorf("import: the account's owner: %w", err)
	}
	r.owner = r.actorOf(owner)
	if err := r.loadMembers(ctx); err != nil {
		return r.sum, err
	}
	if err := r.loadInvited(ctx); err != nil {
		return r.sum, err
	}
	if err := r.checkAdmins(ctx); err != nil {
		return r.sum, err
	}
	steps := []struct {
		name string
		fn   func(context.Context, *Count) error
	}{
		{FamilyPeople, r.people}, {FamilyTeams, r.teams}, {FamilyContacts, r.contacts}, {FamilyFolders, r.folders},
		{FamilyTags, r.tags}, {FamilyProjects, r.projectsStep}, {FamilyTasks, r.tasksStep}, {FamilyRelations, r.relations},
		{FamilyComments, r.commentsStep}, {FamilyCosts, r.costs}, {FamilyFiles, r.filesStep},
	}
	for _, s := range steps {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, s.name) {
			continue
		}
		c := Count{Family: s.name}
		start := r.now()
		r.started, r.shown = start, start
		skipped := len(r.sum.Skipped)
		r.skippedBefore = skipped
		err := s.fn(ctx, &c)
		if err == nil {
			// A write refused because the run was stopped is not a skip:
			// the run stops.
			err = ctx.Err()
		}
		c.Skipped = len(r.sum.Skipped) - skipped
		c.Seconds = r.now().Sub(start).Seconds()
		r.sum.Families = append(r.sum.Families, c)
		r.progress(c)
		if err != nil {
			return r.sum, fmt.Errorf("import: %s: %w", s.name, err)
		}
	}
	if err := r.finish(ctx); err != nil || ctx.Err() != nil {
		if err == nil {
			err = ctx.Err()
		}
		return r.sum, fmt.Errorf("import: projects' status and options: %w", err)
	}
	if r.hiddenRead && !r.hiddenShown {
		r.skip("hidden", "", noHiddenLists)
	}
	for _, k := range slices.Sorted(maps.Keys(NotYet)) {
		r.sum.Skipped = append(r.sum.Skipped, Skip{Family: k, Reason: NotYet[k]})
	}
	return r.sum, nil
}

// run is one import's state.
type run struct {
	src   *source.Client
	dst   Dest
	opts  Options
	now   func() time.Time
	sum   Summary
	owner taskd.Actor
	// members are the destination's members by e-mail; invited the
	// people invited to it (not members yet), with the role they will
	// have.
	members map[string]taskd.Member
	invited map[string]taskd.Role
	// admins are Options.Admins, normalized (checkAdmins).
	admins map[string]bool
	// tagIDs are local tag ids (as text) by source tag id, of both kinds
	// ("task:ID", "project:ID").
	tagIDs map[string]string
	// projects and tasks are local ids by source id; walked what the
	// families after the tasks need of each project's source tasks
	// (eachTree), not the tasks themselves.
	projects map[string]int64
	tasks    map[string]int64
	walked   map[string][]taskRef
	// comments are local comment ids by source id, of the comments this
	// run wrote or found mapped; commentFiles the files of the comments
	// read, by source task id, once commentsRead (the comments family ran).
	comments     map[string]int64
	commentFiles map[string][]commentFiles
	commentsRead bool
	fake         int64 // dry run: ids of what would be made
	// started and shown are when the family running began and when its
	// last line of progress was written.
	started, shown time.Time
	skippedBefore  int // skips reported before the family running
	// sourceProjects are the source's projects, read once.
	sourceProjects []source.Project
	// users are the source's members, read once (people, teams).
	users []source.User
	// hiddenRead: tasks or comments were read; hiddenShown: one of their
	// answers carried a hidden list (Worksection's do, taskd's do not).
	hiddenRead, hiddenShown bool
}

// during writes a line of progress while a family runs, when
// Options.ProgressEvery has passed since the last.
func (r *run) during(c *Count) {
	if r.opts.Progress == nil || r.opts.ProgressEvery <= 0 {
		return
	}
	now := r.now()
	if now.Sub(r.shown) < r.opts.ProgressEvery {
		return
	}
	r.shown = now
	so := *c
	so.Seconds = now.Sub(r.started).Seconds()
	so.Skipped = len(r.sum.Skipped) - r.skippedBefore
	r.line(so, " …")
}

// progress writes the line of a family done.
func (r *run) progress(c Count) {
	if r.opts.Progress == nil {
		return
	}
	r.line(c, "")
}

func (r *run) line(c Count, more string) {
	rate := 0.0
	if c.Seconds > 0 {
		rate = float64(c.Read) / c.Seconds
	}
	verb := "created"
	if r.opts.DryRun {
		verb = "to create"
	}
	fmt.Fprintf(r.opts.Progress, "import: %-8s %d read, %d %s, %d updated, %d unchanged, %d skipped in %.1fs (%.0f/s)%s\n",
		c.Family, c.Read, c.Created, verb, c.Updated, c.Unchanged, c.Skipped, c.Seconds, rate, more)
}

func (r *run) skip(family, id, format string, args ...any) {
	r.sum.Skipped = append(r.sum.Skipped, Skip{Family: family, SourceID: id, Reason: fmt.Sprintf(format, args...)})
}

// key is the mapping key of a source object.
func (r *run) key(family, id string) taskd.ImportKey {
	return taskd.ImportKey{AccountID: r.dst.Account.ID, Source: r.src.URL(), Family: family, SourceID: id}
}

// mappings reads a family's mappings.
func (r *run) mappings(ctx context.Context, family string) (map[string]taskd.ImportMapping, error) {
	return r.dst.Store.ImportMappings(ctx, r.dst.Account.ID, r.src.URL(), family)
}

func (r *run) loadMembers(ctx context.Context) error {
	ms, err := r.dst.Store.Members(ctx, r.dst.Account.ID)
	if err != nil {
		return fmt.Errorf("import: members: %w", err)
	}
	r.members = map[string]taskd.Member{}
	for _, m := range ms {
		r.members[m.Email] = m
	}
	return nil
}

func (r *run) loadInvited(ctx context.Context) error {
	invs, err := r.dst.Store.AccountInvitations(ctx, r.dst.Account.ID)
	if err != nil {
		return fmt.Errorf("import: invitations: %w", err)
	}
	r.invited = map[string]taskd.Role{}
	for _, inv := range invs {
		r.invited[inv.Person.Email] = inv.Role
	}
	return nil
}

// actorOf is a member acting in the import: with the key's sight and
// marked Imported.
func (r *run) actorOf(m taskd.Member) taskd.Actor {
	return taskd.Actor{AccountID: r.dst.Account.ID, Person: m.Ref(), Role: m.Role, Key: true, Imported: true}
}

// member is the destination member of a source person, by e-mail.
func (r *run) member(p source.Person) (taskd.Member, bool) {
	e, err := taskd.NormalizeEmail(p.Email)
	if err != nil {
		return taskd.Member{}, false
	}
	m, ok := r.members[e]
	return m, ok
}

// email is a source person's address as a member of the destination, or
// "" when they are not (yet) one.
func (r *run) email(p source.Person) string {
	if m, ok := r.member(p); ok {
		return m.Email
	}
	return ""
}

// due is a source person's address as what is written names them: a
// member's, or an invited person's (waiting reports that), for whom it is
// kept until they accept; "" for someone neither. Fingerprints hold it,
// so that what an acceptance applies is what the next run would write.
func (r *run) due(p source.Person) (email string, waiting bool) {
	if e := r.email(p); e != "" {
		return e, false
	}
	e, err := taskd.NormalizeEmail(p.Email)
	if err != nil {
		return "", false
	}
	if _, ok := r.invited[e]; ok {
		return e, true
	}
	return "", false
}

// writes says whether someone of the role writes in their own name (else
// the owner writes for them).
func writes(role taskd.Role) bool {
	return role == taskd.RoleOwner || role == taskd.RoleAdmin || role == taskd.RoleUser
}

// actor is who writes an object a source person made: that person when
// they are a member who may work, else the owner.
func (r *run) actor(p source.Person) taskd.Actor {
	if m, ok := r.member(p); ok && writes(m.Role) {
		return r.actorOf(m)
	}
	return r.owner
}

// author is who writes an object the source person made (actor), the
// address of who it is for (the actor's, or an invited person's who will
// write in their own name: the fingerprint holds it) and what waits for
// that invited person (role on the object), if anything.
func (r *run) author(p source.Person, role string) (taskd.Actor, string, []taskd.WaitingRole) {
	by := r.actor(p)
	if by.Person.ID != r.owner.Person.ID {
		return by, by.Person.Email, nil
	}
	if e, waiting := r.due(p); waiting && writes(r.invited[e]) {
		return by, e, []taskd.WaitingRole{{Email: e, Role: role}}
	}
	return by, by.Person.Email, nil
}

// fileLimits bound the files the run stores (Dest.FileLimits).
func (r *run) fileLimits() taskd.FileLimits {
	if r.dst.FileLimits == (taskd.FileLimits{}) {
		return taskd.DefaultFileLimits
	}
	return r.dst.FileLimits
}

// created makes an object unless the run is dry; a dry run gives it a
// made-up id.
func (r *run) created(c *Count, make func() (int64, error)) (int64, error) {
	c.Created++
	if r.opts.DryRun {
		r.fake--
		return r.fake, nil
	}
	return make()
}
