package importer

import "context"

// ahead reads ahead: it calls fetch for each of keys, up to n at a time
// and at most 2n ahead of use, and hands each result to use in the keys'
// order, so a run reads the source with its bounded concurrency while it
// writes one object at a time, in order. The first error of fetch or use
// stops it (the fetches still running are cancelled) and is returned.
func ahead[K, V any](ctx context.Context, n int, keys []K, fetch func(context.Context, K) (V, error), use func(K, V) error) error {
	if n < 1 {
		n = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
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
	go func() {
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
			go func() {
				v, err := fetch(ctx, k)
				<-running
				slots[i] <- result{v, err}
			}()
		}
	}()
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
	}
	return nil
}
