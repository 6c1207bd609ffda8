package watchers

import (
	"context"
	"testing"
)

func TestWatch(t *testing.T) {
	var s Set
	ctx, cancel := context.WithCancel(context.Background())
	a, b := s.Watch(ctx), s.Watch(context.Background())
	s.Wake()
	s.Wake() // coalesced with the first, and never blocks
	for _, ch := range []<-chan struct{}{a, b} {
		select {
		case <-ch:
		default:
			t.Fatal("a watcher was not woken")
		}
		select {
		case <-ch:
			t.Fatal("two wake-ups were not coalesced")
		default:
		}
	}
	cancel()
	if _, ok := <-a; ok {
		t.Fatal("a watcher's channel stays open after its context ended")
	}
	s.Wake() // a is gone; b still hears
	if _, ok := <-b; !ok {
		t.Fatal("the other watcher was not woken")
	}
}
