// Package pglog counts the statements a PostgreSQL database receives, from
// the server's own statement log: a benchmark enables logging for one
// database (log_statement = 'all', set on the database, so that only new
// sessions to it log), marks where the log file ends, runs its load and
// counts the log lines of that database written since the mark.
//
// It reads the server's log file, so it works only against a server on the
// same machine whose log the benchmark may read (Debian's
// /var/log/postgresql/postgresql-VERSION-main.log by default).
package pglog

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// DefaultPath is the log file Debian's packaged server writes to.
func DefaultPath() (string, error) {
	if p := os.Getenv("TASKD_PG_LOG"); p != "" {
		return p, nil
	}
	m, _ := filepath.Glob("/var/log/postgresql/postgresql-*-main.log")
	if len(m) == 0 {
		return "", errors.New("pglog: no /var/log/postgresql/postgresql-*-main.log; set TASKD_PG_LOG")
	}
	return m[len(m)-1], nil
}

// Enable makes the server log every statement sent to database db from the
// next session on; adminURL is a superuser's URL.
func Enable(ctx context.Context, adminURL, db string) error {
	conn, err := sql.Open("pgx", adminURL)
	if err != nil {
		return fmt.Errorf("pglog: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ALTER DATABASE "`+strings.ReplaceAll(db, `"`, `""`)+`" SET log_statement = 'all'`); err != nil {
		return fmt.Errorf("pglog: enable statement log for %s: %w", db, err)
	}
	return nil
}

// Mark returns where the log file ends now.
func Mark(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("pglog: %w", err)
	}
	return fi.Size(), nil
}

// Statement is one logged statement.
type Statement struct {
	PID  string // the backend's process id
	Text string // the statement's text, its first line
}

// Counts are the statements of one database logged since a mark.
type Counts struct {
	// Statements are all logged statements but BEGIN, COMMIT and ROLLBACK.
	Statements []Statement
	// Transactions counts BEGIN, COMMIT and ROLLBACK statements.
	Transactions int
}

// line matches a statement line of the default log_line_prefix
// ("%m [%p] %q%u@%d "): "… [PID] USER@DB LOG:  statement: TEXT" or
// "… LOG:  execute NAME: TEXT".
var line = regexp.MustCompile(`^\S+ \S+ \S+ \[(\d+)\] [^@\s]*@(\S+) LOG:  (?:statement|execute [^:]*): (.*)$`)

// Count reads the log at path from offset and counts the statements sent
// to database db.
func Count(path string, offset int64, db string) (Counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return Counts{}, fmt.Errorf("pglog: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return Counts{}, fmt.Errorf("pglog: %w", err)
	}
	return Parse(f, db)
}

// Parse counts the statements sent to database db in log text r.
func Parse(r io.Reader, db string) (Counts, error) {
	var c Counts
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil || m[2] != db {
			continue
		}
		text := strings.TrimSpace(m[3])
		switch strings.ToUpper(strings.TrimRight(text, ";")) {
		case "BEGIN", "COMMIT", "ROLLBACK", "BEGIN READ WRITE", "BEGIN READ ONLY", "BEGIN ISOLATION LEVEL READ COMMITTED":
			c.Transactions++
			continue
		}
		c.Statements = append(c.Statements, Statement{PID: m[1], Text: text})
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("pglog: read log: %w", err)
	}
	return c, nil
}
