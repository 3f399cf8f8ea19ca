package store

import "context"

// RelationRowsForTest counts the stored relations with the task at
// either end, whether or not the task is still there.
func (db *DB) RelationRowsForTest(ctx context.Context, taskID int64) (int, error) {
	var n int
	err := db.read.QueryRowContext(ctx, db.d.q(`SELECT COUNT(*) FROM task_relations WHERE from_task_id = ? OR to_task_id = ?`), taskID, taskID).Scan(&n)
	return n, err
}
