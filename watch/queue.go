package watch

import (
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/client"
)

// Item is a notification and when it arrived.
type Item struct {
	At time.Time
	N  client.Notification
}

// Queue carries notifications from the client's read loop, which must not
// block, to the loop that prints them, in order. Its zero value is not
// usable: make one with [NewQueue].
type Queue struct {
	mu    sync.Mutex
	items []Item
	ready chan struct{} // has a token while items is not empty
}

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{ready: make(chan struct{}, 1)} }

// Push adds it to the queue without waiting.
func (q *Queue) Push(it Item) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// Ready has a value when something may have been pushed since the last
// [Queue.Take].
func (q *Queue) Ready() <-chan struct{} { return q.ready }

// Take returns everything queued.
func (q *Queue) Take() []Item {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}
