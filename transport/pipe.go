package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// NewPipe returns two connected in-memory Connections: what one Writes, the
// other Reads, message by message, with no serialisation. It lets the client
// be tested, and the built-in demo server run, without a process or a socket.
//
// Queues are unbounded, so a Write never waits for the peer to Read; a client
// may send a request and then read the answer from the same goroutine that
// serves the other end. Write does not copy msg: the peer's Read returns the
// very slice, so a 100 MB result costs its size once, not twice. As the
// [Connection] contract says, the writer must not modify msg after Write.
//
// Closing either end makes the peer's Read return an error wrapping [io.EOF]
// once the messages already queued for it are read, and the peer's Write
// fail with an error wrapping [io.ErrClosedPipe]. The closed end's own Read
// and Write return [ErrClosed].
func NewPipe() (Connection, Connection) {
	a2b, b2a := newQueue(), newQueue()
	a := &pipeConn{in: b2a, out: a2b, closed: make(chan struct{})}
	b := &pipeConn{in: a2b, out: b2a, closed: make(chan struct{})}
	return a, b
}

// queue carries messages in one direction. It has one reader at a time (the
// Connection contract forbids concurrent Reads), so a one-slot wake-up
// channel is enough: a signal sent while the reader is not waiting stays in
// the slot until it looks.
type queue struct {
	mu           sync.Mutex
	msgs         []json.RawMessage
	ended        bool // the writing side closed: EOF after the last message
	consumerGone bool // the reading side closed: further writes fail
	wakeup       chan struct{}
}

func newQueue() *queue {
	return &queue{wakeup: make(chan struct{}, 1)}
}

func (q *queue) signal() {
	select {
	case q.wakeup <- struct{}{}:
	default:
	}
}

// pipeConn is one end of a pipe made by NewPipe.
type pipeConn struct {
	in, out   *queue
	closeOnce sync.Once
	closed    chan struct{}
}

func (p *pipeConn) isClosed() bool {
	select {
	case <-p.closed:
		return true
	default:
		return false
	}
}

// Read returns the next message the peer wrote.
func (p *pipeConn) Read(ctx context.Context) (json.RawMessage, error) {
	for {
		if p.isClosed() {
			return nil, ErrClosed
		}
		q := p.in
		q.mu.Lock()
		if len(q.msgs) > 0 {
			msg := q.msgs[0]
			q.msgs[0] = nil // let the message be collected once read
			q.msgs = q.msgs[1:]
			q.mu.Unlock()
			return msg, nil
		}
		ended := q.ended
		q.mu.Unlock()
		if ended {
			return nil, fmt.Errorf("pipe: peer closed the connection: %w", io.EOF)
		}
		select {
		case <-q.wakeup:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.closed:
			return nil, ErrClosed
		}
	}
}

// Write queues msg for the peer, without copying it.
func (p *pipeConn) Write(ctx context.Context, msg json.RawMessage, _ WriteOptions) error {
	if p.isClosed() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	q := p.out
	q.mu.Lock()
	if q.ended {
		q.mu.Unlock()
		return ErrClosed
	}
	if q.consumerGone {
		q.mu.Unlock()
		return fmt.Errorf("pipe: peer closed the connection: %w", io.ErrClosedPipe)
	}
	q.msgs = append(q.msgs, msg)
	q.mu.Unlock()
	q.signal()
	return nil
}

// Close ends both directions: the peer reads what is queued and then EOF,
// and its Writes fail.
func (p *pipeConn) Close() error {
	p.closeOnce.Do(func() {
		close(p.closed)
		p.out.mu.Lock()
		p.out.ended = true
		p.out.mu.Unlock()
		p.out.signal()
		p.in.mu.Lock()
		p.in.consumerGone = true
		p.in.msgs = nil // nobody will read them
		p.in.mu.Unlock()
	})
	return nil
}
