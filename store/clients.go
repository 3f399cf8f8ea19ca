package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/taskd/taskd"
)

var (
	_ taskd.ClientStore     = (*DB)(nil)
	_ taskd.GrantStore      = (*DB)(nil)
	_ taskd.SigningKeyStore = (*DB)(nil)
)

const clientColumns = `c.id, c.account_id, c.client_id, c.secret_hash, c.name, c.redirect_uris, c.created_at, a.name
	FROM clients c JOIN accounts a ON a.id = c.account_id`

func scanClient(s interface{ Scan(...any) error }) (taskd.Client, error) {
	var c taskd.Client
	dest, done := clientDest(&c)
	err := s.Scan(dest...)
	done()
	return c, err
}

// clientDest returns where clientColumns scan to, and done, which finishes
// c after the scan.
func clientDest(c *taskd.Client) (dest []any, done func()) {
	var uris string
	var added int64
	return []any{&c.ID, &c.AccountID, &c.ClientID, &c.SecretHash, &c.Name, &uris, &added, &c.AccountName}, func() {
		c.RedirectURIs = strings.Split(uris, "\n")
		c.Added = fromMS(added)
	}
}

// CreateClient registers an application.
func (db *DB) CreateClient(ctx context.Context, c taskd.Client) (taskd.Client, error) {
	c.Added = db.now().UTC()
	err := db.tx(ctx, "create client", func(tx querier) error {
		return tx.QueryRowContext(ctx, db.d.q(`INSERT INTO clients (account_id, client_id, secret_hash, name, redirect_uris, created_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`), c.AccountID, c.ClientID, c.SecretHash, c.Name,
			strings.Join(c.RedirectURIs, "\n"), ms(c.Added)).Scan(&c.ID)
	})
	return c, err
}

// Client returns the application with the client_id; not found ("client") otherwise.
func (db *DB) Client(ctx context.Context, clientID string) (taskd.Client, error) {
	c, err := scanClient(db.reader.QueryRow(ctx, db.d.q(`SELECT `+clientColumns+` WHERE c.client_id = ?`), clientID))
	if errors.Is(err, sql.ErrNoRows) {
		return c, taskd.NotFound("client")
	}
	if err != nil {
		return c, taskd.Internal("client", err)
	}
	return c, nil
}

// Clients lists the account's applications, oldest first.
func (db *DB) Clients(ctx context.Context, accountID int64) ([]taskd.Client, error) {
	return all(ctx, db.reader, "clients", db.d.q(`SELECT `+clientColumns+` WHERE c.account_id = ? ORDER BY c.id`), scanClient, accountID)
}

// SetClientSecret replaces an application's secret hash; not found when the
// account has no such application.
func (db *DB) SetClientSecret(ctx context.Context, accountID int64, clientID, secretHash string) error {
	return db.tx(ctx, "set client secret", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`UPDATE clients SET secret_hash = ? WHERE account_id = ? AND client_id = ?`),
			secretHash, accountID, clientID)
		return oneRow(res, err, "client")
	})
}

// DeleteClient removes an application and, with it, every grant and token
// it holds; not found when the account has no such application.
func (db *DB) DeleteClient(ctx context.Context, accountID int64, clientID string) error {
	return db.tx(ctx, "delete client", func(tx querier) error {
		res, err := tx.ExecContext(ctx, db.d.q(`DELETE FROM clients WHERE account_id = ? AND client_id = ?`), accountID, clientID)
		return oneRow(res, err, "client")
	})
}

// oneRow turns "no row changed" into not found, naming the field.
func oneRow(res sql.Result, err error, field string) error {
	ok, err := changed(res, err)
	if err == nil && !ok {
		return taskd.NotFound(field)
	}
	return err
}
