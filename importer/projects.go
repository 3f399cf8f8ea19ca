package importer

import (
	"context"
	"slices"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/importer/source"
)

// projectWrite is what is written of a source project; its fingerprint
// decides whether a later run changes the project.
type projectWrite struct {
	Name, Text, Manager, Start, End, Folder string
	Members, Tags                           []string
	MaxMinutes, MaxCents                    int64
	Status                                  string
	Options                                 taskd.ProjectOptions
}

// projectsStep makes or updates the source's projects (team, folder,
// dates, budget, tags). A project is written open and without its rules
// of logging time while its history is imported; its status and options
// are set at the end of the run (finish), so archived projects and
// projects with time rules take their tasks and lines like any other.
func (r *run) projectsStep(ctx context.Context, c *Count) error {
	list, err := r.src.Projects(ctx)
	if err != nil {
		return err
	}
	done, err := r.mappings(ctx, "project")
	if err != nil {
		return err
	}
	for _, p := range list {
		c.Read++
		what := "project " + quote(p.Name)
		m, mapped := done[p.ID]
		o := dated{family: FamilyProjects, id: p.ID, what: what, mapped: mapped}
		w, in, waits := r.projectInput(p, o)
		by, _, authorWaits := r.author(p.Author, taskd.WaitProjectAuthor)
		if mapped {
			// Opened first: the update of an archived project is refused.
			if err := r.openProject(ctx, m.LocalID); err != nil {
				return err
			}
		}
		id, err := r.sync(ctx, c, done, object{family: FamilyProjects, kind: "project", id: p.ID, what: what,
			fingerprint: fingerprint(w), added: r.added(o, p.Added), waits: append(waits, authorWaits...),
			create: func(ctx context.Context, rec *taskd.ImportRecord) (int64, error) {
				in := in
				in.Import = rec
				made, err := r.dst.Store.CreateProject(ctx, by, in)
				return made.ID, err
			},
			update: func(ctx context.Context, local int64) error {
				_, err := r.dst.Store.UpdateProject(ctx, r.owner, local, in)
				return err
			},
		})
		if err != nil {
			return err
		}
		if id != 0 {
			r.projects[p.ID] = id
		}
	}
	r.sourceProjects = list
	return nil
}

// projectInput is what is written of p: everything but its status and
// options, which finish sets. w, its fingerprint, names invited people as
// members; in writes it now, without them; waits is what waits on it for
// them. o names p for the rule of its dates (run.date).
func (r *run) projectInput(p source.Project, o dated) (w projectWrite, in taskd.ProjectInput, waits []taskd.WaitingRole) {
	w = projectWrite{Name: p.Name, Text: p.Text, Folder: p.Folder, MaxMinutes: p.MaxMinutes, MaxCents: p.MaxCents, Status: p.Status}
	manager := "NOONE"
	if e, waiting := r.due(p.Manager); waiting {
		w.Manager = e
		waits = append(waits, taskd.WaitingRole{Email: e, Role: taskd.WaitProjectManager})
	} else if e != "" {
		w.Manager, manager = e, e
	}
	var start, end *string
	w.Start, start = r.date(o, "date_start", p.Start)
	w.End, end = r.date(o, "date_end", p.End)
	var team []string
	for _, m := range p.Members {
		e, waiting := r.due(m)
		switch {
		case e == "":
			r.skip(FamilyProjects, p.ID, "%s is not a member: left off the team of %q", m.Email, p.Name)
		case slices.Contains(w.Members, e):
		case waiting:
			w.Members = append(w.Members, e)
			waits = append(waits, taskd.WaitingRole{Email: e, Role: taskd.WaitProjectMember})
			r.skip(FamilyProjects, p.ID, "%s is invited: on the team of %q when they accept", e, p.Name)
		default:
			w.Members, team = append(w.Members, e), append(team, e)
		}
	}
	slices.Sort(w.Members)
	slices.Sort(team)
	w.Tags = r.localTags(FamilyProjects, p.ID, taskd.TagsOfProjects, p.Tags)
	w.Options = taskd.ProjectOptions{TimeRequire: p.Options["time_require"], TimeToday: p.Options["time_today"], TimerOnly: p.Options["timer_only"]}
	for o, on := range p.Options {
		if on && o != "time_require" && o != "time_today" && o != "timer_only" {
			r.skip(FamilyProjects, p.ID, "option %s of %q is not one taskd keeps", o, p.Name)
		}
	}
	in = taskd.ProjectInput{Name: &w.Name, Text: &w.Text, DateStart: start, DateEnd: end, Folder: &w.Folder,
		Members: &team, Tags: &w.Tags, MaxMinutes: &w.MaxMinutes, MaxCents: &w.MaxCents, ManagerEmail: &manager}
	return w, in, waits
}

// openProject makes a mapped project active and without rules of logging
// time while the run writes its history (finish sets them back).
func (r *run) openProject(ctx context.Context, id int64) error {
	if r.opts.DryRun {
		return nil
	}
	p, err := r.dst.Store.Project(ctx, r.owner.Viewer(), id)
	if taskd.IsNotFound(err) {
		return nil // deleted here: left as it is
	}
	if err != nil {
		return err
	}
	if p.Status != taskd.ProjectActive {
		if _, err := r.dst.Store.SetProjectStatus(ctx, r.owner, id, taskd.ProjectActive); err != nil {
			return err
		}
	}
	if p.Options != (taskd.ProjectOptions{}) {
		off := false
		if _, err := r.dst.Store.UpdateProject(ctx, r.owner, id, taskd.ProjectInput{Options: taskd.OptionsInput{TimeRequire: &off, TimeToday: &off, TimerOnly: &off}}); err != nil {
			return err
		}
	}
	return nil
}

// finish sets each project's status and options as the source has them.
func (r *run) finish(ctx context.Context) error {
	if r.opts.DryRun {
		return nil
	}
	for _, p := range r.sourceProjects {
		id, ok := r.projects[p.ID]
		if !ok {
			continue
		}
		o := taskd.ProjectOptions{TimeRequire: p.Options["time_require"], TimeToday: p.Options["time_today"], TimerOnly: p.Options["timer_only"]}
		if o != (taskd.ProjectOptions{}) {
			if _, err := r.dst.Store.UpdateProject(ctx, r.owner, id, taskd.ProjectInput{Options: taskd.OptionsInput{
				TimeRequire: &o.TimeRequire, TimeToday: &o.TimeToday, TimerOnly: &o.TimerOnly}}); err != nil {
				return err
			}
		}
		if status := p.Status; status != "" && status != taskd.ProjectActive {
			if _, err := r.dst.Store.SetProjectStatus(ctx, r.owner, id, status); err != nil && !isConflict(err) {
				r.skip(FamilyProjects, p.ID, "status %s of %q: %v", status, p.Name, err)
			}
		}
	}
	return nil
}
