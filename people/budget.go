package people

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/ratelimit"
)

// MailLimits bound the mail that people can have taskd send to addresses
// they choose, so that no account, person or victim can turn the server's
// domain into a source of unwanted mail. Zero turns a bound off.
type MailLimits struct {
	// AccountHour and AccountDay bound the invitations one account sends
	// in any hour and any 24 hours.
	AccountHour, AccountDay int
	// RecipientDay bounds the mail others can cause to one address in 24
	// hours: invitations from every account, password-reset links and
	// confirmations of a new address together.
	RecipientDay int
	// PersonDay bounds the confirmations of a new address one person asks
	// for in 24 hours (each goes to an address of their choosing).
	PersonDay int
}

// DefaultMailLimits are serve's defaults: generous for a team inviting its
// people, tight for anyone sending mail to strangers.
var DefaultMailLimits = MailLimits{AccountHour: 100, AccountDay: 500, RecipientDay: 10, PersonDay: 5}

// Budget counts mail against MailLimits in the database, so that every
// replica sees one count, before the mail is queued (ratelimit.Strict).
type Budget struct {
	accountHour, accountDay, recipientDay, personDay *ratelimit.Strict
}

// NewBudget returns a budget counting in store.
func NewBudget(store ratelimit.Store, l MailLimits, now func() time.Time) *Budget {
	day := func(n int) ratelimit.Limit { return ratelimit.Limit{Max: n, Window: 24 * time.Hour} }
	return &Budget{
		accountHour:  ratelimit.NewStrict("mail-account-hour:", store, ratelimit.Limit{Max: l.AccountHour, Window: time.Hour}, now),
		accountDay:   ratelimit.NewStrict("mail-account-day:", store, day(l.AccountDay), now),
		recipientDay: ratelimit.NewStrict("mail-recipient-day:", store, day(l.RecipientDay), now),
		personDay:    ratelimit.NewStrict("mail-person-day:", store, day(l.PersonDay), now),
	}
}

// charge is one count a mail takes, and what to say when it is spent.
type charge struct {
	limiter *ratelimit.Strict
	key     string
	spent   string // the message when the budget is spent; %s is when to try again
}

// refund gives back what spend took, for a mail that was not sent.
type refund func(ctx context.Context) error

// spend takes one of each charge, or none: over any budget it gives back
// what it took and returns a rate-limited error (field "email") saying
// which budget is spent and when to try again. A nil Budget spends nothing.
func (b *Budget) spend(ctx context.Context, charges ...charge) (refund, error) {
	type taken struct {
		l *ratelimit.Strict
		t ratelimit.Ticket
	}
	var took []taken
	back := func(ctx context.Context) error {
		var err error
		for _, t := range took {
			err = errors.Join(err, t.l.Return(ctx, t.t))
		}
		return err
	}
	if b == nil {
		return back, nil
	}
	for _, c := range charges {
		t, wait, ok, err := c.limiter.Take(ctx, c.key)
		if err != nil {
			return nil, errors.Join(taskd.Internal("mail budget", err), back(ctx))
		}
		if !ok {
			if err := back(ctx); err != nil {
				return nil, taskd.Internal("mail budget", err)
			}
			return nil, &taskd.Error{Kind: taskd.KindRateLimited, RetryAfter: wait, Field: "email", Message: fmt.Sprintf(c.spent, inWords(wait))}
		}
		took = append(took, taken{c.limiter, t})
	}
	return back, nil
}

// invitation is what an invitation of an account to an address costs.
func (b *Budget) invitation(accountID int64, email string) []charge {
	if b == nil {
		return nil
	}
	id := strconv.FormatInt(accountID, 10)
	return []charge{
		{b.accountHour, id, "This account has sent as many invitations in the last hour as it may; try again in %s"},
		{b.accountDay, id, "This account has sent as many invitations in the last day as it may; try again in %s"},
		b.recipient(email),
	}
}

// reset is what a password-reset link to the address costs, whether or
// not a person has it (else the count would tell).
func (b *Budget) reset(email string) []charge {
	if b == nil {
		return nil
	}
	return []charge{b.recipient(email)}
}

// recipient is what any mail that someone else causes to the address costs.
func (b *Budget) recipient(email string) charge {
	return charge{b.recipientDay, email, "This address has been sent as much mail from taskd today as others may cause; try again in %s"}
}

// emailChange is what a person's confirmation of a new address costs.
func (b *Budget) emailChange(personID int64, email string) []charge {
	if b == nil {
		return nil
	}
	return []charge{
		{b.personDay, strconv.FormatInt(personID, 10), "You have asked to change your address as often today as you may; try again in %s"},
		b.recipient(email),
	}
}

// inWords is a wait, rounded up to whole minutes or hours.
func inWords(d time.Duration) string {
	if d <= 90*time.Minute {
		m := int(math.Ceil(d.Minutes()))
		if m <= 1 {
			return "a minute"
		}
		return strconv.Itoa(m) + " minutes"
	}
	return strconv.Itoa(int(math.Ceil(d.Hours()))) + " hours"
}
