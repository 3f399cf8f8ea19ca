// Package admit bounds what this process holds at once for people: a
// number per person, per account and in all, such as the uploads in
// flight and the pages' live streams. Each holder enters and releases;
// a holder beyond a bound is refused and told which.
//
// The bounds are of this process: they protect its connections, memory
// and goroutines, which are its own (with several replicas, each has
// them).
package admit

import (
	"context"
	"sync"
	"time"
)

// Limits are the most held at once; 0 is no bound.
type Limits struct {
	PerPerson, PerAccount, Total int
}

// Bound names the bound that refused a holder.
type Bound int

// The bounds; None admits.
const (
	None Bound = iota
	Person
	Account
	Total
)

// Gate admits holders within its Limits. A nil Gate admits everything.
type Gate struct {
	limits Limits
	mu     sync.Mutex
	people map[int64]int // held by person
	accts  map[int64]int // held by account
	total  int
	freed  chan struct{} // closed, and made anew, when a place is freed
	// waiting is how many EnterWithin calls wait for a place now.
	waiting int
}

// New returns a gate.
func New(l Limits) *Gate {
	return &Gate{limits: l, people: map[int64]int{}, accts: map[int64]int{}, freed: make(chan struct{})}
}

// Limits are the gate's limits (zero for a nil Gate).
func (g *Gate) Limits() Limits {
	if g == nil {
		return Limits{}
	}
	return g.limits
}

// Enter admits one holder of the person in the account and returns its
// release, which may be called more than once; or, when a bound is
// reached, the bound and a nil release (the person's bound is checked
// first, then the account's, then the total).
func (g *Gate) Enter(accountID, personID int64) (release func(), refused Bound) {
	if g == nil {
		return func() {}, None
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.enterLocked(accountID, personID)
}

// EnterWithin is Enter that, refused, waits up to d for a place to be
// freed (a page's stream replaced by the next page's: the old one's end
// may reach the server after the new one's start), or until ctx ends.
func (g *Gate) EnterWithin(ctx context.Context, d time.Duration, accountID, personID int64) (release func(), refused Bound) {
	if g == nil {
		return func() {}, None
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		g.mu.Lock()
		release, refused = g.enterLocked(accountID, personID)
		freed := g.freed
		g.mu.Unlock()
		if refused == None {
			return release, None
		}
		if !g.wait(ctx, freed, deadline.C) {
			return nil, refused
		}
	}
}

// wait waits for a place to be freed (true), the deadline or ctx's end,
// counted among the waiters meanwhile.
func (g *Gate) wait(ctx context.Context, freed <-chan struct{}, deadline <-chan time.Time) bool {
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
	}()
	select {
	case <-freed:
		return true
	case <-deadline:
	case <-ctx.Done():
	}
	return false
}

func (g *Gate) enterLocked(accountID, personID int64) (release func(), refused Bound) {
	switch l := g.limits; {
	case l.PerPerson > 0 && g.people[personID] >= l.PerPerson:
		return nil, Person
	case l.PerAccount > 0 && g.accts[accountID] >= l.PerAccount:
		return nil, Account
	case l.Total > 0 && g.total >= l.Total:
		return nil, Total
	}
	g.people[personID]++
	g.accts[accountID]++
	g.total++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.people[personID]--; g.people[personID] <= 0 {
				delete(g.people, personID)
			}
			if g.accts[accountID]--; g.accts[accountID] <= 0 {
				delete(g.accts, accountID)
			}
			g.total--
			close(g.freed)
			g.freed = make(chan struct{})
		})
	}, None
}

// Held is how many holders the gate admits now.
func (g *Gate) Held() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total
}
