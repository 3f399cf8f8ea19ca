package importer

import (
	"context"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// teams brings over the source's teams by title, then who is on them: a
// member the import brought in (made, or invited and joined) is put on
// the team their user record names (get_users' group, which Worksection
// and taskd both send). Someone not a member (yet) gets theirs on the run
// after they join. A member the import met here (the owner too) stays on
// their team: an import changes nothing of theirs (DESIGN §13).
func (r *run) teams(ctx context.Context, c *Count) error {
	list, err := r.src.Teams(ctx)
	if err != nil {
		return err
	}
	done, err := r.mappings(ctx, "team")
	if err != nil {
		return err
	}
	for _, t := range list {
		c.Read++
		fp := fingerprint(struct {
			Title  string
			Client bool
		}{t.Title, t.Client})
		err := r.byTitle(ctx, c, done, FamilyTeams, "team", t.ID, "team "+quote(t.Title), fp, func() (int64, error) {
			made, err := r.dst.Store.AddTeam(ctx, r.owner, t.Title, t.Client)
			if err == nil && made.Client != t.Client {
				r.skip(FamilyTeams, t.ID, "team %q: the account has a team of that title whose client mark differs: kept as it is", t.Title)
			}
			return made.ID, err
		})
		if err != nil {
			return err
		}
	}
	users, err := r.sourceUsers(ctx)
	if err != nil {
		return err
	}
	people, err := r.mappings(ctx, "person")
	if err != nil {
		return err
	}
	for _, u := range users {
		m, ok := r.member(source.Person{Email: u.Email})
		if u.Group == "" || !ok || m.Team == u.Group {
			continue // no team, not a member (reported by people), or on it
		}
		if !broughtIn(people[u.ID].Fingerprint) {
			r.skip(FamilyTeams, u.ID, "%s was a member here before the import: kept %s, not put on the team %q", m.Email, teamOf(m), u.Group)
			continue
		}
		c.Updated++
		if r.opts.DryRun {
			continue
		}
		if err := r.dst.Store.SetMemberTeam(ctx, r.owner, m.ID, u.Group); err != nil {
			r.skip(FamilyTeams, u.ID, "%s on the team %q: %v", m.Email, u.Group, err)
		}
	}
	return nil
}

// broughtIn says whether a member mapped with the fingerprint fp is one
// because of the import (made, or invited and joined; a dry run has not
// rewritten "making" or "invited" yet), not one it met.
func broughtIn(fp string) bool {
	return fp == personMaking || fp == personMade || fp == personInvited || fp == personJoined
}

// teamOf names a member's team in the report.
func teamOf(m taskd.Member) string {
	if m.Team == "" {
		return "on no team"
	}
	return "on the team " + quote(m.Team)
}

// contacts brings over the contact folders, then the contacts (each in
// its folder, made when missing), mapped in the contact's own
// transaction; a contact changed in the source is changed here.
func (r *run) contacts(ctx context.Context, c *Count) error {
	folders, err := r.src.ContactFolders(ctx)
	if err != nil {
		return err
	}
	done, err := r.mappings(ctx, "contact_folder")
	if err != nil {
		return err
	}
	for _, f := range folders {
		c.Read++
		err := r.byTitle(ctx, c, done, FamilyContacts, "contact_folder", f.ID, "contact folder "+quote(f.Title), f.Title, func() (int64, error) {
			made, err := r.dst.Store.AddContactFolder(ctx, r.owner, f.Title)
			return made.ID, err
		})
		if err != nil {
			return err
		}
	}
	list, err := r.src.Contacts(ctx)
	if err != nil {
		return err
	}
	if done, err = r.mappings(ctx, "contact"); err != nil {
		return err
	}
	for _, ct := range list {
		c.Read++
		email, err := taskd.NormalizeEmail(ct.Email)
		if err != nil {
			r.skip(FamilyContacts, ct.ID, "contact %q has no valid e-mail address (taskd keeps contacts by e-mail)", ct.Name)
			continue
		}
		in := taskd.Contact{Email: email, FirstName: ct.FirstName, LastName: ct.LastName, Folder: ct.Group,
			Profile: taskd.Profile{Title: ct.Title, Phone: ct.Phone, Phone2: ct.Phone2, Phone3: ct.Phone3, Phone4: ct.Phone4,
				Address: ct.Address, Address2: ct.Address2}}
		if in.FirstName == "" && in.LastName == "" {
			in.FirstName = ct.Name
		}
		what := "contact " + quote(email)
		_, mapped := done[ct.ID]
		added := r.added(dated{family: FamilyContacts, id: ct.ID, what: what, mapped: mapped}, ct.Added)
		_, err = r.sync(ctx, c, done, object{family: FamilyContacts, kind: "contact", id: ct.ID, what: what,
			fingerprint: fingerprint(in), added: added,
			create: func(ctx context.Context, rec *taskd.ImportRecord) (int64, error) {
				made, err := r.dst.Store.AddImportedContact(ctx, r.owner, in, *rec)
				return made.ID, err
			},
			update: func(ctx context.Context, local int64) error {
				in := in
				in.ID = local
				_, err := r.dst.Store.UpdateContact(ctx, r.owner, in)
				return err
			},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// folders brings over the project folders, empty ones too (a project's
// own folder is set by its title with the project).
func (r *run) folders(ctx context.Context, c *Count) error {
	list, err := r.src.ProjectFolders(ctx)
	if err != nil {
		return err
	}
	done, err := r.mappings(ctx, "project_folder")
	if err != nil {
		return err
	}
	for _, f := range list {
		c.Read++
		err := r.byTitle(ctx, c, done, FamilyFolders, "project_folder", f.ID, "project folder "+quote(f.Title), f.Title, func() (int64, error) {
			made, err := r.dst.Store.AddProjectFolder(ctx, r.owner, f.Title)
			return made.ID, err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// byTitle makes an object that is added by title (adding it again finds
// it), unless its mapping says it was made as the source has it (fp), and
// maps it after the write: a run killed between the two adds it again,
// harmlessly. A title changed in the source makes the object under the
// new title; the old one stays. A refusal is reported and skipped.
func (r *run) byTitle(ctx context.Context, c *Count, done map[string]taskd.ImportMapping, family, kind, id, what, fp string,
	add func() (int64, error)) error {
	m, mapped := done[id]
	switch {
	case mapped && m.Fingerprint == fp:
		c.Unchanged++
		return nil
	case mapped:
		c.Updated++
	default:
		c.Created++
	}
	if r.opts.DryRun {
		return nil
	}
	local, err := add()
	if err != nil {
		r.skip(family, id, "%s: %v", what, err)
		return nil
	}
	return r.dst.Store.SetImportMapping(ctx, r.key(kind, id), taskd.ImportMapping{LocalID: local, Fingerprint: fp})
}
