package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/taskd/taskd/api"
	"github.com/taskd/taskd/secret"
	"github.com/taskd/taskd/store"
)

// routes lists every address the server answers, in one place.
func routes(db *store.DB, sealer *secret.Sealer, log *slog.Logger, now func() time.Time) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := db.Ping(r.Context()); err != nil {
			log.WarnContext(r.Context(), "not ready", "err", err)
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})

	admin := api.NewAdmin(db, sealer, log, now)
	mux.Handle("/a/{slug}/api/admin/v2", admin)
	mux.Handle("/a/{slug}/api/admin/v2/{$}", admin)

	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"status":"error","status_code":0,"message":"Not found"}` + "\n"))
	})
	return withRecover(log, withAccessLog(log, mux))
}
