package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

const projectColumns = `pr.id, pr.account_id, pr.name, pr.text, pr.status, pr.created_at, pr.date_start, pr.date_end, pr.closed_at,
	pr.author_id, COALESCE(a.email, ''), COALESCE(a.first_name, ''), COALESCE(a.last_name, ''),
	pr.manager_id, COALESCE(m.email, ''), COALESCE(m.first_name, ''), COALESCE(m.last_name, ''),
	COALESCE(f.title, ''), pr.default_assignee_id, COALESCE(d.email, ''), COALESCE(d.first_name, ''), COALESCE(d.last_name, ''),
	pr.max_minutes, pr.max_cents, pr.time_require, pr.time_today, pr.timer_only
	FROM projects pr LEFT JOIN persons a ON a.id = pr.author_id LEFT JOIN persons m ON m.id = pr.manager_id
	LEFT JOIN project_folders f ON f.id = pr.folder_id LEFT JOIN persons d ON d.id = pr.default_assignee_id`

func scanProject(s interface{ Scan(...any) error }) (taskd.Project, error) {
	var p taskd.Project
	var added, closed, aid, mid, did, timeRequire, timeToday, timerOnly int64
	var ae, af, al, me, mf, ml, de, df, dl string
	err := s.Scan(&p.ID, &p.AccountID, &p.Name, &p.Text, &p.Status, &added, &p.DateStart, &p.DateEnd, &closed,
		&aid, &ae, &af, &al, &mid, &me, &mf, &ml, &p.Folder, &did, &de, &df, &dl, &p.MaxMinutes, &p.MaxCents,
		&timeRequire, &timeToday, &timerOnly)
	p.DateAdded, p.DateClosed = fromMS(added), fromMS(closed)
	p.Options = taskd.ProjectOptions{TimeRequire: timeRequire == 1, TimeToday: timeToday == 1, TimerOnly: timerOnly == 1}
	p.Author, p.Manager = personRef(aid, ae, af, al), personRef(mid, me, mf, ml)
	if did != 0 {
		p.Assignee = personRef(did, de, df, dl)
	}
	return p, err
}

// Projects lists the projects the viewer sees, optionally of one status.
func (db *DB) Projects(ctx context.Context, v taskd.Viewer, status string) ([]taskd.Project, error) {
	seen := projectSeen(v, "pr.id")
	query, args := `SELECT `+projectColumns+` WHERE pr.account_id = ?`+seen.where(), append([]any{v.AccountID}, seen.args...)
	if status != "" {
		query += ` AND pr.status = ?`
		args = append(args, status)
	}
	return all(ctx, db.reader, "projects", db.d.q(query+` ORDER BY pr.id`), scanProject, args...)
}

// ProjectProgress counts, per project the viewer sees, the open and done
// tasks they see, with the nearest due date of the open ones, in one
// query.
func (db *DB) ProjectProgress(ctx context.Context, v taskd.Viewer) (map[int64]taskd.Progress, error) {
	type row struct {
		project int64
		taskd.Progress
	}
	seen := taskSeen(v, "t")
	rows, err := all(ctx, db.reader, "project progress", db.d.q(`SELECT t.project_id,
		SUM(CASE WHEN t.status = 'done' THEN 0 ELSE 1 END), SUM(CASE WHEN t.status = 'done' THEN 1 ELSE 0 END),
		COALESCE(MIN(CASE WHEN t.status <> 'done' AND t.date_end <> '' THEN t.date_end END), '')
		FROM tasks t WHERE t.account_id = ?`+seen.where()+` GROUP BY t.project_id`),
		func(sc scanner) (r row, err error) { return r, sc.Scan(&r.project, &r.Open, &r.Done, &r.NextDue) },
		append([]any{v.AccountID}, seen.args...)...)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]taskd.Progress, len(rows))
	for _, r := range rows {
		out[r.project] = r.Progress
	}
	return out, nil
}

// Project returns one project the viewer sees; not found ("project")
// otherwise.
func (db *DB) Project(ctx context.Context, v taskd.Viewer, id int64) (taskd.Project, error) {
	return db.project(ctx, db.reader, v, id, false)
}

func (db *DB) project(ctx context.Context, q querier, v taskd.Viewer, id int64, lock bool) (taskd.Project, error) {
	seen := projectSeen(v, "pr.id")
	query := `SELECT ` + projectColumns + ` WHERE pr.account_id = ? AND pr.id = ?` + seen.where()
	if lock && db.d.forUpdate != "" {
		query += db.d.forUpdate + ` OF pr`
	}
	p, err := scanProject(q.QueryRowContext(ctx, db.d.q(query), append([]any{v.AccountID, id}, seen.args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return p, taskd.NotFound("project")
	}
	if err != nil {
		return p, taskd.Internal("project", err)
	}
	return p, nil
}

// applyProject copies the input's set fields onto p, resolving the manager.
func (db *DB) applyProject(ctx context.Context, tx querier, p *taskd.Project, in taskd.ProjectInput) error {
	if in.Name != nil {
		p.Name = *in.Name
	}
	if in.Text != nil {
		p.Text = *in.Text
	}
	if err := taskd.SetDate("datestart", &p.DateStart, in.DateStart); err != nil {
		return err
	}
	if err := taskd.SetDate("dateend", &p.DateEnd, in.DateEnd); err != nil {
		return err
	}
	if in.ManagerEmail != nil {
		m, err := db.resolvePerson(ctx, tx, p.AccountID, *in.ManagerEmail, false)
		if err != nil {
			return err
		}
		p.Manager = m
	}
	if in.AssigneeEmail != nil {
		m, err := db.resolvePerson(ctx, tx, p.AccountID, *in.AssigneeEmail, true)
		if err != nil {
			return err
		}
		p.Assignee = m
	}
	if in.Folder != nil {
		p.Folder = *in.Folder
	}
	if in.MaxMinutes != nil {
		p.MaxMinutes = *in.MaxMinutes
	}
	if in.MaxCents != nil {
		p.MaxCents = *in.MaxCents
	}
	in.Options.Apply(&p.Options)
	return taskd.CheckDateRange(p.DateStart, p.DateEnd)
}

// projectFolderID returns the id of the project's folder, made when
// missing; nil for none.
func (db *DB) projectFolderID(ctx context.Context, tx querier, p taskd.Project) (any, error) {
	if p.Folder == "" {
		return nil, nil
	}
	id, _, err := db.namedID(ctx, tx, "project_folders", p.AccountID, p.Folder, false)
	return id, err
}

// teamChange is how changeTeam changes a project's team.
type teamChange int

const (
	teamJoin  teamChange = iota // the people named join the team
	teamLeave                   // the people named leave it
	teamSet                     // the team becomes exactly the people named
)

// changeTeam changes a project's team, its people named by e-mail (not
// found, "member", for an e-mail of no member), and ends, for everyone
// who left it, what they kept running there that their membership no
// longer reaches (endBeyondReach: a guest's timer on its tasks, stopped
// and recorded; a guest's or reader's waiting notifications of it). It
// is the one path of add_project_members and delete_project_members
// (SetProjectMembers) and of the team of CreateProject and UpdateProject.
func (db *DB) changeTeam(ctx context.Context, tx querier, accountID, projectID int64, emails []string, how teamChange) (taskd.TrustEnded, error) {
	var ended taskd.TrustEnded
	named := make(map[int64]bool, len(emails))
	var ids []int64 // in the order named
	for _, e := range emails {
		m, err := db.memberByEmail(ctx, tx, accountID, e)
		if err != nil {
			return ended, err
		}
		if !named[m.ID] {
			named[m.ID] = true
			ids = append(ids, m.ID)
		}
	}
	var leaving []int64
	switch how {
	case teamLeave:
		leaving = ids
	case teamSet:
		team, err := all(ctx, tx, "project team", db.d.q(`SELECT person_id FROM project_members WHERE project_id = ?`),
			func(s scanner) (id int64, err error) { return id, s.Scan(&id) }, projectID)
		if err != nil {
			return ended, err
		}
		for _, id := range team {
			if !named[id] {
				leaving = append(leaving, id)
			}
		}
	}
	if how != teamLeave {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, db.d.q(`INSERT INTO project_members (project_id, person_id, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`),
				projectID, id, ms(db.now())); err != nil {
				return ended, err
			}
		}
	}
	for _, id := range leaving {
		if _, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM project_members WHERE project_id = ? AND person_id = ?`), projectID, id); err != nil {
			return ended, err
		}
	}
	// Off the team, out of the project, once the team is as it will be.
	for _, id := range leaving {
		stopped, err := db.endBeyondReach(ctx, tx, accountID, id)
		if err != nil {
			return ended, err
		}
		ended.Timer = ended.Timer || stopped
	}
	return ended, nil
}

// CreateProject creates an active project and its post_project event.
func (db *DB) CreateProject(ctx context.Context, by taskd.Actor, in taskd.ProjectInput) (taskd.Project, error) {
	p := taskd.Project{AccountID: by.AccountID, Status: taskd.ProjectActive, Author: by.Person, Manager: taskd.Nobody,
		DateAdded: db.importedAdded(in.Import, by, taskd.ImportProject)}
	err := db.change(ctx, by, "create project", func(tx querier) error {
		if err := db.applyProject(ctx, tx, &p, in); err != nil {
			return err
		}
		folder, err := db.projectFolderID(ctx, tx, p)
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, db.d.q(`INSERT INTO projects
			(account_id, name, text, status, author_id, manager_id, date_start, date_end, created_at, folder_id, default_assignee_id,
			max_minutes, max_cents, time_require, time_today, timer_only)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			p.AccountID, p.Name, p.Text, p.Status, p.Author.ID, p.Manager.ID, p.DateStart, p.DateEnd, ms(p.DateAdded),
			folder, p.Assignee.ID, p.MaxMinutes, p.MaxCents, boolInt(p.Options.TimeRequire), boolInt(p.Options.TimeToday),
			boolInt(p.Options.TimerOnly)).Scan(&p.ID)
		if err != nil {
			return err
		}
		if in.Members != nil {
			if _, err := db.changeTeam(ctx, tx, p.AccountID, p.ID, *in.Members, teamSet); err != nil {
				return err
			}
		}
		if in.Tags != nil {
			if _, _, err := db.replaceTags(ctx, tx, p.AccountID, taskd.TagsOfProjects, p.ID, *in.Tags); err != nil {
				return err
			}
		}
		fields, err := db.newFieldValues(ctx, tx, p.AccountID, taskd.ObjectProject, p.ID, in.Fields)
		if err != nil {
			return err
		}
		if err := db.attach(ctx, tx, by, in.Files, taskd.OwnerProject, p.ID, p.ID, 0); err != nil {
			return err
		}
		if err := db.writeImported(ctx, tx, by, taskd.ImportProject, p.ID, in.Import); err != nil {
			return err
		}
		return db.emitChange(ctx, tx, by, taskd.ActionPost, taskd.ObjectProject, p.ID, p.Page(), p.Ref(), subject{}, nil,
			withFields(wire.ProjectFields(p), fields))
	})
	return p, err
}

// UpdateProject changes a project's fields and writes update_project.
func (db *DB) UpdateProject(ctx context.Context, by taskd.Actor, id int64, in taskd.ProjectInput) (taskd.Project, error) {
	var p taskd.Project
	err := db.change(ctx, by, "update project", func(tx querier) error {
		var err error
		if p, err = db.project(ctx, tx, by.Viewer(), id, true); err != nil {
			return err
		}
		before := wire.ProjectFields(p)
		if err := db.applyProject(ctx, tx, &p, in); err != nil {
			return err
		}
		folder, err := db.projectFolderID(ctx, tx, p)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, db.d.q(`UPDATE projects SET name = ?, text = ?, manager_id = ?, date_start = ?, date_end = ?,
			folder_id = ?, default_assignee_id = ?, max_minutes = ?, max_cents = ?, time_require = ?, time_today = ?, timer_only = ?
			WHERE id = ? AND account_id = ?`),
			p.Name, p.Text, p.Manager.ID, p.DateStart, p.DateEnd, folder, p.Assignee.ID, p.MaxMinutes, p.MaxCents,
			boolInt(p.Options.TimeRequire), boolInt(p.Options.TimeToday), boolInt(p.Options.TimerOnly), p.ID, p.AccountID)
		if err != nil {
			return err
		}
		if in.Members != nil {
			if _, err := db.changeTeam(ctx, tx, p.AccountID, p.ID, *in.Members, teamSet); err != nil {
				return err
			}
		}
		if in.Tags != nil {
			if _, _, err := db.replaceTags(ctx, tx, p.AccountID, taskd.TagsOfProjects, p.ID, *in.Tags); err != nil {
				return err
			}
		}
		after := wire.ProjectFields(p)
		if in.Fields != nil {
			if before["custom_fields"], after["custom_fields"], err = db.setFieldValues(ctx, tx, p.AccountID, taskd.ObjectProject, p.ID, in.Fields); err != nil {
				return err
			}
		}
		return db.emitChange(ctx, tx, by, taskd.ActionUpdate, taskd.ObjectProject, p.ID, p.Page(), p.Ref(), subject{}, before, after)
	})
	return p, err
}

// SetProjectStatus archives (close_project) or activates a project. A conflict
// (ReasonAlreadyInState) when it already has the status.
func (db *DB) SetProjectStatus(ctx context.Context, by taskd.Actor, id int64, status string) (taskd.Project, error) {
	var p taskd.Project
	err := db.change(ctx, by, "set project status", func(tx querier) error {
		var err error
		if p, err = db.project(ctx, tx, by.Viewer(), id, true); err != nil {
			return err
		}
		if err := taskd.CanSetProjectStatus(p, status); err != nil {
			return err
		}
		before := wire.ProjectFields(p)
		p.Status, p.DateClosed = status, db.now().UTC()
		action := taskd.ActionClose
		if status == taskd.ProjectActive {
			p.DateClosed, action = time.Time{}, taskd.ActionReopen
		}
		_, err = tx.ExecContext(ctx, db.d.q(`UPDATE projects SET status = ?, closed_at = ? WHERE id = ? AND account_id = ?`),
			p.Status, ms(p.DateClosed), p.ID, p.AccountID)
		if err != nil {
			return err
		}
		return db.emitChange(ctx, tx, by, action, taskd.ObjectProject, p.ID, p.Page(), p.Ref(), subject{}, before, wire.ProjectFields(p))
	})
	return p, err
}
