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
	// batchDelay is how long frames gather after the first of a batch
	// before the observers' goroutine takes them.
	batchDelay time.Duration
	// flushDelay is how long what a [Flusher] buffered may wait to be
	// flushed.
	flushDelay time.Duration
	maxBytes   int64 // bytes queued at most

	mu      sync.Mutex
	queue   []item
	queued  int64
	dropped int64
	closed  bool
	// armed is set by the frame that starts a batch (and arms batch) and
	// cleared when run takes the queue.
	armed   bool
	batch   *time.Timer
	wake    chan struct{} // wakes run at once: events, Close
	done    chan struct{}
	session string // stamped on frames that name no session
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
	return newTap(obs, frameLimit, maxBytes, DefaultBatchDelay, DefaultFlushDelay)
}

func newTap(obs Observer, frameLimit int, maxBytes int64, batchDelay, flushDelay time.Duration) *Tap {
	t := &Tap{obs: obs, limit: frameLimit, maxBytes: maxBytes, batchDelay: batchDelay, flushDelay: flushDelay,
		batch: time.NewTimer(time.Hour), wake: make(chan struct{}, 1), done: make(chan struct{})}
	t.batch.Stop()
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
//
// Only the first frame of a batch does anything beyond the queue: it arms
// a timer, which wakes the observers' goroutine batchDelay later. Waking
// that goroutine at once instead would cost a busy session one wake-up of
// another thread for each batch, on top of the timer's.
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
	first := !t.armed
	t.armed = true
	t.mu.Unlock()
	if first {
		if t.batchDelay > 0 {
			t.batch.Reset(t.batchDelay)
		} else {
			t.nudge()
		}
	}
}

// Note queues an event. Events are few and small: they are queued even
// when frames are being dropped, so that the observer learns how the
// session ended, and they reach it at once.
func (t *Tap) Note(name string, detail any) {
	e := &Event{Time: time.Now(), Name: name, Detail: detail}
	t.mu.Lock()
	if !t.closed {
		t.queue = append(t.queue, item{event: e})
	}
	t.mu.Unlock()
	t.nudge()
}

// Close delivers what is queued, then a last "dropped" event if frames
// were dropped, and returns once the observer has seen everything.
func (t *Tap) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.nudge()
	<-t.done
}

// nudge wakes run now.
func (t *Tap) nudge() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *Tap) run() {
	defer close(t.done)
	defer t.batch.Stop()
	flusher, _ := t.obs.(Flusher)
	// A flush is a system call, and each one wakes the Go runtime's
	// monitor thread, which then polls every few microseconds for a while;
	// on a machine with few cores that steals time from the relay. So what
	// the observers buffer is flushed once flushDelay after the first batch
	// it holds, not after every batch, and at the end.
	flushTimer := time.NewTimer(time.Hour)
	flushTimer.Stop()
	defer flushTimer.Stop()
	var flushDue <-chan time.Time // set while a flush is due
	var reported int64
	for {
		select {
		case <-t.batch.C:
		case <-t.wake:
		case <-flushDue:
			flushDue = nil
			flusher.Flush()
			continue
		}
		t.mu.Lock()
		batch := t.queue
		t.queue, t.queued, t.armed = nil, 0, false
		dropped, closed := t.dropped, t.closed
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
		switch {
		case closed:
			// Nothing is queued once closed is set: this batch was the last.
			if flusher != nil {
				flusher.Flush()
			}
			return
		case flusher == nil || len(batch) == 0 || flushDue != nil:
		case t.flushDelay <= 0:
			flusher.Flush()
		default:
			flushTimer.Reset(t.flushDelay)
			flushDue = flushTimer.C
		}
	}
}
