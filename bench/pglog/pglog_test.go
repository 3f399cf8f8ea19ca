package pglog

import (
	"strings"
	"testing"
)

func TestParseCountsOneDatabasesStatements(t *testing.T) {
	log := `2026-11-26 16:55:02.071 UTC [10903] postgres@bench LOG:  statement: begin
2026-11-26 16:55:02.072 UTC [10903] postgres@bench LOG:  execute stmtcache_1: SELECT id
	FROM tasks WHERE id = $1
2026-11-26 16:55:02.072 UTC [10903] postgres@bench DETAIL:  parameters: $1 = '7'
2026-11-26 16:55:02.073 UTC [10903] postgres@bench LOG:  execute <unnamed>: UPDATE projects SET version = version + 1
2026-11-26 16:55:02.074 UTC [10904] postgres@other LOG:  statement: SELECT 1
2026-11-26 16:55:02.075 UTC [10903] postgres@bench LOG:  statement: COMMIT
2026-11-26 16:55:02.076 UTC [10905] postgres@bench LOG:  statement: SELECT pg_notify($1, $2)
2026-11-26 16:55:02.077 UTC [10905] postgres@bench LOG:  duration: 0.120 ms
`
	c, err := Parse(strings.NewReader(log), "bench")
	if err != nil {
		t.Fatal(err)
	}
	if c.Transactions != 2 {
		t.Errorf("transactions = %d, want 2", c.Transactions)
	}
	var got []string
	for _, s := range c.Statements {
		got = append(got, s.PID+" "+s.Text)
	}
	want := []string{"10903 SELECT id", "10903 UPDATE projects SET version = version + 1", "10905 SELECT pg_notify($1, $2)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("statements = %q, want %q", got, want)
	}
}
