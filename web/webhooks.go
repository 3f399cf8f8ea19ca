package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/webhook"
)

// webhookRoutes are the addresses of an account's webhooks; none without
// Config.Hooks.
func (s *Server) webhookRoutes() []route {
	if s.cfg.Hooks == nil {
		return nil
	}
	return []route{
		{"GET /a/{slug}/settings/webhooks", s.page(s.inAccount(taskd.PermSettings, s.webhooks))},
		{"POST /a/{slug}/settings/webhooks", s.form(s.inAccount(taskd.PermSettings, s.createWebhook))},
		{"GET /a/{slug}/settings/webhooks/{webhook}", s.page(s.inAccount(taskd.PermSettings, s.webhookPage))},
		{"POST /a/{slug}/settings/webhooks/{webhook}/enable", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.enableWebhook)))},
		{"POST /a/{slug}/settings/webhooks/{webhook}/disable", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.disableWebhook)))},
		{"POST /a/{slug}/settings/webhooks/{webhook}/test", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.testWebhook)))},
		{"POST /a/{slug}/settings/webhooks/{webhook}/rotate", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.rotateWebhook)))},
		{"POST /a/{slug}/settings/webhooks/{webhook}/redeliver", s.form(s.inAccount(taskd.PermSettings, s.webhookOp(s.redeliver)))},
		{"POST /a/{slug}/settings/webhooks/{webhook}/delete", s.form(s.inAccount(taskd.PermSettings, s.deleteWebhook))},
	}
}

// webhookFuncs are the template functions of the webhook pages.
func webhookFuncs() template.FuncMap {
	return template.FuncMap{
		"ms":      func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) },
		"joinIDs": taskd.JoinIDs,
		"reason":  webhook.Explain,
	}
}

// webhooksView is the webhooks list with the create form.
type webhooksView struct {
	Account  taskd.Account
	Webhooks []taskd.Webhook
	Projects []taskd.Project
	Events   []string
	Shown    *flash
	Error    string
	Form     taskd.WebhookInput
	Checked  map[string]bool // events ticked in the form
}

func (s *Server) webhooksPath(acct taskd.Account) string {
	return "/a/" + acct.Slug + "/settings/webhooks"
}

func (s *Server) webhooks(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	return s.renderWebhooks(w, r, v, me, http.StatusOK, &webhooksView{Account: acct, Shown: s.takeFlash(w, r),
		Checked: map[string]bool{"post_task": true}})
}

func (s *Server) renderWebhooks(w http.ResponseWriter, r *http.Request, v *view, me member, status int, wv *webhooksView) error {
	var err error
	if wv.Webhooks, err = s.cfg.Hooks.List(r.Context(), wv.Account.ID); err != nil {
		return err
	}
	if wv.Projects, err = s.cfg.Projects.Projects(r.Context(), me.viewer(), taskd.ProjectActive); err != nil {
		return err
	}
	wv.Events = taskd.SubscribableEvents
	v.Title, v.Data = "Webhooks", wv
	return s.renderStatus(w, r, status, "webhooks.html", v)
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct := me.Account
	in := taskd.WebhookInput{URL: strings.TrimSpace(r.PostFormValue("url")), Events: strings.Join(r.PostForm["events"], ","),
		Projects: strings.Join(r.PostForm["projects"], ","), HTTPUser: r.PostFormValue("http_user"), HTTPPass: r.PostFormValue("http_pass")}
	hook, sec, err := s.cfg.Hooks.Add(r.Context(), me.viewer(), in, taskd.SubscribableEvents)
	var te *taskd.Error
	if errors.As(err, &te) && te.Kind != taskd.KindInternal {
		msg := te.Message
		if why, ok := checkFailure(te); ok {
			msg = why
		}
		checked := map[string]bool{}
		for _, e := range r.PostForm["events"] {
			checked[e] = true
		}
		in.HTTPPass = ""
		return s.renderWebhooks(w, r, v, me, http.StatusUnprocessableEntity, &webhooksView{Account: acct, Error: msg, Form: in, Checked: checked})
	}
	if err != nil {
		return err
	}
	s.setFlash(w, flash{Secret: sec, Message: webhookName(hook) + " created. It is disabled: enable it when you are ready."})
	return see303(w, r, s.webhookPath(acct, hook.ID))
}

func (s *Server) webhookPath(acct taskd.Account, id int64) string {
	return s.webhooksPath(acct) + "/" + strconv.FormatInt(id, 10)
}

// webhookView is one webhook's page: state, actions, chart and log.
type webhookView struct {
	Account  taskd.Account
	Hook     taskd.Webhook
	Shown    *flash
	Attempts []taskd.Attempt
	Expired  []taskd.Delivery
	Chart    chart
}

// hook reads the path's webhook of the account; ok false when it answered.
func (s *Server) hook(w http.ResponseWriter, r *http.Request, acct taskd.Account) (taskd.Account, taskd.Webhook, bool, error) {
	id, err := taskd.ParseID(r.PathValue("webhook"), "webhook")
	var hook taskd.Webhook
	if err == nil {
		hook, err = s.cfg.Webhooks.Webhook(r.Context(), acct.ID, id)
	}
	if taskd.IsNotFound(err) {
		return acct, hook, false, s.failWith(w, r, err)
	}
	return acct, hook, err == nil, err
}

func (s *Server) webhookPage(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct, hook, ok, err := s.hook(w, r, me.Account)
	if !ok {
		return err
	}
	ctx := r.Context()
	wv := &webhookView{Account: acct, Hook: hook, Shown: s.takeFlash(w, r)}
	if wv.Attempts, err = s.cfg.Webhooks.Attempts(ctx, acct.ID, hook.ID, 50); err != nil {
		return err
	}
	if wv.Expired, err = s.cfg.Webhooks.ExpiredDeliveries(ctx, acct.ID, hook.ID, 20); err != nil {
		return err
	}
	now := s.cfg.Now()
	stats, err := s.cfg.Webhooks.AttemptStats(ctx, acct.ID, hook.ID, now.Add(-24*time.Hour))
	if err != nil {
		return err
	}
	wv.Chart = newChart(stats, now)
	v.Title, v.Data = webhookName(hook), wv
	return s.render(w, r, "webhook.html", v)
}

// webhookOp runs a POST on one webhook and returns to its page with a message.
func (s *Server) webhookOp(op func(r *http.Request, me member, hook taskd.Webhook) (flash, error)) accountHandler {
	return func(w http.ResponseWriter, r *http.Request, v *view, me member) error {
		acct, hook, ok, err := s.hook(w, r, me.Account)
		if !ok {
			return err
		}
		f, err := op(r, me, hook)
		var te *taskd.Error
		if errors.As(err, &te) && te.Kind != taskd.KindInternal {
			f = flash{Failed: true, Message: te.Message}
			if why, ok := checkFailure(te); ok {
				f.Message = why
			}
		} else if err != nil {
			return err
		}
		s.setFlash(w, f)
		return see303(w, r, s.webhookPath(acct, hook.ID))
	}
}

// checkFailure is what the pages say of a failed URL check
// (webhook.CheckFailed): its one reason, in words, and what the URL must
// do. ok is false for other errors.
func checkFailure(te *taskd.Error) (string, bool) {
	if te.Kind != taskd.KindInvalid || te.Field != "url" || te.Err == nil {
		return "", false
	}
	return webhook.Explain("The URL check failed: "+te.Err.Error()) +
		`. The URL must answer a POST within 5 seconds with HTTP 200, a JSON content type and {"status":"OK"}.`, true
}

// enableWebhook enables a disabled webhook, or one failing, and says how
// many held events it will now send.
func (s *Server) enableWebhook(r *http.Request, me member, hook taskd.Webhook) (flash, error) {
	acct := me.Account
	held, err := s.cfg.Hooks.EnableHeld(r.Context(), acct.ID, hook.ID, me.Member.ID)
	return flash{Message: "Webhook enabled: " + heldText(held) + "."}, err
}

// heldText says how many held events a webhook will send.
func heldText(n int) string {
	switch n {
	case 0:
		return "no held events; new events will be sent as they happen"
	case 1:
		return "1 held event will now be sent"
	}
	return strconv.Itoa(n) + " held events will now be sent"
}

func (s *Server) disableWebhook(r *http.Request, me member, hook taskd.Webhook) (flash, error) {
	acct := me.Account
	return flash{Message: "Disabled. New events are held for up to 72 hours."}, s.cfg.Hooks.Disable(r.Context(), acct.ID, hook.ID)
}

func (s *Server) testWebhook(r *http.Request, me member, hook taskd.Webhook) (flash, error) {
	acct := me.Account
	_, res, err := s.cfg.Hooks.Test(r.Context(), acct.ID, hook.ID)
	if err != nil {
		return flash{}, err
	}
	if res.OK {
		return flash{Message: fmt.Sprintf("The URL check passed: HTTP %d in %d ms.", res.Status, res.Latency.Milliseconds())}, nil
	}
	return flash{Failed: true, Message: webhook.Explain("The URL check failed: "+res.Error) + "." + answerExcerpt(res.Response)}, nil
}

// answerExcerpt shows the start of the receiver's answer after a failed
// check.
func answerExcerpt(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return " Its answer: " + s
}

func (s *Server) rotateWebhook(r *http.Request, me member, hook taskd.Webhook) (flash, error) {
	acct := me.Account
	sec, err := s.cfg.Hooks.RotateSecret(r.Context(), acct.ID, hook.ID)
	return flash{Secret: sec, Message: "New signing secret made; the old one no longer signs."}, err
}

func (s *Server) redeliver(r *http.Request, me member, hook taskd.Webhook) (flash, error) {
	acct := me.Account
	id, err := taskd.ParseID(r.PostFormValue("delivery_id"), "delivery")
	if err == nil {
		err = s.cfg.Hooks.Redeliver(r.Context(), acct.ID, id)
	}
	return flash{Message: "Queued for delivery again."}, err
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, v *view, me member) error {
	acct, hook, ok, err := s.hook(w, r, me.Account)
	if !ok {
		return err
	}
	if err := s.cfg.Hooks.Delete(r.Context(), acct.ID, hook.ID); err != nil {
		return err
	}
	s.setFlash(w, flash{Message: webhookName(hook) + " deleted."})
	return see303(w, r, s.webhooksPath(acct))
}

// webhookName names a webhook by where it delivers, which is how people
// know it, rather than by its number: "Webhook to hooks.example.com/taskd".
func webhookName(w taskd.Webhook) string {
	u, err := url.Parse(w.URL)
	if err != nil || u.Host == "" {
		return "Webhook " + strconv.FormatInt(w.ID, 10)
	}
	path := strings.TrimSuffix(u.Path, "/")
	if r := []rune(path); len(r) > 60 { // a notice's cookie has room for a name, not a whole URL
		path = string(r[:59]) + "…"
	}
	return "Webhook to " + u.Host + path
}
