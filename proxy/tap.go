package proxy

import (
	"sync"
	"time"
)

// Tap hands frames and events to an [Observer] on a goroutine of its own
// through a queue bounded in count and in bytes. Send never waits: when the
// queue is full the frame is dropped and counted, and the count reaches the
// observer as a "dropped" event once there is room again (and at Close).
// The relay calls Send; nothing the observer does can hold it up.
type Tap struct {
	obs   Observer
	limit int // bytes of a frame kept
	// batchDelay is how long the observers' goroutine, once woken, lets
	// frames gather before it takes them.
	batchDelay time.Duration
	// flushDelay is how long what a [Flusher] buffered may wait to be
	// flushed.
	flushDelay time.Duration
	maxBytes   int64 // bytes queued at most

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []item
	queued  int64
	dropped int64
	closed  bool
	// flushDue is set by the flush timer and taken by run.
	flushDue bool
	done     chan struct{}
	session  string // stamped on frames that name no session
}

type item struct {
	frame Frame
	event *Event
}

// Tap defaults: a frame is kept whole up to the default message-size limit
// of mcpctl, and the queue holds what a slow observer may fall behind by.
const (
	DefaultFrameLimit  = 256 << 20
	DefaultQueueFrames = 1 << 16
	DefaultQueueBytes  = 512 << 20
	DefaultBatchDelay  = time.Millisecond
	DefaultFlushDelay  = 50 * time.Millisecond
)

// NewTap starts a tap delivering to obs. frameLimit is how many bytes of a
// frame observers get (the rest is counted in Frame.Size); maxBytes bounds
// the bytes waiting in the queue. Zero values take the defaults.
func NewTap(obs Observer, frameLimit int, maxBytes int64) *Tap {
	if frameLimit <= 0 {
		frameLimit = DefaultFrameLimit
	}
	if maxBytes <= 0 {
		maxBytes = DefaultQueueBytes
	}
	t := &Tap{obs: obs, limit: frameLimit, maxBytes: maxBytes, batchDelay: DefaultBatchDelay, flushDelay: DefaultFlushDelay, done: make(chan struct{})}
	t.cond = sync.NewCond(&t.mu)
	go t.run()
	return t
}

// SetSession makes session the HTTP session of every frame sent after it
// that names none: a tap that serves one HTTP session alone (a --listen
// bridge's session, whose server is a process of its own) files its
// frames under it as the reverse proxy files each frame under its own.
func (t *Tap) SetSession(session string) {
	t.mu.Lock()
	t.session = session
	t.mu.Unlock()
}

// FrameLimit is how many bytes of a frame the tap keeps.
func (t *Tap) FrameLimit() int { return t.limit }

// Send queues f for the observer, or drops it when the queue is full.
func (t *Tap) Send(f Frame) {
	size := int64(len(f.Data))
	t.mu.Lock()
	if t.closed || len(t.queue) >= DefaultQueueFrames || (t.queued+size > t.maxBytes && len(t.queue) > 0) {
		t.dropped++
		t.mu.Unlock()
		return
	}
	if f.Session == "" {
		f.Session = t.session
	}
	t.queue = append(t.queue, item{frame: f})
	t.queued += size
	t.mu.Unlock()
	t.cond.Signal()
}

// Note queues an event. Events are few and small: they are queued even
// when frames are being dropped, so that the observer learns how the
// session ended.
func (t *Tap) Note(name string, detail any) {
	e := &Event{Time: time.Now(), Name: name, Detail: detail}
	t.mu.Lock()
	if !t.closed {
		t.queue = append(t.queue, item{event: e})
	}
	t.mu.Unlock()
	t.cond.Signal()
}

// Close delivers what is queued, then a last "dropped" event if frames
// were dropped, and returns once the observer has seen everything.
func (t *Tap) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cond.Signal()
	<-t.done
}

func (t *Tap) run() {
	defer close(t.done)
	flusher, _ := t.obs.(Flusher)
	// A flush is a system call, and each one wakes the Go runtime's
	// monitor thread, which then polls every few microseconds for a while;
	// on a machine with few cores that steals time from the relay. So what
	// the observers buffer is flushed once flushDelay after the first batch
	// it holds, not after every batch, and at the end.
	var timer *time.Timer
	armed := false
	var reported int64
	for {
		t.mu.Lock()
		for len(t.queue) == 0 && !t.closed && !t.flushDue {
			t.cond.Wait()
		}
		if len(t.queue) > 0 && !t.closed && t.batchDelay > 0 {
			// Woken by the first frame of a burst: let the rest of it
			// queue, so that a busy session wakes the observers once per
			// batch rather than once per frame (frames queued meanwhile
			// signal nobody, which costs the relay nothing).
			t.mu.Unlock()
			time.Sleep(t.batchDelay)
			t.mu.Lock()
		}
		batch := t.queue
		t.queue = nil
		t.queued = 0
		dropped, closed, due := t.dropped, t.closed, t.flushDue
		t.flushDue = false
		t.mu.Unlock()
		if dropped > reported {
			// Said before the frames that got through after the drop, so
			// that an observer correlating requests knows some are missing.
			t.obs.Event(Event{Time: time.Now(), Name: "dropped", Detail: map[string]int64{"frames": dropped - reported}})
			reported = dropped
		}
		for _, it := range batch {
			if it.event != nil {
				t.obs.Event(*it.event)
			} else {
				t.obs.Frame(it.frame)
			}
		}
		if closed && len(batch) == 0 {
			t.mu.Lock()
			dropped = t.dropped
			t.mu.Unlock()
			if dropped > reported {
				t.obs.Event(Event{Time: time.Now(), Name: "dropped", Detail: map[string]int64{"frames": dropped - reported}})
			}
			if timer != nil {
				timer.Stop()
			}
			if flusher != nil {
				flusher.Flush()
			}
			return
		}
		switch {
		case flusher == nil:
		case due || t.flushDelay <= 0:
			flusher.Flush()
			armed = false
		case len(batch) > 0 && !armed:
			armed = true
			if timer == nil {
				timer = time.AfterFunc(t.flushDelay, t.flushTime)
			} else {
				timer.Reset(t.flushDelay)
			}
		}
	}
}

// flushTime wakes run to flush the observers.
func (t *Tap) flushTime() {
	t.mu.Lock()
	t.flushDue = true
	t.mu.Unlock()
	t.cond.Signal()
}
