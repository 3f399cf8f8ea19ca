package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/taskd/taskd/webhook"
)

// listen is a webhook receiver for developers: it answers {"status":"OK"},
// verifies signatures when given the secret, and prints each event.
func listen(ctx context.Context, e env, args []string) error {
	fs := newFlags("listen", "Receive webhooks and print them: a destination to try taskd's webhooks with.")
	addr := fs.String("addr", "127.0.0.1:9000", "address to listen on")
	var secrets stringList
	fs.Var(&secrets, "secret", "a webhook's whsec_ `secret`; repeat for several webhooks. When set, deliveries whose signature matches none are refused (401); "+
		"URL checks are answered whatever their signature, since a new webhook's comes before you can know its secret")
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	ln, err := listenOn(*addr, "addr")
	if err != nil {
		return err
	}
	var mu sync.Mutex // keeps printed events whole
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, webhook.MaxPayload+1))
		if err != nil || r.Method != http.MethodPost {
			http.Error(w, `{"status":"error"}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		from := r.Header.Get("webhook-id") + " on " + r.URL.Path
		verdict, err := checkSignature(secrets, r.Header, body)
		switch {
		case err == nil:
			printDelivery(e.stdout, from, verdict, body)
		case isURLCheck(body):
			fmt.Fprintf(e.stdout, "%s  URL check answered (%s), %s\n", clock(), from, unverifiedCheck(err))
		default:
			fmt.Fprintf(e.stdout, "%s  REFUSED %s (%s): %v\n", clock(), from, summary(body), err)
			answer(w, http.StatusUnauthorized, "bad signature")
			return
		}
		answer(w, http.StatusOK, "OK")
	})}
	fmt.Fprintf(e.stdout, "taskd listen: receiving webhooks on http://%s/ (answering {\"status\":\"OK\"}); %s\n", ln.Addr(), checking(len(secrets)))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// answer writes listen's JSON answer: {"status":"OK"} is what taskd wants.
func answer(w http.ResponseWriter, code int, status string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"status":%q}`, status)
}

// clock is the time printed before each line.
func clock() string { return time.Now().Format("15:04:05") }

// listenOn listens on the address that flag gives. An address in use, or
// one that cannot be had, is said in one line that names the flag.
func listenOn(addr, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%s is in use; choose another with --%s (or %s)", addr, flag, envName(flag))
	case err != nil:
		return nil, fmt.Errorf("--%s %s: %w", flag, addr, err)
	}
	return ln, nil
}

// checking says what listen does with signatures.
func checking(secrets int) string {
	switch secrets {
	case 0:
		return "signatures not checked (no --secret)"
	case 1:
		return "checking signatures with the secret given"
	}
	return fmt.Sprintf("checking signatures with the %d secrets given", secrets)
}

// checkSignature verifies a delivery against each secret in turn. It
// reports which one matched (by its place on the command line), or, when
// none did, an error that says what to do (webhook.ErrStale when the
// timestamp is what failed).
func checkSignature(secrets []string, h http.Header, body []byte) (verdict string, err error) {
	if len(secrets) == 0 {
		return "signature not checked (no --secret)", nil
	}
	var last error
	for i, sec := range secrets {
		err := webhook.Verify(sec, h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature"), body, time.Now(), 5*time.Minute)
		if err == nil {
			if len(secrets) == 1 {
				return "signature ok", nil
			}
			return fmt.Sprintf("signature ok, secret %d of %d", i+1, len(secrets)), nil
		}
		last = err
	}
	if errors.Is(last, webhook.ErrStale) {
		return "", fmt.Errorf("%w (is this machine's clock right?)", last)
	}
	return "", fmt.Errorf("the signature matches none of the %d secret(s) given (%v). Each webhook has its own secret: "+
		"pass this webhook's with another --secret, or rotate it on the webhook's page to see a new one", len(secrets), last)
}

// isURLCheck reports whether a body is taskd's URL check: an empty JSON
// array, which carries no event. add_webhook signs it with the new
// webhook's secret, shown only in add_webhook's answer, so listen cannot
// have it yet: it answers a check whatever its signature, and refuses
// every delivery of events whose signature matches no secret given.
func isURLCheck(body []byte) bool {
	var events []json.RawMessage
	return json.Unmarshal(body, &events) == nil && events != nil && len(events) == 0
}

// unverifiedCheck says why a URL check that listen answered did not
// verify, and what that means for the webhook's deliveries.
func unverifiedCheck(err error) string {
	if errors.Is(err, webhook.ErrStale) {
		return fmt.Sprintf("though %v", err)
	}
	return "its signature is by a secret not given (a new webhook?): its deliveries will be refused " +
		"until listen runs with its secret as another --secret"
}
