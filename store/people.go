package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/taskd/taskd"
)

var (
	_ taskd.DirectoryStore   = (*DB)(nil)
	_ taskd.ProjectTeamStore = (*DB)(nil)
	_ taskd.PersonStore      = (*DB)(nil)
)

// Teams lists the account's teams by title.
func (db *DB) Teams(ctx context.Context, accountID int64) ([]taskd.Team, error) {
	return all(ctx, db.reader, "teams", db.d.q(`SELECT id, title, client FROM teams WHERE account_id = ? ORDER BY title, id`),
		func(s scanner) (taskd.Team, error) {
			var t taskd.Team
			var client int64
			err := s.Scan(&t.ID, &t.Title, &client)
			t.Client = client != 0
			return t, err
		}, accountID)
}

// AddTeam creates a team unless the account has one with the title, and
// returns the team with the title.
func (db *DB) AddTeam(ctx context.Context, by taskd.Actor, title string, client bool) (taskd.Team, error) {
	title, err := cleanTitle(title)
	if err != nil {
		return taskd.Team{}, err
	}
	if err := taskd.Authorize(by, taskd.PermManagePeople); err != nil {
		return taskd.Team{}, err
	}
	t := taskd.Team{Title: title, Client: client}
	err = db.tx(ctx, "add team", func(tx querier) error {
		var c int64
		t.ID, c, err = db.namedID(ctx, tx, "teams", by.AccountID, title, client)
		t.Client = c != 0
		return err
	})
	return t, err
}

// namedID returns the id (and client flag) of the account's row of table
// with the title, inserting it first when there is none. Two callers at
// once both get the one row.
func (db *DB) namedID(ctx context.Context, tx querier, table string, accountID int64, title string, client bool) (int64, int64, error) {
	var id, c int64
	withClient := table == "teams"
	sel := `SELECT id, 0 FROM ` + table + ` WHERE account_id = ? AND title = ?`
	if withClient {
		sel = `SELECT id, client FROM teams WHERE account_id = ? AND title = ?`
	}
	err := tx.QueryRowContext(ctx, db.d.q(sel), accountID, title).Scan(&id, &c)
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return id, c, err
	}
	ins := `INSERT INTO ` + table + ` (account_id, title, created_at) VALUES (?, ?, ?) ON CONFLICT (account_id, title) DO NOTHING`
	args := []any{accountID, title, ms(db.now())}
	if withClient {
		ins = `INSERT INTO teams (account_id, title, client, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, title) DO NOTHING`
		args = []any{accountID, title, flag(client), ms(db.now())}
	}
	if _, err := tx.ExecContext(ctx, db.d.q(ins), args...); err != nil {
		return 0, 0, err
	}
	err = tx.QueryRowContext(ctx, db.d.q(sel), accountID, title).Scan(&id, &c)
	return id, c, err
}

func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// cleanTitle trims a title and checks that it is there and not too long.
func cleanTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", taskd.Required("title")
	}
	if len(title) > taskd.MaxTitleLen || strings.ContainsAny(title, "\r\n") {
		return "", taskd.Invalid("title", "A title is one line of at most %d bytes", taskd.MaxTitleLen)
	}
	return title, nil
}

func scanFolder(s scanner) (taskd.Folder, error) {
	var f taskd.Folder
	return f, s.Scan(&f.ID, &f.Title)
}

// ContactFolders lists the account's contact folders by title.
func (db *DB) ContactFolders(ctx context.Context, accountID int64) ([]taskd.Folder, error) {
	return all(ctx, db.reader, "contact folders", db.d.q(`SELECT id, title FROM contact_folders WHERE account_id = ? ORDER BY title, id`), scanFolder, accountID)
}

// AddContactFolder creates a contact folder unless one has the title.
func (db *DB) AddContactFolder(ctx context.Context, by taskd.Actor, title string) (taskd.Folder, error) {
	return db.addFolder(ctx, by, "contact_folders", title)
}

// ProjectFolders lists the account's project folders by title.
func (db *DB) ProjectFolders(ctx context.Context, accountID int64) ([]taskd.Folder, error) {
	return all(ctx, db.reader, "project folders", db.d.q(`SELECT id, title FROM project_folders WHERE account_id = ? ORDER BY title, id`), scanFolder, accountID)
}

// AddProjectFolder creates a project folder unless one has the title.
func (db *DB) AddProjectFolder(ctx context.Context, by taskd.Actor, title string) (taskd.Folder, error) {
	return db.addFolder(ctx, by, "project_folders", title)
}

func (db *DB) addFolder(ctx context.Context, by taskd.Actor, table, title string) (taskd.Folder, error) {
	title, err := cleanTitle(title)
	if err != nil {
		return taskd.Folder{}, err
	}
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return taskd.Folder{}, err
	}
	f := taskd.Folder{Title: title}
	err = db.tx(ctx, "add folder", func(tx querier) error {
		f.ID, _, err = db.namedID(ctx, tx, table, by.AccountID, title, false)
		return err
	})
	return f, err
}

const contactColumns = `c.id, c.email, c.first_name, c.last_name, COALESCE(f.title, ''), c.title, c.phone, c.phone2, c.phone3, c.phone4,
	c.address, c.address2, c.created_at FROM contacts c LEFT JOIN contact_folders f ON f.id = c.folder_id`

func scanContact(s scanner) (taskd.Contact, error) {
	var c taskd.Contact
	var added int64
	err := s.Scan(&c.ID, &c.Email, &c.FirstName, &c.LastName, &c.Folder, &c.Title, &c.Phone, &c.Phone2, &c.Phone3, &c.Phone4,
		&c.Address, &c.Address2, &added)
	c.Added = fromMS(added)
	return c, err
}

// Contacts lists the account's contacts in the order they were added.
func (db *DB) Contacts(ctx context.Context, accountID int64) ([]taskd.Contact, error) {
	return all(ctx, db.reader, "contacts", db.d.q(`SELECT `+contactColumns+` WHERE c.account_id = ? ORDER BY c.id`), scanContact, accountID)
}

// AddContact adds a contact, making its folder when missing.
func (db *DB) AddContact(ctx context.Context, by taskd.Actor, c taskd.Contact) (taskd.Contact, error) {
	return db.addContact(ctx, by, c, nil)
}

// AddImportedContact adds a contact as AddContact does, with an import's
// record (taskd.ImportStore).
func (db *DB) AddImportedContact(ctx context.Context, by taskd.Actor, c taskd.Contact, rec taskd.ImportRecord) (taskd.Contact, error) {
	return db.addContact(ctx, by, c, &rec)
}

// addContact adds a contact with the record of its import, if any.
func (db *DB) addContact(ctx context.Context, by taskd.Actor, c taskd.Contact, rec *taskd.ImportRecord) (taskd.Contact, error) {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return c, err
	}
	var id int64
	err := db.tx(ctx, "add contact", func(tx querier) error {
		var folder any
		if c.Folder != "" {
			fid, _, err := db.namedID(ctx, tx, "contact_folders", by.AccountID, c.Folder, false)
			if err != nil {
				return err
			}
			folder = fid
		}
		err := tx.QueryRowContext(ctx, db.d.q(`INSERT INTO contacts (account_id, email, first_name, last_name, title, folder_id,
			phone, phone2, phone3, phone4, address, address2, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			by.AccountID, c.Email, c.FirstName, c.LastName, c.Title, folder, c.Phone, c.Phone2, c.Phone3, c.Phone4, c.Address, c.Address2,
			ms(db.importedAdded(rec, by, taskd.ImportContact))).Scan(&id)
		if isUnique(err) {
			return taskd.Conflict(taskd.ReasonNone, "email", "The account has a contact with this e-mail")
		}
		if err != nil {
			return err
		}
		return db.writeImported(ctx, tx, by, taskd.ImportContact, id, rec)
	})
	if err != nil {
		return c, err
	}
	return scanContact(db.write.QueryRowContext(ctx, db.d.q(`SELECT `+contactColumns+` WHERE c.id = ?`), id))
}

// ProjectMembers lists a project's team by name.
func (db *DB) ProjectMembers(ctx context.Context, accountID, projectID int64) ([]taskd.PersonRef, error) {
	return all(ctx, db.reader, "project members", db.d.q(`SELECT p.id, p.email, p.first_name, p.last_name
		FROM project_members pm JOIN projects pr ON pr.id = pm.project_id JOIN persons p ON p.id = pm.person_id
		WHERE pr.account_id = ? AND pm.project_id = ? ORDER BY p.first_name, p.last_name, p.email`), scanRef, accountID, projectID)
}

func scanRef(s scanner) (taskd.PersonRef, error) {
	var id int64
	var email, first, last string
	err := s.Scan(&id, &email, &first, &last)
	return personRef(id, email, first, last), err
}

// SetProjectMembers adds or removes members of the account to or from a
// project's team, all or none.
func (db *DB) SetProjectMembers(ctx context.Context, by taskd.Actor, projectID int64, emails []string, add bool) (taskd.TrustEnded, error) {
	var ended taskd.TrustEnded
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return ended, err
	}
	err := db.tx(ctx, "project members", func(tx querier) error {
		ended = taskd.TrustEnded{} // of this attempt
		if _, err := db.project(ctx, tx, by.Viewer(), projectID, false); err != nil {
			return err
		}
		how := teamLeave
		if add {
			how = teamJoin
		}
		var err error
		ended, err = db.changeTeam(ctx, tx, by.AccountID, projectID, emails, how)
		return err
	})
	return ended, err
}

// Subscribers lists the people subscribed to a task, by name.
func (db *DB) Subscribers(ctx context.Context, accountID, taskID int64) ([]taskd.PersonRef, error) {
	return all(ctx, db.reader, "subscribers", db.d.q(`SELECT p.id, p.email, p.first_name, p.last_name
		FROM task_subscribers s JOIN tasks t ON t.id = s.task_id JOIN persons p ON p.id = s.person_id
		WHERE t.account_id = ? AND s.task_id = ? ORDER BY p.first_name, p.last_name, p.email`), scanRef, accountID, taskID)
}

// ProjectSubscribers returns the subscribers of a project's tasks by task.
func (db *DB) ProjectSubscribers(ctx context.Context, accountID, projectID int64) (map[int64][]taskd.PersonRef, error) {
	type row struct {
		task int64
		ref  taskd.PersonRef
	}
	rows, err := all(ctx, db.reader, "project subscribers", db.d.q(`SELECT s.task_id, p.id, p.email, p.first_name, p.last_name
		FROM task_subscribers s JOIN tasks t ON t.id = s.task_id JOIN persons p ON p.id = s.person_id
		WHERE t.account_id = ? AND t.project_id = ? ORDER BY s.task_id, p.first_name, p.last_name, p.email`), func(s scanner) (row, error) {
		var r row
		var id int64
		var email, first, last string
		err := s.Scan(&r.task, &id, &email, &first, &last)
		r.ref = personRef(id, email, first, last)
		return r, err
	}, accountID, projectID)
	out := make(map[int64][]taskd.PersonRef)
	for _, r := range rows {
		out[r.task] = append(out[r.task], r.ref)
	}
	return out, err
}

// Subscribe subscribes or unsubscribes a member to a task; doing it twice
// is no error.
func (db *DB) Subscribe(ctx context.Context, by taskd.Actor, taskID int64, email string, on bool) error {
	if err := taskd.Authorize(by, taskd.PermWork); err != nil {
		return err
	}
	return db.tx(ctx, "subscribe", func(tx querier) error {
		if _, err := db.task(ctx, tx, by.Viewer(), taskID, false); err != nil {
			return err
		}
		m, err := db.memberByEmail(ctx, tx, by.AccountID, email)
		if err != nil {
			return err
		}
		return db.subscribe(ctx, tx, taskID, m.ID, on)
	})
}

func (db *DB) subscribe(ctx context.Context, tx querier, taskID, personID int64, on bool) error {
	q := `INSERT INTO task_subscribers (task_id, person_id) VALUES (?, ?) ON CONFLICT DO NOTHING`
	if !on {
		q = `DELETE FROM task_subscribers WHERE task_id = ? AND person_id = ?`
	}
	_, err := tx.ExecContext(ctx, db.d.q(q), taskID, personID)
	return err
}

// SetPassword changes a person's password hash, and ends every session
// and every reset or e-mail link of theirs, and what c asks to end beside
// them: every authorization of an application they gave, their calendar
// feed's secret.
func (db *DB) SetPassword(ctx context.Context, personID int64, c taskd.PasswordChange) (taskd.PasswordEnded, error) {
	var ended taskd.PasswordEnded
	err := db.trustTx(ctx, "set password", func(tx querier) error {
		ended = taskd.PasswordEnded{}
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE persons SET password_hash = ? WHERE id = ?`), c.Hash, personID)
		if err := oneRow(res, err, "person"); err != nil {
			return err
		}
		if c.EndGrants {
			if ended.Grants, err = db.endPersonGrants(ctx, tx, personID); err != nil {
				return err
			}
		}
		if c.EndFeed {
			if ended.Feed, err = db.endFeed(ctx, tx, personID); err != nil {
				return err
			}
		}
		return db.credentialsChanged(ctx, tx, personID)
	})
	return ended, err
}

// SetProfile changes a person's names and profile.
func (db *DB) SetProfile(ctx context.Context, personID int64, first, last string, p taskd.Profile) (taskd.Person, error) {
	var out taskd.Person
	err := db.tx(ctx, "set profile", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE persons SET first_name = ?, last_name = ?, title = ?, phone = ?, phone2 = ?, phone3 = ?,
			phone4 = ?, address = ?, address2 = ?, time_zone = ?, notify = ? WHERE id = ?`),
			first, last, p.Title, p.Phone, p.Phone2, p.Phone3, p.Phone4, p.Address, p.Address2, p.TimeZone, flag(p.Notify), personID)
		if err := oneRow(res, err, "person"); err != nil {
			return err
		}
		if err := db.renamed(ctx, tx, personID); err != nil {
			return err
		}
		out, err = db.personByID(ctx, tx, personID)
		return err
	})
	return out, err
}

// RemoveMember ends a membership. The person's tasks in the account are
// assigned to nobody, their project memberships and subscriptions there
// end; what they wrote stays. What the membership gave them ends with it
// (trustChanged).
func (db *DB) RemoveMember(ctx context.Context, by taskd.Actor, personID int64) (taskd.TrustEnded, error) {
	var ended taskd.TrustEnded
	if err := taskd.Authorize(by, taskd.PermManagePeople); err != nil {
		return ended, err
	}
	err := db.trustTx(ctx, "remove member", func(tx querier) error {
		var role string
		err := tx.QueryRowContext(ctx, db.d.q(`SELECT role FROM members WHERE account_id = ? AND person_id = ?`), by.AccountID, personID).Scan(&role)
		if errors.Is(err, sql.ErrNoRows) {
			return taskd.NotFound("member")
		}
		if err != nil {
			return err
		}
		if taskd.Role(role) == taskd.RoleOwner {
			return taskd.Forbidden("member", "The owner cannot be removed")
		}
		for _, q := range []string{
			`DELETE FROM members WHERE account_id = ? AND person_id = ?`,
			`UPDATE tasks SET assignee_id = 1 WHERE account_id = ? AND assignee_id = ?`,
			`UPDATE projects SET manager_id = 1 WHERE account_id = ? AND manager_id = ?`,
			`UPDATE projects SET default_assignee_id = 0 WHERE account_id = ? AND default_assignee_id = ?`,
			`DELETE FROM project_members WHERE project_id IN (SELECT id FROM projects WHERE account_id = ?) AND person_id = ?`,
			`DELETE FROM task_subscribers WHERE task_id IN (SELECT id FROM tasks WHERE account_id = ?) AND person_id = ?`,
			`DELETE FROM schedule_weeks WHERE account_id = ? AND person_id = ?`,
			`DELETE FROM schedule_days WHERE account_id = ? AND person_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, db.d.q(q), by.AccountID, personID); err != nil {
				return err
			}
		}
		// The cached task lists name the person: new versions drop them.
		if _, err = tx.ExecContext(ctx, db.d.q(`UPDATE projects SET version = version + 1 WHERE account_id = ?`), by.AccountID); err != nil {
			return err
		}
		ended, err = db.trustChanged(ctx, tx, by.AccountID, personID, "")
		return err
	})
	return ended, err
}

// renamed drops the cached task lists of every account the person is a
// member of (they carry the person's name and address): each project gets
// a new version.
func (db *DB) renamed(ctx context.Context, tx querier, personID int64) error {
	_, err := tx.ExecContext(ctx, db.d.q(`UPDATE projects SET version = version + 1
		WHERE account_id IN (SELECT account_id FROM members WHERE person_id = ?)`), personID)
	return err
}
