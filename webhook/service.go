package webhook

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/secret"
)

// Store is what the webhook service and dispatcher need.
type Store interface {
	taskd.WebhookStore
	Project(ctx context.Context, v taskd.Viewer, id int64) (taskd.Project, error)
}

// Service is the one implementation of the webhook operations, used by the
// API actions and the pages alike.
type Service struct {
	store  Store
	sealer *secret.Sealer
	client *http.Client
	now    func() time.Time
	log    *slog.Logger
}

// NewService returns the service; client is NewHTTPClient's.
func NewService(store Store, sealer *secret.Sealer, client *http.Client, now func() time.Time, log *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, sealer: sealer, client: client, now: now, log: log}
}

// CheckFailed is the error of a failed URL check: invalid "url", the URL
// as the value and what the check found as the cause.
func CheckFailed(url, why string) error {
	return &taskd.Error{Kind: taskd.KindInvalid, Field: "url", Value: url,
		Message: "Url should respond 200 HTTP_CODE and JSON {status:OK}", Err: errors.New(why)}
}

// sealAD binds sealed webhook secrets to their purpose and account.
func sealAD(accountID int64) []byte {
	return []byte("taskd webhook " + strconv.FormatInt(accountID, 10))
}

// Add validates a webhook, runs the URL check and stores it disabled.
// allowed is the set of events that may be chosen. It returns the webhook
// and its signing secret, which is shown only now.
//
// The webhook acts for its maker, v: it hears only of what they see when
// its deliveries are made (taskd.Webhook.By); made with the administrative
// key, of the whole account. Its projects are those v sees.
func (s *Service) Add(ctx context.Context, v taskd.Viewer, in taskd.WebhookInput, allowed []string) (taskd.Webhook, string, error) {
	return s.add(ctx, v, in, allowed, true)
}

// AddUnchecked stores a webhook, disabled, without the URL check: for
// seeding a demo whose receiver is not running yet. Enabling it runs the
// check as always.
func (s *Service) AddUnchecked(ctx context.Context, accountID int64, in taskd.WebhookInput) (taskd.Webhook, string, error) {
	return s.add(ctx, taskd.AccountViewer(accountID), in, taskd.SubscribableEvents, false)
}

func (s *Service) add(ctx context.Context, v taskd.Viewer, in taskd.WebhookInput, allowed []string, check bool) (taskd.Webhook, string, error) {
	u, err := taskd.ParseWebhookURL(in.URL)
	if err != nil {
		return taskd.Webhook{}, "", err
	}
	accountID := v.AccountID
	w := taskd.Webhook{AccountID: accountID, URL: u.String(), HTTPUser: in.HTTPUser}
	if !v.Key {
		w.By = v.PersonID
	}
	if w.Events, err = taskd.ParseWebhookEvents(in.Events, allowed); err != nil {
		return w, "", err
	}
	if w.Projects, err = taskd.ParseProjectIDs(in.Projects); err != nil {
		return w, "", err
	}
	for _, p := range w.Projects {
		if _, err := s.store.Project(ctx, v, p); err != nil {
			return w, "", err
		}
	}
	if len(in.HTTPUser) > 200 || len(in.HTTPPass) > 200 {
		return w, "", taskd.Invalid("http_user", "Basic-auth credentials are limited to 200 characters")
	}
	sec := NewSecret()
	if check {
		res := Post(ctx, s.client, Request{URL: w.URL, Body: []byte("[]"), ID: "check_" + secret.Token(9), Secret: sec,
			HTTPUser: in.HTTPUser, HTTPPass: in.HTTPPass}, s.now())
		if !res.OK {
			return w, "", CheckFailed(w.URL, res.Error)
		}
	}
	w.Secret = s.sealer.Seal([]byte(sec), sealAD(accountID))
	if in.HTTPPass != "" {
		w.HTTPPass = s.sealer.Seal([]byte(in.HTTPPass), sealAD(accountID))
	}
	w, err = s.store.CreateWebhook(ctx, w)
	return w, sec, err
}

// List returns the account's webhooks.
func (s *Service) List(ctx context.Context, accountID int64) ([]taskd.Webhook, error) {
	return s.store.Webhooks(ctx, accountID)
}

// Delete removes a webhook.
func (s *Service) Delete(ctx context.Context, accountID, id int64) error {
	return s.store.DeleteWebhook(ctx, accountID, id)
}

// Disable stops deliveries; events are held until it is enabled again.
func (s *Service) Disable(ctx context.Context, accountID, id int64) error {
	return s.store.DisableWebhook(ctx, accountID, id, "Disabled by hand")
}

// Enable runs the URL check; only a passing check enables the webhook (and
// resets its error count), which from now on acts for by (the person who
// enables it; 0 for the administrative key: the account). A failed check
// is logged, recorded as the last error, and returned (CheckFailed:
// invalid "url").
func (s *Service) Enable(ctx context.Context, accountID, id, by int64) error {
	_, err := s.EnableHeld(ctx, accountID, id, by)
	return err
}

// EnableHeld is Enable, and returns how many held events the webhook will
// now send (taskd.WebhookStore.HeldEvents). They are counted after the
// check passed and before the webhook is enabled: a disabled webhook sends
// nothing meanwhile (for one enabled and failing, the count is as of that
// moment).
func (s *Service) EnableHeld(ctx context.Context, accountID, id, by int64) (int, error) {
	w, res, err := s.Test(ctx, accountID, id)
	if err != nil {
		return 0, err
	}
	if !res.OK {
		if err := s.store.DisableWebhook(ctx, accountID, id, "The URL check failed when enabling: "+res.Error); err != nil {
			return 0, err
		}
		return 0, CheckFailed(w.URL, res.Error)
	}
	held, err := s.store.HeldEvents(ctx, accountID, id)
	if err != nil {
		return 0, err
	}
	return held, s.store.EnableWebhook(ctx, accountID, id, by)
}

// Test runs the URL check against a stored webhook and logs it.
func (s *Service) Test(ctx context.Context, accountID, id int64) (taskd.Webhook, Result, error) {
	w, err := s.store.Webhook(ctx, accountID, id)
	if err != nil {
		return w, Result{}, err
	}
	r, err := s.request(w, []byte("[]"), "check_"+secret.Token(9))
	if err != nil {
		return w, Result{}, err
	}
	res := Post(ctx, s.client, r, s.now())
	err = s.store.RecordAttempt(ctx, taskd.Attempt{WebhookID: w.ID, EventName: "URL check", At: s.now(), OK: res.OK,
		HTTPStatus: res.Status, Latency: res.Latency, Error: res.Error, Response: res.Response}, time.Time{})
	return w, res, err
}

// RotateSecret gives the webhook a new signing secret and returns it.
func (s *Service) RotateSecret(ctx context.Context, accountID, id int64) (string, error) {
	sec := NewSecret()
	return sec, s.store.SetWebhookSecret(ctx, accountID, id, s.sealer.Seal([]byte(sec), sealAD(accountID)))
}

// Redeliver queues a delivery again.
func (s *Service) Redeliver(ctx context.Context, accountID, deliveryID int64) error {
	return s.store.Redeliver(ctx, accountID, deliveryID)
}

// request opens a stored webhook's secrets and builds a POST.
func (s *Service) request(w taskd.Webhook, body []byte, id string) (Request, error) {
	sec, err := s.sealer.Open(w.Secret, sealAD(w.AccountID))
	if err != nil {
		return Request{}, taskd.Internal("open webhook secret", err)
	}
	r := Request{URL: w.URL, Body: body, ID: id, Secret: string(sec), HTTPUser: w.HTTPUser}
	if len(w.HTTPPass) > 0 {
		pass, err := s.sealer.Open(w.HTTPPass, sealAD(w.AccountID))
		if err != nil {
			return Request{}, taskd.Internal("open webhook password", err)
		}
		r.HTTPPass = string(pass)
	}
	return r, nil
}
