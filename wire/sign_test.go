package wire_test

import (
	"testing"
	"time"

	"github.com/taskd/taskd/wire"
)

// TestHash: the published example of the administrative API (compat).
func TestHash(t *testing.T) {
	const key = "7776461cd931e7b1c8e9632ff8e979ce"
	if got := wire.Hash("action=get_tasks&id_project=26", key); got != "ec3ab2c28f21b4a07424f8ed688d6644" {
		t.Fatalf("Hash = %s, want ec3ab2c28f21b4a07424f8ed688d6644", got)
	}
}

// TestAdminHeader: the header names the time in Unix seconds and the
// HMAC-SHA256 of "action:time" under the key, in hex.
func TestAdminHeader(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	const want = "Admin 1800000000_"
	got := wire.AdminHeader("secret-key", "get_tasks", now)
	if len(got) != len(want)+64 || got[:len(want)] != want {
		t.Fatalf("AdminHeader = %q, want %q and 64 hex digits", got, want)
	}
	if other := wire.AdminHeader("secret-key", "delete_task", now); other == got {
		t.Errorf("the header of another action is the same: %q", other)
	}
}
