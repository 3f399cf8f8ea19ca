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
	"time"

	"github.com/taskd/taskd/webhook"
)

// listen is a webhook receiver for developers: it answers {"status":"OK"},
// verifies signatures when given the secret, and prints each event.
func listen(ctx context.Context, e env, args []string) error {
	fs := newFlags("listen", "Receive webhooks and print them: a destination to try taskd's webhooks with.")
	addr := fs.String("addr", "127.0.0.1:9000", "address to listen on")
	sec := fs.String("secret", "", "the webhook's whsec_ secret; when set, deliveries with a bad signature are refused (401)")
	if err := parseFlags(fs, e, args); err != nil {
		return helpOK(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
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
		verdict := "signature not checked (no --secret)"
		if *sec != "" {
			if err := webhook.Verify(*sec, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"),
				r.Header.Get("webhook-signature"), body, time.Now(), 5*time.Minute); err != nil {
				fmt.Fprintf(e.stdout, "%s  REFUSED %s: %v\n", time.Now().Format("15:04:05"), r.Header.Get("webhook-id"), err)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"status":"bad signature"}`))
				return
			}
			verdict = "signature ok"
		}
		printDelivery(e.stdout, r.Header.Get("webhook-id"), verdict, body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"OK"}`))
	})}
	fmt.Fprintf(e.stdout, "taskd listen: receiving webhooks on http://%s/ (answering {\"status\":\"OK\"})\n", ln.Addr())
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
