package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// backupUnderLoad runs "taskd backup" while two clients create tasks
// without pause, then restores the backup into a new data directory,
// serves it, and checks that it answers as the account did: every
// top-level task of the restored get_all_tasks is, byte for byte, one the
// original answers after the load stopped, and the restored list holds at
// least every task there was before the load began.
func backupUnderLoad(ctx context.Context, bin string, st storage, key, tmp string) (string, error) {
	s, err := start(ctx, bin, st, false)
	if err != nil {
		return "", err
	}
	stopped := false
	defer func() {
		if !stopped {
			s.stop()
		}
	}()
	a := account{server: s, slug: slug, key: key}
	before, err := a.call("action", "get_all_tasks")
	if err != nil {
		return "", err
	}
	nBefore, err := countTasks(before)
	if err != nil {
		return "", err
	}
	body, err := a.call("action", "post_project", "title", "Load")
	if err != nil {
		return "", err
	}
	var p struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return "", err
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var writes, failures atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	for c := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; loadCtx.Err() == nil; i++ {
				began := time.Now()
				if err := a.post("post_task", "id_project", p.Data.ID, "title", fmt.Sprintf("load %d.%d", c, i)); err != nil {
					if loadCtx.Err() == nil {
						failures.Add(1)
					}
					continue
				}
				writes.Add(1)
				mu.Lock()
				lat = append(lat, time.Since(began))
				mu.Unlock()
			}
		}()
	}
	time.Sleep(time.Second)
	file := filepath.Join(tmp, fmt.Sprintf("backup-%d.db", time.Now().UnixNano()))
	began, atStart := time.Now(), writes.Load()
	out, err := exec.CommandContext(ctx, bin, "backup", "--data", st.data, "--to", file).CombinedOutput()
	took := time.Since(began)
	duringBackup := writes.Load() - atStart
	time.Sleep(time.Second)
	stopLoad()
	wg.Wait()
	if err != nil {
		return "", fmt.Errorf("taskd backup: %w: %s", err, out)
	}
	after, err := a.call("action", "get_all_tasks")
	if err != nil {
		return "", err
	}
	s.stop()
	stopped = true

	restored := storage{data: filepath.Join(tmp, fmt.Sprintf("restored-%d", time.Now().UnixNano()))}
	if err := os.MkdirAll(restored.data, 0o700); err != nil {
		return "", err
	}
	keyFile, err := os.ReadFile(filepath.Join(st.data, "master.key"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(restored.data, "master.key"), keyFile, 0o600); err != nil {
		return "", err
	}
	if out, err := exec.CommandContext(ctx, bin, "restore", "--data", restored.data, "--from", file).CombinedOutput(); err != nil {
		return "", fmt.Errorf("taskd restore: %w: %s", err, out)
	}
	r, err := start(ctx, bin, restored, false)
	if err != nil {
		return "", err
	}
	defer r.stop()
	got, err := account{server: r, slug: slug, key: key}.call("action", "get_all_tasks")
	if err != nil {
		return "", err
	}
	if err := sameTasks(got, after, nBefore); err != nil {
		return "", err
	}
	nGot, _ := countTasks(got)
	nAfter, _ := countTasks(after)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p99 := time.Duration(0)
	if len(lat) > 0 {
		p99 = lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return fmt.Sprintf("backup=%s writes_during=%d write_failures=%d write_p99=%s tasks_before=%d restored=%d after_load=%d restored_answers_same=yes",
		ms(took), duringBackup, failures.Load(), ms(p99), nBefore, nGot, nAfter), nil
}

// topLevel reads get_all_tasks' top-level entries by id.
func topLevel(body []byte) (map[string]json.RawMessage, error) {
	var env struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(env.Data))
	for _, raw := range env.Data {
		var t struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, err
		}
		out[t.ID] = raw
	}
	return out, nil
}

func countTasks(body []byte) (int, error) {
	m, err := topLevel(body)
	return len(m), err
}

// sameTasks checks that every top-level task of got is one of want's, the
// same bytes, and that got has at least atLeast of them.
func sameTasks(got, want []byte, atLeast int) error {
	g, err := topLevel(got)
	if err != nil {
		return err
	}
	w, err := topLevel(want)
	if err != nil {
		return err
	}
	if len(g) < atLeast {
		return fmt.Errorf("restored account has %d top-level tasks, the account had %d before the load", len(g), atLeast)
	}
	for id, raw := range g {
		if string(w[id]) != string(raw) {
			return fmt.Errorf("restored task %s differs: %.200s", id, raw)
		}
	}
	return nil
}

// createDatabase makes a fresh database on the server of admin and
// returns its URL.
func createDatabase(ctx context.Context, admin, name string) (string, error) {
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return "", fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

func dropDatabase(ctx context.Context, admin, name string) {
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return
	}
	defer db.Close()
	db.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
}
