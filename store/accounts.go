package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/taskd/taskd"
)

// CreateAccount creates an account and makes the owner its owner member. An
// owner whose e-mail is already registered joins as that existing person.
func (db *DB) CreateAccount(ctx context.Context, a taskd.NewAccount) (taskd.Account, taskd.Person, error) {
	acct := taskd.Account{Slug: a.Slug, Name: a.Name, APIKey: a.APIKey, Added: db.now().UTC(), Currency: taskd.DefaultCurrency}
	var owner taskd.Person
	err := db.tx(ctx, "create account", func(tx querier) error {
		err := tx.QueryRowContext(ctx, db.d.q(`INSERT INTO accounts (slug, name, api_key, created_at)
			VALUES (?, ?, ?, ?) RETURNING id`), a.Slug, a.Name, a.APIKey, ms(acct.Added)).Scan(&acct.ID)
		if isUnique(err) {
			return taskd.Conflict(taskd.ReasonNone, "slug", "An account with this slug already exists")
		}
		if err != nil {
			return err
		}
		owner, err = db.addMember(ctx, tx, acct.ID, a.Owner, taskd.RoleOwner)
		return err
	})
	return acct, owner, err
}

// addMember finds or creates the person and adds the membership.
func (db *DB) addMember(ctx context.Context, tx querier, accountID int64, np taskd.NewPerson, role taskd.Role) (taskd.Person, error) {
	p, err := db.personByEmail(ctx, tx, np.Email)
	if taskd.IsNotFound(err) {
		p, err = db.createPerson(ctx, tx, np)
	}
	if err != nil {
		return p, err
	}
	_, err = tx.ExecContext(ctx, db.d.q(`INSERT INTO members (account_id, person_id, role, created_at) VALUES (?, ?, ?, ?)`),
		accountID, p.ID, string(role), ms(db.now()))
	if isUnique(err) {
		return p, taskd.Conflict(taskd.ReasonNone, "email", "This person is already a member of the account")
	}
	if err != nil {
		return p, err
	}
	// A membership answers any invitation to the account, and takes what
	// an import kept for the person (issue 36).
	if _, err = tx.ExecContext(ctx, db.d.q(`DELETE FROM invitations WHERE account_id = ? AND person_id = ?`), accountID, p.ID); err != nil {
		return p, err
	}
	m, err := db.memberByEmail(ctx, tx, accountID, p.Email)
	if err != nil {
		return p, err
	}
	return p, db.applyWaiting(ctx, tx, accountID, m)
}

// createPerson registers a person new to taskd. A conflict when the e-mail
// was registered by a transaction that committed meanwhile.
func (db *DB) createPerson(ctx context.Context, tx querier, np taskd.NewPerson) (taskd.Person, error) {
	p := taskd.Person{Email: np.Email, PasswordHash: np.PasswordHash, FirstName: np.FirstName, LastName: np.LastName,
		Profile: taskd.Profile{Title: np.Title, Notify: true}}
	err := tx.QueryRowContext(ctx, db.d.q(`INSERT INTO persons (email, password_hash, first_name, last_name, title, created_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`), p.Email, p.PasswordHash, p.FirstName, p.LastName, p.Title, ms(db.now())).Scan(&p.ID)
	if isUnique(err) {
		return p, taskd.Conflict(taskd.ReasonNone, "email", "This e-mail was registered at the same moment; try again")
	}
	return p, err
}

// AccountBySlug returns the account with the slug; not found ("account") when there is none.
func (db *DB) AccountBySlug(ctx context.Context, slug string) (taskd.Account, error) {
	a := taskd.Account{Slug: slug}
	var added int64
	err := db.reader.QueryRow(ctx, db.d.q(`SELECT id, name, api_key, created_at, time_zone, currency FROM accounts WHERE slug = ?`), slug).
		Scan(&a.ID, &a.Name, &a.APIKey, &added, &a.TimeZone, &a.Currency)
	if errors.Is(err, sql.ErrNoRows) {
		return a, taskd.NotFound("account")
	}
	if err != nil {
		return a, taskd.Internal("account by slug", err)
	}
	a.Added = fromMS(added)
	return a, nil
}

// SetAPIKey replaces the account's sealed administrative key, recording
// the person it is shown to (by; 0 for none).
func (db *DB) SetAPIKey(ctx context.Context, accountID int64, sealed []byte, by int64) error {
	return db.tx(ctx, "set api key", func(tx querier) error {
		_, err := tx.ExecContext(ctx, db.d.q(`UPDATE accounts SET api_key = ?, api_key_by = ? WHERE id = ?`), sealed, nullID(by), accountID)
		return err
	})
}

// nullID is an optional reference: NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// PersonByEmail returns the person with the (normalised) e-mail; not found ("person") otherwise.
func (db *DB) PersonByEmail(ctx context.Context, email string) (taskd.Person, error) {
	return db.personByEmail(ctx, db.reader, email)
}

func (db *DB) personByEmail(ctx context.Context, q querier, email string) (taskd.Person, error) {
	p, err := scanPerson(q.QueryRowContext(ctx, db.d.q(`SELECT `+personColumns+` FROM persons p WHERE p.email = ?`), email))
	if errors.Is(err, sql.ErrNoRows) {
		return p, taskd.NotFound("person")
	}
	if err != nil {
		return p, taskd.Internal("person by email", err)
	}
	return p, nil
}

// AddMember adds a person to the account, creating the person if needed.
// A conflict when they are already a member.
func (db *DB) AddMember(ctx context.Context, accountID int64, np taskd.NewPerson, role taskd.Role) (taskd.Person, error) {
	var p taskd.Person
	err := db.tx(ctx, "add member", func(tx querier) error {
		var err error
		p, err = db.addMember(ctx, tx, accountID, np, role)
		return err
	})
	return p, err
}

const memberColumns = `p.id, p.email, p.password_hash, p.first_name, p.last_name, ` + profileColumns + `,
	m.role, COALESCE(t.title, ''), m.department, m.rate, m.created_at
	FROM members m JOIN persons p ON p.id = m.person_id LEFT JOIN teams t ON t.id = m.team_id`

// profileColumns are a person's profile, from persons p (scanProfile).
const profileColumns = `p.title, p.phone, p.phone2, p.phone3, p.phone4, p.address, p.address2, p.time_zone, p.notify`

// profileDest returns the scan destinations of profileColumns.
func profileDest(pr *taskd.Profile, notify *int64) []any {
	return []any{&pr.Title, &pr.Phone, &pr.Phone2, &pr.Phone3, &pr.Phone4, &pr.Address, &pr.Address2, &pr.TimeZone, notify}
}

func scanMember(s interface{ Scan(...any) error }) (taskd.Member, error) {
	var m taskd.Member
	var role string
	var notify, added int64
	var rate sql.NullInt64
	dest := append([]any{&m.ID, &m.Email, &m.PasswordHash, &m.FirstName, &m.LastName}, profileDest(&m.Profile, &notify)...)
	err := s.Scan(append(dest, &role, &m.Team, &m.Department, &rate, &added)...)
	m.Role, m.Notify, m.Added = taskd.Role(role), notify != 0, fromMS(added)
	if rate.Valid {
		m.Rate = &rate.Int64
	}
	return m, err
}

// personColumns select a whole person from persons p (scanPerson).
const personColumns = `p.id, p.email, p.password_hash, p.first_name, p.last_name, ` + profileColumns

func scanPerson(s scanner) (taskd.Person, error) {
	var p taskd.Person
	var notify int64
	err := s.Scan(append([]any{&p.ID, &p.Email, &p.PasswordHash, &p.FirstName, &p.LastName}, profileDest(&p.Profile, &notify)...)...)
	p.Notify = notify != 0
	return p, err
}

// Members lists the account's members in the order they joined.
func (db *DB) Members(ctx context.Context, accountID int64) ([]taskd.Member, error) {
	return all(ctx, db.reader, "members", db.d.q(`SELECT `+memberColumns+` WHERE m.account_id = ? ORDER BY m.created_at, p.id`), scanMember, accountID)
}

// Owner returns the account's owner.
func (db *DB) Owner(ctx context.Context, accountID int64) (taskd.Member, error) {
	m, err := scanMember(db.reader.QueryRow(ctx, db.d.q(`SELECT `+memberColumns+
		` WHERE m.account_id = ? AND m.role = 'owner' ORDER BY p.id LIMIT 1`), accountID))
	if err != nil {
		return m, taskd.Internal("owner", err)
	}
	return m, nil
}

// MemberByEmail returns the account's member with the e-mail; not found
// ("member", the e-mail as value) otherwise.
func (db *DB) MemberByEmail(ctx context.Context, accountID int64, email string) (taskd.Member, error) {
	return db.memberByEmail(ctx, db.reader, accountID, email)
}

// notMember reports an e-mail that names no member of the account.
func notMember(email string) error {
	return &taskd.Error{Kind: taskd.KindNotFound, Field: "member", Value: email, Message: "User is not a member of this account"}
}

func (db *DB) memberByEmail(ctx context.Context, q querier, accountID int64, email string) (taskd.Member, error) {
	m, err := scanMember(q.QueryRowContext(ctx, db.d.q(`SELECT `+memberColumns+` WHERE m.account_id = ? AND p.email = ?`), accountID, email))
	if errors.Is(err, sql.ErrNoRows) {
		return m, notMember(email)
	}
	if err != nil {
		return m, taskd.Internal("member by email", err)
	}
	return m, nil
}

// resolvePerson turns an assignee or manager e-mail (a member's, ANY or
// NOONE) into a reference; not found ("member") when it names no member.
func (db *DB) resolvePerson(ctx context.Context, q querier, accountID int64, email string, allowAny bool) (taskd.PersonRef, error) {
	switch email {
	case "", "NOONE":
		return taskd.Nobody, nil
	case "ANY":
		if allowAny {
			return taskd.Anyone, nil
		}
	}
	e, err := taskd.NormalizeEmail(email)
	if err != nil {
		return taskd.PersonRef{}, notMember(email)
	}
	m, err := db.memberByEmail(ctx, q, accountID, e)
	if err != nil {
		return taskd.PersonRef{}, err
	}
	return m.Ref(), nil
}

// personRef builds a reference from joined columns; ids 1 and 2 are pseudo-people.
func personRef(id int64, email, first, last string) taskd.PersonRef {
	switch id {
	case taskd.NobodyID:
		return taskd.Nobody
	case taskd.AnyoneID:
		return taskd.Anyone
	}
	return taskd.Person{ID: id, Email: email, FirstName: first, LastName: last}.Ref()
}

// SetRole changes a member's role to admin, user, guest or reader, and
// ends what the old role gave beyond the new one (trustChanged). The
// owner's role does not change (forbidden); an unknown member is not found.
func (db *DB) SetRole(ctx context.Context, by taskd.Actor, personID int64, role taskd.Role) (taskd.TrustEnded, error) {
	var ended taskd.TrustEnded
	if _, err := taskd.ParseRole(string(role)); err != nil || role == taskd.RoleOwner {
		return ended, taskd.Invalid("role", "Role must be admin, user, guest or reader")
	}
	if !by.Role.MayGrant(role) {
		return ended, taskd.Forbidden("role", "Your role (%s) may not make someone %s", by.Role, role)
	}
	accountID := by.AccountID
	err := db.trustTx(ctx, "set role", func(tx querier) error {
		var current string
		err := tx.QueryRowContext(ctx, db.d.q(`SELECT role FROM members WHERE account_id = ? AND person_id = ?`), accountID, personID).Scan(&current)
		if errors.Is(err, sql.ErrNoRows) {
			return taskd.NotFound("member")
		}
		if err != nil {
			return err
		}
		if taskd.Role(current) == taskd.RoleOwner {
			return taskd.Forbidden("role", "The owner's role cannot be changed")
		}
		if taskd.Role(current) != role { // a new sight begins (sightBegan)
			_, err = tx.ExecContext(ctx, db.d.q(`UPDATE members SET role = ?, role_since = ? WHERE account_id = ? AND person_id = ?`),
				string(role), ms(db.now()), accountID, personID)
			if err != nil {
				return err
			}
		}
		ended, err = db.trustChanged(ctx, tx, accountID, personID, role)
		return err
	})
	return ended, err
}

// SetAccountCurrency sets the account's currency.
func (db *DB) SetAccountCurrency(ctx context.Context, accountID int64, code string) error {
	res, err := db.exec(ctx, "set account currency", `UPDATE accounts SET currency = ? WHERE id = ?`, code, accountID)
	return oneRow(res, err, "account")
}

// SetAccountZone sets the account's time zone.
func (db *DB) SetAccountZone(ctx context.Context, accountID int64, zone string) error {
	res, err := db.exec(ctx, "set account zone", `UPDATE accounts SET time_zone = ? WHERE id = ?`, zone, accountID)
	return oneRow(res, err, "account")
}

// AccountAndProjectVersion is AccountBySlug and, in the same query,
// ProjectVersion of the account's project projectID for the administrative
// key (taskd.AccountViewer): what a get_tasks call with the key reads before
// it can answer from the rendered-list cache. seen is false when the key sees
// no such project; not found ("account") when there is no account.
func (db *DB) AccountAndProjectVersion(ctx context.Context, slug string, projectID int64) (a taskd.Account, version int64, seen bool, err error) {
	a.Slug = slug
	// One indexed lookup, run without the request's cancellation: watching
	// a context costs more than the lookup (a goroutine each in
	// database/sql and in the SQLite driver, per query).
	ctx = context.WithoutCancel(ctx)
	// The key's condition does not depend on the account (it sees all of
	// it); it is asked all the same, so the rule stays in viewer.go.
	cond := projectSeen(taskd.AccountViewer(0), "pr.id")
	var added int64
	var v sql.NullInt64
	err = db.reader.QueryRow(ctx, db.d.q(`SELECT a.id, a.name, a.api_key, a.created_at, a.time_zone, a.currency,
		(SELECT pr.version FROM projects pr WHERE pr.account_id = a.id AND pr.id = ?`+cond.where()+`)
		FROM accounts a WHERE a.slug = ?`), append(append([]any{projectID}, cond.args...), slug)...).
		Scan(&a.ID, &a.Name, &a.APIKey, &added, &a.TimeZone, &a.Currency, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return a, 0, false, taskd.NotFound("account")
	}
	if err != nil {
		return a, 0, false, taskd.Internal("account and project version", err)
	}
	a.Added = fromMS(added)
	return a, v.Int64, v.Valid, nil
}

// AccountAndOwner is AccountBySlug and, in the same query, Owner: what a
// change with the administrative key reads before it runs as the owner.
// found is false, with no error, when the query finds no such pair (no
// account, or one without an owner): the caller reads them apart then, to
// fail as it would have.
func (db *DB) AccountAndOwner(ctx context.Context, slug string) (a taskd.Account, owner taskd.Member, found bool, err error) {
	a.Slug = slug
	// Run without the request's cancellation, as AccountAndProjectVersion.
	ctx = context.WithoutCancel(ctx)
	var added int64
	row := db.reader.QueryRow(ctx, db.d.q(`SELECT a.id, a.name, a.api_key, a.created_at, a.time_zone, a.currency, `+memberColumns+`
		JOIN accounts a ON a.id = m.account_id WHERE a.slug = ? AND m.role = 'owner' ORDER BY p.id LIMIT 1`), slug)
	owner, err = scanMember(scanPrefix{row, []any{&a.ID, &a.Name, &a.APIKey, &added, &a.TimeZone, &a.Currency}})
	if errors.Is(err, sql.ErrNoRows) {
		return a, owner, false, nil
	}
	if err != nil {
		return a, owner, false, taskd.Internal("account and owner", err)
	}
	a.Added = fromMS(added)
	return a, owner, true, nil
}

// scanPrefix scans a row's first columns into dest and the rest as its
// scanner's caller asks.
type scanPrefix struct {
	row  interface{ Scan(...any) error }
	dest []any
}

// Scan scans the prefix's columns, then dest.
func (s scanPrefix) Scan(dest ...any) error { return s.row.Scan(append(s.dest, dest...)...) }
