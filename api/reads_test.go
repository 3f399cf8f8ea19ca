package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/wire"
)

// signedURL is the get_tasks call of a project signed with key.
func (a *account) signedURL(key, pid string) string {
	q := query("action", "get_tasks", "id_project", pid)
	return a.endpoint() + "?" + q + "&hash=" + wire.Hash(q, key)
}

// get calls target and checks the answer's HTTP status and status_code
// (-1 for success).
func (a *account) get(target string, header http.Header, status, code int) response {
	a.t.Helper()
	r := a.do(http.MethodGet, target, "", "", header)
	if r.HTTP != status || r.code() != code {
		a.t.Fatalf("GET %s: want HTTP %d code %d, got %v", target, status, code, r)
	}
	return r
}

// TestKeyChangeSeenByEveryReplica: a get_tasks call reads the account's key
// with the project's version, and a signature that verified is remembered,
// so the test warms both replicas, then changes the key in the database (as
// the CLI or the pages of another replica do). The old signature is refused
// by both at once, the new key's accepted, and a revoked key signs nothing.
func TestKeyChangeSeenByEveryReplica(t *testing.T) {
	t.Parallel()
	eachAccount(t, func(t *testing.T, a *account) {
		ctx := context.Background()
		b := &account{server: a.server.replica(), Slug: a.Slug, Key: a.Key, Owner: a.Owner, t: t}
		pid := a.id("action", "post_project", "title", "P")
		a.id("action", "post_task", "id_project", pid, "title", "one")
		acct, err := a.DB.AccountBySlug(ctx, a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		old := a.signedURL(a.Key, pid)
		header := func(key string) http.Header {
			return http.Header{"Authorization": {wire.AdminHeader(key, "get_tasks", time.Now())}}
		}
		plain := a.endpoint() + "?" + query("action", "get_tasks", "id_project", pid)
		for _, s := range []*account{a, b} {
			s.get(old, nil, http.StatusOK, -1)
			s.get(old, nil, http.StatusOK, -1) // from the remembered signature and the rendered list
			s.get(plain, header(a.Key), http.StatusOK, -1)
		}

		key := secret.APIKey()
		if err := a.DB.SetAPIKey(ctx, acct.ID, a.Sealer.SealAPIKey(a.Slug, key), 0); err != nil {
			t.Fatal(err)
		}
		for _, s := range []*account{a, b} {
			s.get(old, nil, http.StatusUnauthorized, int(api.CodeAuth))
			s.get(plain, header(a.Key), http.StatusUnauthorized, int(api.CodeAuth))
			s.get(a.signedURL(key, pid), nil, http.StatusOK, -1)
			s.get(plain, header(key), http.StatusOK, -1)
		}

		if err := a.DB.SetAPIKey(ctx, acct.ID, []byte{}, 0); err != nil { // revoked
			t.Fatal(err)
		}
		for _, s := range []*account{a, b} {
			s.get(a.signedURL(key, pid), nil, http.StatusUnauthorized, int(api.CodeAuth))
			s.get(plain, header(key), http.StatusUnauthorized, int(api.CodeAuth))
		}
	})
}

// TestRememberedSignatureVouchesForNothingElse: once a signed call has
// verified, its hash still authenticates nothing but that call: not
// other parameters, not the same text on another account's address.
func TestRememberedSignatureVouchesForNothingElse(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		s := newServer(t, d)
		a, other := s.newAccount(t), s.newAccount(t)
		pid := a.id("action", "post_project", "title", "P")
		pid2 := a.id("action", "post_project", "title", "Q")
		q := query("action", "get_tasks", "id_project", pid)
		hash := wire.Hash(q, a.Key)
		a.get(a.endpoint()+"?"+q+"&hash="+hash, nil, http.StatusOK, -1)
		for name, target := range map[string]string{
			"another project":           a.endpoint() + "?" + query("action", "get_tasks", "id_project", pid2) + "&hash=" + hash,
			"a parameter more":          a.endpoint() + "?" + q + "&filter=done&hash=" + hash,
			"another account's address": other.endpoint() + "?" + q + "&hash=" + hash,
		} {
			t.Run(name, func(t *testing.T) {
				a.in(t).get(target, nil, http.StatusUnauthorized, int(api.CodeAuth))
			})
		}
		// The project of another account is not found, with the key read
		// in the same query as the version.
		theirs := other.id("action", "post_project", "title", "Theirs")
		a.fails(api.CodeProjectInvalid, "action", "get_tasks", "id_project", theirs)
		a.fails(api.CodeProjectInvalid, "action", "get_tasks", "id_project", theirs, "extra", "subscribers")
	})
}

// TestListAnswersCarryTheirLength: the rendered list is sent in one piece
// with its Content-Length, not in chunks.
func TestListAnswersCarryTheirLength(t *testing.T) {
	t.Parallel()
	oneAccount(t, func(t *testing.T, a *account) {
		pid := a.id("action", "post_project", "title", "P")
		for i := 0; i < 60; i++ { // a body larger than net/http's own buffer
			a.id("action", "post_task", "id_project", pid, "title", "A task with a title long enough")
		}
		// Content-Length counts bytes, not characters.
		a.id("action", "post_task", "id_project", pid, "title", "Задача ✓")
		for range 2 { // rendered, then from the cache
			res, err := http.Get(a.signedURL(a.Key, pid))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if res.ContentLength < 4096 || len(res.TransferEncoding) != 0 {
				t.Fatalf("Content-Length %d, Transfer-Encoding %v", res.ContentLength, res.TransferEncoding)
			}
			if err != nil || int64(len(body)) != res.ContentLength || !json.Valid(body) || !strings.Contains(string(body), "Задача ✓") {
				t.Fatalf("Content-Length %d, body of %d bytes (%v), ending %q", res.ContentLength, len(body), err, body[max(len(body)-40, 0):])
			}
		}
	})
}
