// Package testaccount makes the accounts and people of tests on any store
// that keeps them. It is the one account fixture of the project: the store's
// conformance suite, the API's tests, the webhook tests and every test site
// (internal/testsite) create their accounts here, so a change to what an
// account needs is made once.
//
// It imports only the root package and secret, so that the store's own
// tests may use it.
package testaccount

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// Creator creates accounts (taskd.AccountStore has it).
type Creator interface {
	CreateAccount(ctx context.Context, a taskd.NewAccount) (taskd.Account, taskd.Person, error)
}

// Joiner adds people to accounts (taskd.AccountStore has it).
type Joiner interface {
	AddMember(ctx context.Context, accountID int64, p taskd.NewPerson, role taskd.Role) (taskd.Person, error)
}

// Person is someone a test adds. Without Password (and Hash) they cannot
// sign in, which spares the tests that never sign in the cost of hashing.
type Person struct {
	Email       string
	First, Last string
	Password    string // hashed with Hasher
	Hash        string // a password hash used as is (a person already registered)
}

// Options say what a new account is. The zero value is an account with a
// unique slug, owned by "Olga Owner" at an address of its own, with an
// administrative key nobody can use.
type Options struct {
	Slug   string // UniqueSlug("acct") when empty
	Name   string // "Test " and the slug when empty
	Owner  Person // the e-mail is slug@example.com when empty
	Sealer *secret.Sealer
	// With a Sealer the account gets a fresh administrative key, sealed
	// as the server seals it, and Account.Key holds it.
}

// Account is an account made for a test.
type Account struct {
	taskd.Account
	Owner taskd.Person
	Key   string // the administrative key; empty without Options.Sealer
}

// Actor is the owner acting in the account.
func (a Account) Actor() taskd.Actor {
	return taskd.Actor{AccountID: a.ID, Person: a.Owner.Ref(), Role: taskd.RoleOwner}
}

// Hasher is the password hasher of tests: argon2id at its lowest cost (one
// pass over 8 KiB), a few microseconds a hash where the production cost
// (the zero secret.Hasher) takes 25 ms, 70 ms under the race detector,
// and every test site hashes two passwords and signs people in. Test
// sites give it to their servers too (server.Config.Passwords); only the
// tests of hashing (secret) use the production cost.
func Hasher() secret.Hasher { return secret.Hasher{Passes: 1, MemoryKiB: 8} }

var seq atomic.Int64

// UniqueSlug is an account slug that no other test of this process uses,
// nor (by the time in it) a test of another process on the same database
// server.
func UniqueSlug(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e9, seq.Add(1))
}

// New creates an account as o says, failing the test if it cannot.
func New(t testing.TB, s Creator, o Options) Account {
	t.Helper()
	if o.Slug == "" {
		o.Slug = UniqueSlug("acct")
	}
	if o.Name == "" {
		o.Name = "Test " + o.Slug
	}
	if o.Owner.Email == "" {
		o.Owner.Email = o.Slug + "@example.com"
	}
	if o.Owner.First == "" && o.Owner.Last == "" {
		o.Owner.First, o.Owner.Last = "Olga", "Owner"
	}
	a := Account{}
	apiKey := []byte("sealed")
	if o.Sealer != nil {
		a.Key = secret.APIKey()
		apiKey = o.Sealer.SealAPIKey(o.Slug, a.Key)
	}
	var err error
	a.Account, a.Owner, err = s.CreateAccount(context.Background(), taskd.NewAccount{
		Slug: o.Slug, Name: o.Name, APIKey: apiKey, Owner: prepare(t, o.Owner)})
	if err != nil {
		t.Fatalf("create account %s: %v", o.Slug, err)
	}
	return a
}

// Member adds p to the account with the role and returns them as an actor.
func Member(t testing.TB, s Joiner, accountID int64, p Person, role taskd.Role) taskd.Actor {
	t.Helper()
	person, err := s.AddMember(context.Background(), accountID, prepare(t, p), role)
	if err != nil {
		t.Fatalf("add %s: %v", p.Email, err)
	}
	return taskd.Actor{AccountID: accountID, Person: person.Ref(), Role: role}
}

// prepare is the person as the store takes them.
func prepare(t testing.TB, p Person) taskd.NewPerson {
	t.Helper()
	switch {
	case p.Hash != "":
		return taskd.NewPerson{Email: p.Email, PasswordHash: p.Hash, FirstName: p.First, LastName: p.Last}
	case p.Password != "":
		np, err := taskd.PreparePerson(p.Email, p.Password, p.First, p.Last, Hasher().Hash)
		if err != nil {
			t.Fatalf("person %s: %v", p.Email, err)
		}
		return np
	default:
		return taskd.NewPerson{Email: p.Email, PasswordHash: "x", FirstName: p.First, LastName: p.Last}
	}
}
