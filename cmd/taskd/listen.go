package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
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
	fs.Var(&secrets, "secret", "a webhook's whsec_ `secret`; repeat for several webhooks. When set, deliveries whose signature matches none are refused (401)")
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
		id := r.Header.Get("webhook-id")
		verdict, ok := checkSignature(secrets, r.Header, body)
		if !ok {
			fmt.Fprintf(e.stdout, "%s  REFUSED %s on %s (%s): %s\n", time.Now().Format("15:04:05"), id, r.URL.Path, summary(body), verdict)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"status":"bad signature"}`))
			return
		}
		printDelivery(e.stdout, id, verdict, body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
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
// none did, a reason that says what to do.
func checkSignature(secrets []string, h http.Header, body []byte) (verdict string, ok bool) {
	if len(secrets) == 0 {
		return "signature not checked (no --secret)", true
	}
	var last error
	for i, sec := range secrets {
		err := webhook.Verify(sec, h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature"), body, time.Now(), 5*time.Minute)
		if err == nil {
			if len(secrets) == 1 {
				return "signature ok", true
			}
			return fmt.Sprintf("signature ok, secret %d of %d", i+1, len(secrets)), true
		}
		last = err
	}
	if errors.Is(last, webhook.ErrStale) {
		return fmt.Sprintf("%v (is this machine's clock right?)", last), false
	}
	return fmt.Sprintf("the signature matches none of the %d secret(s) given (%v). Each webhook has its own secret: "+
		"pass this webhook's with another --secret, or rotate it on the webhook's page to see a new one", len(secrets), last), false
}

// summary names a delivery's events without trusting them: what a
// refused delivery was, to tell which webhook sent it.
func summary(body []byte) string {
	var events []struct {
		Event  string                    `json:"event"`
		Object struct{ Type, ID string } `json:"object"`
	}
	if json.Unmarshal(body, &events) != nil {
		return "not a JSON array"
	}
	if len(events) == 0 {
		return "URL check"
	}
	parts := make([]string, 0, min(3, len(events)))
	for _, ev := range events[:min(3, len(events))] {
		parts = append(parts, ev.Event+" "+ev.Object.Type+" "+ev.Object.ID)
	}
	if len(events) > 3 {
		parts = append(parts, fmt.Sprintf("and %d more", len(events)-3))
	}
	return strings.Join(parts, ", ")
}

// printDelivery prints one line per event, with the event's id (what a
// receiver deduplicates on: a batch may be sent again), then its changes.
func printDelivery(out io.Writer, id, verdict string, body []byte) {
	var events []struct {
		ID     string `json:"id"`
		Event  string `json:"event"`
		Object struct {
			Type, ID, Page string
		} `json:"object"`
		User struct {
			Email string `json:"email"`
		} `json:"user_from"`
		New map[string]any `json:"new"`
		Old map[string]any `json:"old"`
	}
	now := time.Now().Format("15:04:05")
	if err := json.Unmarshal(body, &events); err != nil {
		fmt.Fprintf(out, "%s  %s (%s): not a JSON array: %s\n", now, id, verdict, bytes.TrimSpace(body))
		return
	}
	if len(events) == 0 {
		fmt.Fprintf(out, "%s  URL check  (%s; %s)\n", now, id, verdict)
		return
	}
	for _, ev := range events {
		fmt.Fprintf(out, "%s  event %s  %-15s %s %s by %s  (%s; %s)\n", now, ev.ID, ev.Event, ev.Object.Type, ev.Object.ID, ev.User.Email, id, verdict)
		keys := make([]string, 0, len(ev.New))
		for k := range ev.New {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			line := fmt.Sprintf("    %s: %s", k, show(ev.New[k]))
			if old, ok := ev.Old[k]; ok {
				line = fmt.Sprintf("    %s: %s → %s", k, show(old), show(ev.New[k]))
			}
			fmt.Fprintln(out, strings.ReplaceAll(line, "\n", " "))
		}
	}
}

// show renders a field value: people by name, empty values as a dash.
func show(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if name, ok := x["name"].(string); ok {
			return name
		}
	case string:
		if x == "" {
			return "—"
		}
		return x
	case nil:
		return "—"
	}
	return fmt.Sprint(v)
}
