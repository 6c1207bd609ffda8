// Package watchers wakes the watchers of a changing state. Each watcher
// gets a channel with room for one value, so wake-ups coalesce and the
// one that changes the state never blocks on a slow watcher.
package watchers

import (
	"context"
	"sync"
)

// Set is the watchers of one state. The zero Set is ready to use.
type Set struct {
	mu  sync.Mutex
	chs map[chan struct{}]struct{}
}

// Watch returns a channel that receives a value after every Wake
// (coalesced); it is closed when ctx ends.
func (s *Set) Watch(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	if s.chs == nil {
		s.chs = map[chan struct{}]struct{}{}
	}
	s.chs[ch] = struct{}{}
	s.mu.Unlock()
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		delete(s.chs, ch)
		s.mu.Unlock()
		close(ch)
	})
	return ch
}

// Wake tells every watcher the state may have changed, without blocking.
func (s *Set) Wake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.chs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
