package proxy

import (
	"sync"
	"testing"
	"time"
)

// flushRecorder is a recorder that counts its flushes and says when one
// happens.
type flushRecorder struct {
	recorder
	mu      sync.Mutex
	flushes int
	flushed chan int      // frames seen at each flush, when set
	seen    chan struct{} // a token per frame, when set
}

func (r *flushRecorder) Frame(f Frame) {
	r.recorder.Frame(f)
	if r.seen != nil {
		r.seen <- struct{}{}
	}
}

func (r *flushRecorder) Flush() {
	r.mu.Lock()
	r.flushes++
	r.mu.Unlock()
	if r.flushed != nil {
		r.recorder.mu.Lock()
		n := len(r.recorder.frames)
		r.recorder.mu.Unlock()
		r.flushed <- n
	}
}

func (r *flushRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushes
}

// newTestTap is NewTap with the flush delay given.
func newTestTap(obs Observer, flushDelay time.Duration) *Tap {
	t := &Tap{obs: obs, limit: DefaultFrameLimit, maxBytes: DefaultQueueBytes, flushDelay: flushDelay, done: make(chan struct{})}
	t.cond = sync.NewCond(&t.mu)
	go t.run()
	return t
}

func TestTapFlushesOnceAfterTheDelay(t *testing.T) {
	rec := &flushRecorder{flushed: make(chan int, 4)}
	tap := newTestTap(rec, time.Millisecond)
	for range 3 {
		tap.Send(Frame{Dir: HostToServer, Data: []byte(`{}`), Size: 2})
	}
	// Flushed by the timer while the session runs, not only at Close: a
	// watcher following the log sees the frames.
	if n := <-rec.flushed; n == 0 {
		t.Errorf("flushed before the frames were written")
	}
	tap.Close()
	if n := <-rec.flushed; n != 3 {
		t.Errorf("the last flush saw %d frames, want 3", n)
	}
}

func TestTapDoesNotFlushEachBatch(t *testing.T) {
	rec := &flushRecorder{seen: make(chan struct{})}
	tap := newTestTap(rec, time.Hour)
	for range 20 {
		tap.Send(Frame{Dir: HostToServer, Data: []byte(`{}`), Size: 2})
		<-rec.seen // each frame its own batch
	}
	if n := rec.count(); n != 0 {
		t.Errorf("%d flushes before the delay, want none", n)
	}
	tap.Close()
	if n := rec.count(); n != 1 {
		t.Errorf("%d flushes at Close, want 1", n)
	}
}
