package importer

import (
	"context"
	"sync"
)

// ahead reads ahead: it calls fetch for each of keys, up to n at a time
// and at most 2n ahead of use, and hands each result to use in the keys'
// order, so a run reads the source with its bounded concurrency while it
// writes one object at a time, in order. The first error of fetch or use
// stops it (the fetches still running are cancelled) and is returned.
//
// lease, when not nil, is called for each key in the keys' order before
// its fetch starts (source.Client.Lease): the fetch runs with the context
// it returns, and its release is called once use is done with the result
// (or when ahead stops), so what the results waiting for use hold stays
// within the source's memory budget, with the oldest first.
func ahead[K, V any](ctx context.Context, n int, keys []K, fetch func(context.Context, K) (V, error), use func(K, V) error,
	lease func(context.Context) (context.Context, func())) error {
	if n < 1 {
		n = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	releases := make([]func(), len(keys))
	defer func() {
		cancel()
		wg.Wait() // every fetch has ended: release what was not used
		for _, release := range releases {
			if release != nil {
				release()
			}
		}
	}()
	type result struct {
		v   V
		err error
	}
	slots := make([]chan result, len(keys))
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	window := make(chan struct{}, 2*n) // fetched or fetching, not yet used
	running := make(chan struct{}, n)  // fetching
	var mu sync.Mutex                  // releases
	wg.Go(func() {
		for i, k := range keys {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case running <- struct{}{}:
			case <-ctx.Done():
				return
			}
			fctx := ctx
			if lease != nil {
				var release func()
				fctx, release = lease(ctx)
				mu.Lock()
				releases[i] = release
				mu.Unlock()
			}
			wg.Go(func() {
				v, err := fetch(fctx, k)
				<-running
				slots[i] <- result{v, err}
			})
		}
	})
	for i, k := range keys {
		var r result
		select {
		case r = <-slots[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-window
		if r.err != nil {
			return r.err
		}
		if err := use(k, r.v); err != nil {
			return err
		}
		mu.Lock()
		release := releases[i]
		releases[i] = nil
		mu.Unlock()
		if release != nil {
			release()
		}
	}
	return nil
}
