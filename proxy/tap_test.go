package proxy

import (
	"fmt"
	"runtime"
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
	return newTap(obs, DefaultFrameLimit, DefaultQueueBytes, 0, flushDelay)
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

func TestTapDeliversEachBatchAfterItsDelay(t *testing.T) {
	rec := &flushRecorder{seen: make(chan struct{}, 8)}
	tap := newTap(rec, DefaultFrameLimit, DefaultQueueBytes, 2*time.Millisecond, time.Hour)
	defer tap.Close()
	// Two batches, each started by its first frame: the second is armed
	// again after the first was taken, and both arrive with no Close and
	// no event to push them.
	for batch := range 2 {
		for i := range 3 {
			tap.Send(Frame{Dir: HostToServer, Data: fmt.Appendf(nil, `{"id":%d}`, 3*batch+i)})
		}
		for range 3 {
			select {
			case <-rec.seen:
			case <-time.After(10 * time.Second):
				t.Fatalf("batch %d: the frames were not delivered", batch)
			}
		}
	}
	rec.recorder.mu.Lock()
	defer rec.recorder.mu.Unlock()
	for i, f := range rec.recorder.frames {
		if want := fmt.Sprintf(`{"id":%d}`, i); string(f.Data) != want {
			t.Errorf("frame %d is %s, want %s", i, f.Data, want)
		}
	}
}

func TestTapDeliversEventsAtOnce(t *testing.T) {
	rec := &recorder{}
	// A batch delay no test waits out: the event must not wait for it,
	// and it brings the frames queued before it along, in order.
	tap := newTap(rec, DefaultFrameLimit, DefaultQueueBytes, time.Hour, time.Hour)
	defer tap.Close()
	tap.Send(Frame{Dir: HostToServer, Data: []byte(`{"id":1}`)})
	tap.Note("server-exit", nil)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		rec.mu.Lock()
		n, m := len(rec.frames), len(rec.events)
		rec.mu.Unlock()
		if m > 0 {
			if n != 1 {
				t.Fatalf("the event came with %d frames, want the one sent before it", n)
			}
			return
		}
		runtime.Gosched()
	}
	t.Fatal("the event was not delivered")
}

func TestTapCountsWhatItDrops(t *testing.T) {
	rec := &heldRecorder{recorder: recorder{block: make(chan struct{})}, entered: make(chan struct{})}
	// Room for one frame of 8 bytes while the observer is held up.
	tap := newTap(rec, DefaultFrameLimit, 8, 0, time.Hour)
	tap.Send(Frame{Dir: HostToServer, Data: []byte(`{"id":0}`)})
	<-rec.entered
	for i := range 5 {
		tap.Send(Frame{Dir: HostToServer, Data: fmt.Appendf(nil, `{"id":%d}`, i+1)})
	}
	close(rec.block)
	tap.Close()
	// One of the five waited in the queue; four found it full.
	if n := dropped(rec.events); n != 4 || len(rec.frames) != 2 {
		t.Errorf("dropped %d and delivered %d frames, want 4 and 2", n, len(rec.frames))
	}
}

// heldRecorder is a recorder that says when its first frame arrives.
type heldRecorder struct {
	recorder
	entered chan struct{}
	once    sync.Once
}

func (r *heldRecorder) Frame(f Frame) {
	r.once.Do(func() { close(r.entered) })
	r.recorder.Frame(f)
}
