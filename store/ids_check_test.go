package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/store"
)

// tableRows is a table's row count and a hash of its rows, in any order.
type tableRows struct {
	n    int
	hash string
}

// repairedColumns are the columns of events that migration 0036 may
// change (the repair); the others stay as they were.
var repairedColumns = map[string]bool{"task_id": true, "related_task_id": true, "comment_id": true, "project_id": true}

// snapshot reads every table of the SQLite database but sqlite_sequence
// and schema_migrations: its rows and a hash of them; of the events in
// repairable (those the repair may point at no object), only the columns
// the repair leaves, and of every other event, every column: an event
// the repair must leave, such as one written in the same millisecond as
// its task, is as it was.
func snapshot(t *testing.T, raw *sql.DB, repairable map[int64]bool) map[string]tableRows {
	t.Helper()
	out := map[string]tableRows{}
	row := func(cols []string) string {
		q := make([]string, len(cols))
		for i, c := range cols {
			q[i] = `quote("` + c + `")`
		}
		return strings.Join(q, ` || ',' || `)
	}
	for _, table := range column(t, raw, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT IN ('sqlite_sequence', 'schema_migrations') AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'`) {
		cols := column(t, raw, `SELECT name FROM pragma_table_info('`+table+`')`)
		expr := row(cols)
		if table == "events" && len(repairable) > 0 {
			var ids []string
			for _, id := range slices.Sorted(maps.Keys(repairable)) {
				ids = append(ids, strconv.FormatInt(id, 10))
			}
			kept := slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return repairedColumns[c] })
			expr = `CASE WHEN id IN (` + strings.Join(ids, ", ") + `) THEN ` + row(kept) + ` ELSE ` + expr + ` END`
		}
		rows := column(t, raw, `SELECT `+expr+` FROM "`+table+`"`)
		slices.Sort(rows)
		out[table] = tableRows{len(rows), fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(rows, "\n"))))}
	}
	return out
}

// checkRows fails the test where a table's rows changed.
func checkRows(t *testing.T, before, after map[string]tableRows) {
	t.Helper()
	for table, b := range before {
		if a := after[table]; a != b {
			t.Errorf("table %s: %d rows after the migration (hash %.8s), %d before (%.8s)", table, a.n, a.hash, b.n, b.hash)
		}
	}
	for table := range after {
		if _, ok := before[table]; !ok {
			t.Errorf("table %s is new after the migration", table)
		}
	}
}

// schemaOf is the SQLite database's tables, indexes and triggers, each as
// "type name on table: sql", with AUTOINCREMENT and the quotes of a
// renamed table's name left out.
func schemaOf(t *testing.T, raw *sql.DB) []string {
	t.Helper()
	quoted := regexp.MustCompile(`^CREATE TABLE "(\w+)"`)
	var out []string
	for _, s := range column(t, raw, `SELECT type || ' ' || name || ' on ' || tbl_name || ': ' || COALESCE(sql, '')
		FROM sqlite_master WHERE name <> 'sqlite_sequence'`) {
		head, sql, _ := strings.Cut(s, ": ")
		sql = quoted.ReplaceAllString(strings.ReplaceAll(sql, " AUTOINCREMENT", ""), "CREATE TABLE $1")
		out = append(out, head+": "+sql)
	}
	slices.Sort(out)
	return out
}

// checkSchema fails the test where the schema differs but for
// AUTOINCREMENT: every definition, index and trigger came back.
func checkSchema(t *testing.T, before, after []string) {
	t.Helper()
	for _, s := range before {
		if !slices.Contains(after, s) {
			t.Errorf("after the migration, the schema lacks %s", s)
		}
	}
	for _, s := range after {
		if !slices.Contains(before, s) {
			t.Errorf("after the migration, the schema has %s, new", s)
		}
	}
}

// ownID finds the tables whose own id is their rowid.
var ownID = regexp.MustCompile(`\(\s*id\s+INTEGER PRIMARY KEY\b( AUTOINCREMENT)?`)

// checkAutoincrement fails the test for each table of the SQLite
// database whose own id (id INTEGER PRIMARY KEY) is not AUTOINCREMENT:
// SQLite would give a deleted row's id to a new one. FTS5's tables of
// tasks_search keep no object of taskd's.
func checkAutoincrement(t *testing.T, raw *sql.DB) {
	t.Helper()
	n := 0
	for _, s := range column(t, raw, `SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'tasks\_search\_%' ESCAPE '\'`) {
		m := ownID.FindStringSubmatch(s)
		switch {
		case m == nil:
		case m[1] == "":
			t.Errorf("table %s", s[:strings.Index(s, ":")]+" has ids without AUTOINCREMENT: SQLite gives a deleted row's id to the next")
		default:
			n++
		}
	}
	if n < 20 {
		t.Errorf("%d tables have AUTOINCREMENT ids; want every table with ids of its own", n)
	}
}

// checkForeignKeys fails the test when a row names a missing parent.
func checkForeignKeys(t *testing.T, raw *sql.DB) {
	t.Helper()
	if bad := column(t, raw, `SELECT "table" || ' ' || COALESCE(rowid, '') || ' → ' || parent FROM pragma_foreign_key_check`); len(bad) > 0 {
		t.Errorf("rows name a missing parent: %v", bad)
	}
}

// checkNewIDs makes a task, a comment and a project, and fails the test
// unless each id is above the highest its table handed out before.
func checkNewIDs(t *testing.T, db *store.DB, f reused) {
	t.Helper()
	ctx := context.Background()
	made := map[string]int64{
		"tasks":    must(db.CreateTask(ctx, f.owner, f.project, 0, taskd.TaskInput{Name: new("after")}))(t).ID,
		"comments": must(db.CreateComment(ctx, f.owner, f.open, "after"))(t).ID,
		"projects": must(db.CreateProject(ctx, f.owner, taskd.ProjectInput{Name: new("After")}))(t).ID,
	}
	for table, id := range made {
		if id <= f.newest[table] {
			t.Errorf("%s: a new one got id %d; %d was handed out before the migration", table, id, f.newest[table])
		}
	}
}

// column reads the one column of a query's rows as strings.
func column(t *testing.T, raw *sql.DB, query string) []string {
	t.Helper()
	rows, err := raw.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
