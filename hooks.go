package taskd

import (
	"context"
	"net/url"
	"strings"
	"time"
)

// SubscribableEvents are the events a webhook can subscribe to: the nine
// add_webhook accepts, and reopen_task, which the pages offer too (spec).
var SubscribableEvents = append(append([]string(nil), WebhookEvents...), "reopen_task")

// MaxWebhookFailures is how many consecutive failed attempts disable a
// webhook (spec Limits).
const MaxWebhookFailures = 10

// Webhook is a destination that changes in an account are delivered to.
type Webhook struct {
	ID        int64
	AccountID int64
	URL       string
	Events    []string
	Projects  []int64 // empty: every project
	HTTPUser  string
	HTTPPass  []byte // sealed; never returned by the API
	Secret    []byte // sealed whsec_ secret
	Enabled   bool
	// Errors counts consecutive failed attempts since the last success.
	Errors         int
	LastError      string
	DisabledReason string
	LastDelivery   time.Time
	NextAttempt    time.Time // after a failure: when the next attempt is due
	Added          time.Time
	// AfterEvent is the last event written before the webhook was made;
	// it hears of the events after it.
	AfterEvent int64
	// By is the person the webhook acts for: who made it or last enabled
	// it, in the pages or with an access token; 0 when that was done with
	// the administrative key or the command line (it acts for the
	// account). When By leaves the account or may no longer manage
	// webhooks, the webhook is disabled (TrustEnded). It delivers only
	// the events about objects By sees when they are fanned out
	// (Viewer); with 0, the whole account's.
	By int64
	// ActsFor is By as the API and the pages show it; zero for the
	// account.
	ActsFor PersonRef
}

// Status is the API's status: active (enabled) or paused.
func (w Webhook) Status() string {
	if w.Enabled {
		return "active"
	}
	return "paused"
}

// State is the page's state: gray (disabled), green (working) or orange
// (working with failed attempts since the last success).
func (w Webhook) State() string {
	switch {
	case !w.Enabled:
		return "gray"
	case w.Errors > 0:
		return "orange"
	}
	return "green"
}

// Wants reports whether the webhook subscribes to an event of the project.
func (w Webhook) Wants(event string, projectID int64) bool {
	if !HasScope(w.Events, event) {
		return false
	}
	if len(w.Projects) == 0 {
		return true
	}
	for _, p := range w.Projects {
		if p == projectID {
			return true
		}
	}
	return false
}

// ParseWebhookURL checks a destination: an absolute http or https URL with
// a host and no user information or fragment.
func ParseWebhookURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Fragment != "" || len(raw) > 2000 || strings.ContainsAny(raw, " \t\r\n") {
		return nil, Invalid("url", "The URL must be an absolute http:// or https:// URL")
	}
	return u, nil
}

// ParseWebhookEvents reads a comma-separated event list. allowed is the set
// that may be chosen: WebhookEvents for add_webhook, SubscribableEvents for
// the pages.
func ParseWebhookEvents(s string, allowed []string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if !HasScope(allowed, e) {
			return nil, Invalid("events", "Unknown event %q; allowed: %s", e, strings.Join(allowed, ", "))
		}
		if !HasScope(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, &Error{Kind: KindInvalid, Reason: ReasonRequired, Field: "events", Message: "At least one event is required"}
	}
	return out, nil
}

// WebhookInput is a webhook to create, as the API or a form gives it.
type WebhookInput struct {
	URL      string
	Events   string // comma-separated
	Projects string // comma-separated ids; empty: all
	HTTPUser string
	HTTPPass string
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryExpired   = "expired" // held longer than HoldLimit
)

// HoldLimit is how long an undelivered event is kept for a webhook.
const HoldLimit = 72 * time.Hour

// Delivery is one event due to one webhook.
type Delivery struct {
	ID        int64
	WebhookID int64
	Event     StoredEvent
	State     string
	Attempts  int
	Added     time.Time
}

// Attempt is one try to deliver, or one URL check (EventID 0). One POST
// may carry several deliveries of a backlog; the attempt names the first.
type Attempt struct {
	ID         int64
	WebhookID  int64
	DeliveryID int64
	EventID    int64
	EventName  string
	// Deliveries are all the deliveries the POST carried, when more than
	// DeliveryID; Events counts them (as read back).
	Deliveries []int64
	Events     int
	At         time.Time
	OK         bool
	HTTPStatus int
	Latency    time.Duration
	Error      string // why it failed
	Response   string // excerpt of the answer
}

// More is how many events the attempt carried beyond the one it names.
func (a Attempt) More() int { return max(a.Events-1, 0) }

// AttemptStats are one hour's attempts of a webhook, for the chart.
type AttemptStats struct {
	Hour    time.Time
	OK      int
	Failed  int
	Latency time.Duration // mean
}

// DueWebhook is a webhook with deliveries to send now.
type DueWebhook struct {
	ID int64
	// Errors counts its failed attempts since the last success: a failing
	// destination, which may hang until the timeout.
	Errors int
}

// WebhookWork is what the dispatcher learns in one read of the database:
// whether there is work now, and when the next work it knows of falls due.
type WebhookWork struct {
	// Due lists the webhooks to send to now, as DueWebhooks does.
	Due []DueWebhook
	// NextIn is how long until the first webhook with deliveries waiting
	// but not due (a retry's next attempt, another replica's lease) falls
	// due, by the store's clock; zero when there is none.
	NextIn time.Duration
	// Unfanned reports that events wait to be fanned out (asked for
	// only).
	Unfanned bool
}

// WebhookStore keeps an account's webhooks and what the API and the pages
// show of their deliveries: the attempt log, the events held, the
// deliveries that expired. Unknown webhooks are not found ("webhook").
type WebhookStore interface {
	CreateWebhook(ctx context.Context, w Webhook) (Webhook, error)
	Webhooks(ctx context.Context, accountID int64) ([]Webhook, error)
	Webhook(ctx context.Context, accountID, id int64) (Webhook, error)
	DeleteWebhook(ctx context.Context, accountID, id int64) error
	// EnableWebhook enables a webhook, resetting its error count; from
	// now on it acts for by (Webhook.By; 0: the account).
	EnableWebhook(ctx context.Context, accountID, id, by int64) error
	// DisableWebhook disables a webhook, recording why.
	DisableWebhook(ctx context.Context, accountID, id int64, reason string) error
	SetWebhookSecret(ctx context.Context, accountID, id int64, sealed []byte) error
	// Redeliver makes a delivered or expired delivery pending again.
	Redeliver(ctx context.Context, accountID, deliveryID int64) error
	// RecordAttempt logs an attempt and applies it: on success its
	// deliveries are done and the error count reset; on failure the count grows, the
	// next attempt is put off until retryAt, and at MaxWebhookFailures the
	// webhook is disabled.
	RecordAttempt(ctx context.Context, a Attempt, retryAt time.Time) error
	Attempts(ctx context.Context, accountID, webhookID int64, limit int) ([]Attempt, error)
	AttemptStats(ctx context.Context, accountID, webhookID int64, since time.Time) ([]AttemptStats, error)
	// HeldEvents counts the events waiting for one of the account's
	// webhooks (pending or queued, made within HoldLimit): those it sends
	// once it is enabled or its next attempt is due. Not found ("webhook")
	// for another account's webhook.
	HeldEvents(ctx context.Context, accountID, webhookID int64) (int, error)
	// ExpiredDeliveries lists a webhook's expired deliveries, newest first.
	ExpiredDeliveries(ctx context.Context, accountID, webhookID int64, limit int) ([]Delivery, error)
}

// DeliveryStore is the webhook dispatcher's: the queue of deliveries made
// from the events, the leases that keep replicas from sending one
// webhook's deliveries at once, and the attempts.
type DeliveryStore interface {
	// FanOut queues up to limit new events for every webhook whose
	// subscription matches, and returns how many events it handled (fewer
	// than limit: none is left). The deliveries are made from the queue
	// when NextDeliveries reads them.
	FanOut(ctx context.Context, limit int) (int, error)
	// DueWebhooks lists enabled webhooks with pending deliveries whose next
	// attempt is due and that no live lease holds: those whose last attempt
	// succeeded first, then the failing ones, each the longest-waiting first.
	DueWebhooks(ctx context.Context, limit int) ([]DueWebhook, error)
	// WebhookWork lists up to limit due webhooks as DueWebhooks does (but
	// only for deliveries made within HoldLimit: older ones are never
	// sent), and tells when the next waiting webhook falls due and, with
	// unfanned, whether events wait to be fanned out, in one read-only
	// query.
	WebhookWork(ctx context.Context, limit int, unfanned bool) (WebhookWork, error)
	// Lease claims a webhook's deliveries for owner until the time; false
	// when another owner holds a live lease.
	Lease(ctx context.Context, webhookID int64, owner string, until time.Time) (bool, error)
	Release(ctx context.Context, webhookID int64, owner string) error
	// NextDeliveries returns the webhook as it is now and up to limit of
	// its oldest pending deliveries, in event order, made from its queue
	// as needed (none when it has no backlog; a zero Webhook when it is
	// gone).
	NextDeliveries(ctx context.Context, webhookID int64, limit int) ([]Delivery, Webhook, error)
	// RecordAttempt logs an attempt and applies it: on success its
	// deliveries are done and the error count reset; on failure the count grows, the
	// next attempt is put off until retryAt, and at MaxWebhookFailures the
	// webhook is disabled.
	RecordAttempt(ctx context.Context, a Attempt, retryAt time.Time) error
	// ExpireHeld marks pending and queued deliveries of events older than
	// the time expired, and returns how many.
	ExpireHeld(ctx context.Context, before time.Time) (int, error)
	// EventsWritten receives after a change and its event commit (on
	// PostgreSQL, another process's too), so that the dispatcher need not
	// wait for its poll; signals coalesce.
	EventsWritten() <-chan struct{}
}
