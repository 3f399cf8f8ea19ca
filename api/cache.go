package api

import (
	"encoding/json"
	"sync"
)

// rawJSON is a response body rendered already; writeJSON sends it as is.
type rawJSON []byte

// listKey names one rendering of a project's task list. The version comes
// from the database and increases in the transaction of every task change,
// so a cached body is never served after a change, whichever replica or
// process made it.
type listKey struct {
	account, project, version, viewer int64
	filter                            string
	text                              bool
}

// listCache keeps rendered get_tasks bodies, bounded in bytes.
type listCache struct {
	mu    sync.Mutex
	m     map[listKey]rawJSON
	size  int
	limit int
}

func newListCache(limit int) *listCache {
	return &listCache{m: make(map[listKey]rawJSON), limit: limit}
}

func (c *listCache) get(k listKey) (rawJSON, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[k]
	return b, ok
}

// put stores a body; when full it drops everything (cheap, and entries of
// older versions are dead weight anyway).
func (c *listCache) put(k listKey, b rawJSON) {
	if len(b) > c.limit/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.size+len(b) > c.limit {
		clear(c.m)
		c.size = 0
	}
	if old, ok := c.m[k]; ok {
		c.size -= len(old)
	}
	c.m[k] = b
	c.size += len(b)
}

// render marshals v once, for caching.
func render(v any) (rawJSON, error) {
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}
