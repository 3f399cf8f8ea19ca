package api

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/wire"
)

// WebhookService runs the webhook actions; package webhook implements it.
type WebhookService interface {
	Add(ctx context.Context, v taskd.Viewer, in taskd.WebhookInput, allowed []string) (taskd.Webhook, string, error)
	List(ctx context.Context, accountID int64) ([]taskd.Webhook, error)
	Delete(ctx context.Context, accountID, id int64) error
	Enable(ctx context.Context, accountID, id, by int64) error
	Disable(ctx context.Context, accountID, id int64) error
}

// webhookOut is an element of get_webhooks: the spec's fields plus the
// failure count, the last error and the last successful delivery.
type webhookOut struct {
	ID             string `json:"id"`
	URL            string `json:"url"`
	Events         string `json:"events"`
	Status         string `json:"status"`
	Projects       string `json:"projects,omitempty"`
	Errors         int    `json:"errors"`
	LastError      string `json:"last_error,omitempty"`
	LastDeliveryAt string `json:"last_delivery_at,omitempty"`
	// ActsFor is whom the webhook acts for: the e-mail of the person who
	// made or last enabled it with an access token or in the pages, who
	// must see an object for the webhook to hear of it; "account" when
	// that was the administrative key.
	ActsFor string `json:"acts_for"`
}

func (c *call) webhooks() (WebhookService, error) {
	if c.hooks == nil {
		return nil, taskd.Internal("webhook actions", errNoWebhooks)
	}
	return c.hooks, nil
}

var errNoWebhooks = errors.New("api: no webhook service configured")

func getWebhooks(c *call) (any, error) {
	hooks, err := c.webhooks()
	if err != nil {
		return nil, err
	}
	list, err := hooks.List(c.ctx, c.accountID())
	if err != nil {
		return nil, err
	}
	out := make([]webhookOut, len(list))
	for i, w := range list {
		out[i] = webhookOut{ID: strconv.FormatInt(w.ID, 10), URL: w.URL, Events: strings.Join(w.Events, ","), Status: w.Status(),
			Projects: taskd.JoinIDs(w.Projects), Errors: w.Errors, LastError: w.LastError, ActsFor: "account"}
		if w.By != 0 {
			out[i].ActsFor = w.ActsFor.Email
		}
		if !w.LastDelivery.IsZero() {
			out[i].LastDeliveryAt = wire.FormatDateTime(w.LastDelivery)
		}
	}
	return ok(out), nil
}

// addOut is add_webhook's answer: the id as an integer (spec) and the
// signing secret, shown only here.
type addOut struct {
	Status string `json:"status"`
	ID     int64  `json:"id"`
	Secret string `json:"secret"`
}

func addWebhook(c *call) (any, error) {
	hooks, err := c.webhooks()
	if err != nil {
		return nil, err
	}
	in := taskd.WebhookInput{Projects: c.p["projects"], HTTPUser: c.p["http_user"], HTTPPass: c.p["http_pass"]}
	if in.URL, err = c.required("url"); err != nil {
		return nil, err
	}
	if in.Events, err = c.required("events"); err != nil {
		return nil, err
	}
	w, sec, err := hooks.Add(c.ctx, c.viewer(), in, taskd.WebhookEvents)
	if err != nil {
		return nil, err
	}
	return addOut{Status: "ok", ID: w.ID, Secret: sec}, nil
}

// The operations on one webhook named by id.
func deleteWebhook(h WebhookService, c *call, id int64) error {
	return h.Delete(c.ctx, c.accountID(), id)
}
func disableWebhook(h WebhookService, c *call, id int64) error {
	return h.Disable(c.ctx, c.accountID(), id)
}

// enableWebhook enables a webhook, which from then on acts for the caller.
func enableWebhook(h WebhookService, c *call, id int64) error {
	return h.Enable(c.ctx, c.accountID(), id, c.personID())
}

// webhookAction adapts an operation on one webhook, named by id, to an action.
func webhookAction(op func(WebhookService, *call, int64) error) func(*call) (any, error) {
	return func(c *call) (any, error) {
		hooks, err := c.webhooks()
		if err != nil {
			return nil, err
		}
		v, err := c.required("id")
		if err != nil {
			return nil, err
		}
		id, err := taskd.ParseID(v, "webhook")
		if err != nil {
			return nil, err
		}
		if err := op(hooks, c, id); err != nil {
			return nil, err
		}
		return okBody{Status: "ok"}, nil
	}
}
