package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
)

// fillEveryTable gives every table rows, with the columns that name
// other rows' ids (foreign keys that cascade or set NULL) set, so that a
// migration that loses or changes any is seen; it fails the test if a
// table is left empty (a new table needs a row here).
func fillEveryTable(t *testing.T, db *store.DB, d testdb.DB, f reused) {
	t.Helper()
	ctx := context.Background()
	r := strings.NewReplacer("ACCT", itoa(f.owner.AccountID), "OWNER", itoa(f.owner.Person.ID), "UMA", itoa(f.uma.PersonID),
		"GUS", itoa(f.gus.PersonID), "PROJECT", itoa(f.project), "OPEN", itoa(f.open), "LISTED", itoa(f.listed))
	for _, q := range []string{
		`INSERT INTO teams (account_id, title, created_at) VALUES (ACCT, 'Team', 1)`,
		`UPDATE members SET team_id = (SELECT MAX(id) FROM teams) WHERE person_id = GUS`,
		`INSERT INTO project_folders (account_id, title, created_at) VALUES (ACCT, 'Folder', 1)`,
		`UPDATE projects SET folder_id = (SELECT MAX(id) FROM project_folders) WHERE id = PROJECT`,
		`INSERT INTO contact_folders (account_id, title, created_at) VALUES (ACCT, 'Folder', 1)`,
		`INSERT INTO contacts (account_id, email, folder_id, created_at) VALUES (ACCT, 'c@example.com', (SELECT MAX(id) FROM contact_folders), 1)`,
		`INSERT INTO clients (account_id, client_id, secret_hash, name, redirect_uris, created_at) VALUES (ACCT, 'client', 'h', 'App', 'https://app.example/cb', 1)`,
		`INSERT INTO grants (client_id, account_id, person_id, scope, redirect_uri, code_hash, code_expires_at, created_at, updated_at)
			VALUES ((SELECT MAX(id) FROM clients), ACCT, UMA, 'read', 'https://app.example/cb', 'code', 1, 1, 1)`,
		`INSERT INTO spent_refresh_tokens (hash, grant_id, spent_at) VALUES ('spent', (SELECT MAX(id) FROM grants), 1)`,
		`INSERT INTO signing_keys (kid, private_key, created_at) VALUES ('kid', x'00', 1)`,
		`INSERT INTO sessions (hash, person_id, created_at, expires_at) VALUES ('session', UMA, 1, 9e12)`,
		`INSERT INTO webhooks (account_id, url, events, projects, secret, created_at, by_person)
			VALUES (ACCT, 'https://hook.example', 'post_task', 'PROJECT', x'01', 1, UMA)`,
		`INSERT INTO deliveries (webhook_id, event_id, state, created_at) VALUES ((SELECT MAX(id) FROM webhooks), (SELECT MAX(id) FROM events), 'delivered', 1)`,
		`INSERT INTO attempts (webhook_id, delivery_id, event_id, at, ok) VALUES ((SELECT MAX(id) FROM webhooks), (SELECT MAX(id) FROM deliveries), (SELECT MAX(id) FROM events), 1, 1)`,
		`INSERT INTO webhook_queues (webhook_id, queued_from) VALUES ((SELECT MAX(id) FROM webhooks), 0)`,
		`INSERT INTO rate_counts (key, window_start, hits, expires) VALUES ('k', 1, 1, 9e12)`,
		`INSERT INTO persons (email, password_hash, created_at) VALUES ('ivy@example.com', 'x', 1)`,
		`INSERT INTO invitations (account_id, person_id, role, invited_by, created_at, team_id)
			VALUES (ACCT, (SELECT MAX(id) FROM persons), 'user', OWNER, 1, (SELECT MAX(id) FROM teams))`,
		`INSERT INTO person_tokens (hash, kind, person_id, invitation_id, created_at, expires_at)
			VALUES ('token', 'invite', (SELECT MAX(id) FROM persons), (SELECT MAX(id) FROM invitations), 1, 9e12)`,
		`INSERT INTO mail_outbox (to_addr, subject, kind, body, state, created_at, next_at) VALUES ('u@example.com', 'Hi', 'notice', x'02', 'pending', 1, 1)`,
		`INSERT INTO notifications (account_id, person_id, task_id, task_name, task_page, line, created_at) VALUES (ACCT, UMA, OPEN, 'open', '/t', 'line', 1)`,
		`INSERT INTO tag_groups (account_id, kind, title, type, access, created_at) VALUES (ACCT, 'task', 'Stage', 'label', 'public', 1)`,
		`INSERT INTO tags (group_id, title) VALUES ((SELECT MAX(id) FROM tag_groups), 'doing')`,
		`INSERT INTO task_tags (task_id, tag_id) VALUES (OPEN, (SELECT MAX(id) FROM tags))`,
		`INSERT INTO project_tags (project_id, tag_id) VALUES (PROJECT, (SELECT MAX(id) FROM tags))`,
		`INSERT INTO custom_fields (account_id, kind, name, type, created_at) VALUES (ACCT, 'task', 'Size', 'number', 1)`,
		`INSERT INTO task_field_values (task_id, field_id, value, number) VALUES (OPEN, (SELECT MAX(id) FROM custom_fields), '3', 3)`,
		`INSERT INTO project_field_values (project_id, field_id, value) VALUES (PROJECT, (SELECT MAX(id) FROM custom_fields), '4')`,
		`INSERT INTO costs (account_id, project_id, task_id, top_task_id, person_id, minutes, cents, day, created_at)
			VALUES (ACCT, PROJECT, OPEN, OPEN, UMA, 30, 0, '2026-01-02', 1)`,
		`INSERT INTO timers (account_id, person_id, task_id, started_at) VALUES (ACCT, UMA, OPEN, 1)`,
		`INSERT INTO files (account_id, owner, owner_id, project_id, task_id, name, content_type, author_id, complete, created_at)
			VALUES (ACCT, 'task', OPEN, PROJECT, OPEN, 'a.txt', 'text/plain', UMA, 1, 1)`,
		`INSERT INTO file_chunks (file_id, seq, data) VALUES ((SELECT MAX(id) FROM files), 0, x'03')`,
		`INSERT INTO task_relations (account_id, from_task_id, to_task_id, type, created_at) VALUES (ACCT, OPEN, LISTED, 'start-to-start', 1)`,
		`INSERT INTO schedule_weeks (account_id, person_id, weekday, minutes) VALUES (ACCT, UMA, 1, 480)`,
		`INSERT INTO schedule_days (account_id, person_id, day, minutes) VALUES (ACCT, UMA, '2026-01-02', 240)`,
		`INSERT INTO ical_tokens (person_id, hash, created_at) VALUES (UMA, 'ical', 1)`,
		`INSERT INTO import_waiting (account_id, email, role, object_id, created_at) VALUES (ACCT, 'w@example.com', 'task_author', OPEN, 1)`,
	} {
		if err := db.ExecForTest(ctx, r.Replace(q)); err != nil {
			t.Fatalf("%s: %v", r.Replace(q), err)
		}
	}
	for table, rows := range snapshot(t, openRaw(t, d), nil) {
		if rows.n == 0 {
			t.Errorf("table %s is empty: give it a row here", table)
		}
	}
}
