package api

import (
	"net/url"
	"testing"
	"time"

	"github.com/taskd/taskd/wire"
)

func TestHashTestVector(t *testing.T) {
	t.Parallel()
	// The published example of the administrative API (compat).
	const key = "7776461cd931e7b1c8e9632ff8e979ce"
	if got := wire.Hash("action=get_tasks&id_project=26", key); got != "ec3ab2c28f21b4a07424f8ed688d6644" {
		t.Fatalf("Hash = %s", got)
	}
	if !checkHash("action=get_tasks&id_project=26&hash=ec3ab2c28f21b4a07424f8ed688d6644", "ec3ab2c28f21b4a07424f8ed688d6644", []byte(key)) {
		t.Fatal("test vector refused")
	}
	if !checkHash("hash=EC3AB2C28F21B4A07424F8ED688D6644&action=get_tasks&id_project=26", "EC3AB2C28F21B4A07424F8ED688D6644", []byte(key)) {
		t.Fatal("upper-case hash or leading hash pair refused")
	}
}

func TestHashEncodings(t *testing.T) {
	t.Parallel()
	key := []byte("k")
	sent := "action=post_task&title=Fix%20the%20bug~now&text=a+b"
	for _, tc := range []struct {
		name, signedOver string
		want             bool
	}{
		{"raw remainder", sent, true},
		{"percent-decoded", "action=post_task&title=Fix the bug~now&text=a b", true},
		{"php re-encoded", "action=post_task&title=Fix+the+bug%7Enow&text=a+b", true},
		{"other content", "action=post_task&title=Fix", false},
		{"wrong key", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := wire.Hash(tc.signedOver, string(key))
			if got := checkHash(sent+"&hash="+h, h, key); got != tc.want {
				t.Fatalf("checkHash = %v, want %v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "zz", "ec3ab2c28f21b4a07424f8ed688d66", "not-hex-not-hex-not-hex-not-hex-"} {
		if checkHash("action=x", bad, key) {
			t.Fatalf("malformed hash %q accepted", bad)
		}
	}
}

func TestAdminHeader(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	key := "secret-key"
	h := wire.AdminHeader(key, "get_tasks", now)
	for _, tc := range []struct {
		name, header, action string
		at                   time.Time
		want                 bool
	}{
		{"valid", h, "get_tasks", now, true},
		{"within skew", h, "get_tasks", now.Add(299 * time.Second), true},
		{"too old", h, "get_tasks", now.Add(301 * time.Second), false},
		{"from the future", h, "get_tasks", now.Add(-301 * time.Second), false},
		{"other action", h, "delete_task", now, false},
		{"wrong key", wire.AdminHeader("other", "get_tasks", now), "get_tasks", now, false},
		{"bearer scheme", "Bearer x", "get_tasks", now, false},
		{"garbage", "Admin 123", "get_tasks", now, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkAdminHeader(tc.header, tc.action, []byte(key), tc.at); got != tc.want {
				t.Fatalf("checkAdminHeader = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzHashBindsParameters: whatever text a hash was made over, it is
// accepted only for a request whose parameters are exactly the ones that
// text parses to, so no encoding variant merges, splits or changes them.
func FuzzHashBindsParameters(f *testing.F) {
	for _, s := range [][2]string{
		{"action=get_tasks&id_project=26", "action=get_tasks&id_project=26"},
		{"a=x&b=y", "a=x%26b%3Dy"},
		{"a=x%26b%3Dy", "a=x&b=y"},
		{"t=a+b", "t=a%2Bb"},
		{"t=a b", "t=a%20b"},
		{"t=a%25", "t=a%2525"},
		{"k", "k="},
		{"action=get_projects&action=delete_task", "action=get_projects%26action%3Ddelete_task"},
	} {
		f.Add(s[0], s[1])
	}
	key := []byte("fuzz-key")
	f.Fuzz(func(t *testing.T, signedOver, sent string) {
		h := wire.Hash(signedOver, string(key))
		full := sent + "&hash=" + h
		if !checkHash(full, h, key) {
			return
		}
		got, err := url.ParseQuery(full)
		if err != nil {
			t.Fatalf("accepted unparsable %q", full)
		}
		got.Del("hash")
		if !parsesTo(signedOver, got) {
			t.Fatalf("a hash over %q was accepted for %q (%v)", signedOver, sent, got)
		}
	})
}
