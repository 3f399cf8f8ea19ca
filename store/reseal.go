package store

import (
	"context"
	"fmt"

	"github.com/taskd/taskd"
)

// The kinds of sealed values Reseal hands out, with what their owner is.
const (
	SealedAPIKey        = "api key"          // owner: the account's slug
	SealedWebhookSecret = "webhook secret"   // owner: the account's id
	SealedWebhookPass   = "webhook password" // owner: the account's id
	SealedSigningKey    = "signing key"      // owner: empty
	SealedMail          = "mail"             // owner: the recipient's address
)

// sealedColumns lists every sealed value: how to read each with its row
// and owner, how to write it back, and how to count those not empty.
var sealedColumns = []struct{ kind, read, write, count string }{
	{SealedAPIKey, `SELECT id, slug, api_key FROM accounts`, `UPDATE accounts SET api_key = ? WHERE id = ?`,
		`SELECT COUNT(*) FROM accounts WHERE length(api_key) > 0`},
	{SealedWebhookSecret, `SELECT id, account_id, secret FROM webhooks`, `UPDATE webhooks SET secret = ? WHERE id = ?`,
		`SELECT COUNT(*) FROM webhooks WHERE length(secret) > 0`},
	{SealedWebhookPass, `SELECT id, account_id, http_pass FROM webhooks WHERE http_pass IS NOT NULL`, `UPDATE webhooks SET http_pass = ? WHERE id = ?`,
		`SELECT COUNT(*) FROM webhooks WHERE length(http_pass) > 0`},
	{SealedSigningKey, `SELECT kid, '', private_key FROM signing_keys`, `UPDATE signing_keys SET private_key = ? WHERE kid = ?`,
		`SELECT COUNT(*) FROM signing_keys WHERE length(private_key) > 0`},
	{SealedMail, `SELECT id, to_addr, body FROM mail_outbox`, `UPDATE mail_outbox SET body = ? WHERE id = ?`,
		`SELECT COUNT(*) FROM mail_outbox WHERE length(body) > 0`},
}

// Sealed counts the sealed values in the database by kind (the kinds
// Reseal hands out), leaving out empty ones (a revoked API key): what only
// the master key that sealed them opens. A kind the database holds none of
// is absent from the map.
func (db *DB) Sealed(ctx context.Context) (map[string]int, error) {
	counts := map[string]int{}
	for _, c := range sealedColumns {
		var n int
		if err := db.reader.QueryRow(ctx, db.d.q(c.count)).Scan(&n); err != nil {
			return nil, taskd.Internal("count "+c.kind+"s", err)
		}
		if n > 0 {
			counts[c.kind] = n
		}
	}
	return counts, nil
}

// Reseal passes every sealed value in the database to fn, with its kind
// and owner, and stores what fn returns, in one transaction: the step of a
// master-key rotation that retires the old key. It returns how many values
// of each kind it rewrote; an error from fn changes nothing.
func (db *DB) Reseal(ctx context.Context, fn func(kind, owner string, sealed []byte) ([]byte, error)) (map[string]int, error) {
	var counts map[string]int
	err := db.tx(ctx, "reseal", func(tx querier) error {
		counts = map[string]int{}
		for _, c := range sealedColumns {
			type row struct {
				id     any
				owner  string
				sealed []byte
			}
			rows, err := allOnce(ctx, tx, c.read, func(s scanner) (row, error) {
				var r row
				err := s.Scan(&r.id, &r.owner, &r.sealed)
				return r, err
			})
			if err != nil {
				return fmt.Errorf("read %ss: %w", c.kind, err)
			}
			for _, r := range rows {
				if len(r.sealed) == 0 {
					continue
				}
				v, err := fn(c.kind, r.owner, r.sealed)
				if err != nil {
					return fmt.Errorf("%s of %s: %w", c.kind, r.owner, err)
				}
				if _, err := tx.ExecContext(ctx, db.d.q(c.write), v, r.id); err != nil {
					return err
				}
				counts[c.kind]++
			}
		}
		return nil
	})
	return counts, err
}
