package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// The messages of subscriptions in the modern era
// (2026-07-28/basic/patterns/subscriptions).
const (
	methodListen         = "subscriptions/listen"
	methodAcknowledged   = "notifications/subscriptions/acknowledged"
	methodCancelled      = "notifications/cancelled"
	metaSubscriptionID   = "io.modelcontextprotocol/subscriptionId"
	endedSubscriptionIDs = 16 // ended subscriptions whose late notifications are dropped silently
)

// closeTimeout bounds what closing a subscription sends: the
// notifications/cancelled of a listen, the resources/unsubscribe of a
// legacy subscription. Closing must not hang a command that is exiting.
const closeTimeout = 2 * time.Second

// watchState is the part of a [Client] that watching a server needs: the
// log level of [Client.SetLogLevel] and the live modern subscriptions. Its
// zero value is ready; mu is never held while calling out.
type watchState struct {
	mu       sync.Mutex
	logLevel string
	subs     map[string]*Subscription // live modern subscriptions by idKey of their listen request
	ended    []string                 // idKeys of the last ended ones, at most endedSubscriptionIDs
}

// SubscriptionFilter names the notifications a subscription asks for, as
// the notifications member of subscriptions/listen. The server agrees to a
// subset ([Subscription.Filter]).
type SubscriptionFilter struct {
	ToolsListChanged     bool `json:"toolsListChanged,omitempty"`
	PromptsListChanged   bool `json:"promptsListChanged,omitempty"`
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions are the URIs of the resources whose
	// notifications/resources/updated are wanted.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// Subscription is a live request for notifications: list changes and
// resource updates, which reach [Options.OnNotification] like every other
// notification.
//
// In the modern era it is one subscriptions/listen request, open until
// [Subscription.Close] cancels it or the server ends it; its
// notifications carry its id. In the legacy era, list changes need no
// request (a server that declares listChanged sends them to every
// session), and each resource is subscribed with resources/subscribe and
// unsubscribed on Close.
//
// Concurrency: every method may be called from any goroutine.
type Subscription struct {
	c      *Client
	modern bool
	key    string // modern: idKey of the listen request
	id     int64  // modern: the listen request's id

	acked  chan struct{} // closed when the server acknowledged (legacy: at once)
	done   chan struct{} // closed when the subscription ended
	cancel context.CancelFunc

	mu      sync.Mutex
	filter  SubscriptionFilter // what the server agreed to
	err     error              // why it ended; nil while live or when Close ended it
	ended   bool
	closing bool
}

// SubscriptionEndedError says why a subscription ended other than by
// [Subscription.Close].
type SubscriptionEndedError struct {
	// ByServer says the server ended it: a subscriptions/listen result, or
	// notifications/cancelled naming the listen request.
	ByServer bool
	// Reason is the reason the server gave, if any.
	Reason string
	// Err is the cause when the subscription failed: the connection was
	// lost, the server answered the listen request with an error.
	Err error
}

// Error reads like `the server ended the subscription (shutting down)`.
func (e *SubscriptionEndedError) Error() string {
	switch {
	case e.Err != nil:
		return "the subscription ended: " + e.Err.Error()
	case e.Reason != "":
		return "the server ended the subscription (" + e.Reason + ")"
	}
	return "the server ended the subscription"
}

// Unwrap returns the cause, if any.
func (e *SubscriptionEndedError) Unwrap() error { return e.Err }

// Subscribe asks the server for the notifications of want and returns once
// the server has agreed: in the modern era when
// notifications/subscriptions/acknowledged arrives (within the request
// timeout), in the legacy era when every resources/subscribe is answered.
// What the server agreed to is [Subscription.Filter]: notifications the
// server does not offer (its capabilities have no listChanged, no
// resources.subscribe) are left out rather than failing.
//
// The subscription lives until [Subscription.Close], the server ends it,
// or the connection ends; ctx bounds only its start.
func (c *Client) Subscribe(ctx context.Context, want SubscriptionFilter) (*Subscription, error) {
	if c.isModern() {
		return c.listen(ctx, want)
	}
	return c.subscribeLegacy(ctx, want)
}

// capabilityFlag reports whether the server declared capability name with
// flag true: ("tools", "listChanged"), ("resources", "subscribe").
func (c *Client) capabilityFlag(name, flag string) bool {
	c.mu.Lock()
	raw := c.init.Capabilities[name]
	c.mu.Unlock()
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	return string(m[flag]) == "true"
}

// subscribeLegacy subscribes each resource with resources/subscribe. List
// changes are the server's to send: the filter says which lists it
// declared listChanged for.
func (c *Client) subscribeLegacy(ctx context.Context, want SubscriptionFilter) (*Subscription, error) {
	s := &Subscription{c: c, acked: make(chan struct{}), done: make(chan struct{})}
	var f SubscriptionFilter
	f.ToolsListChanged = want.ToolsListChanged && c.capabilityFlag("tools", "listChanged")
	f.PromptsListChanged = want.PromptsListChanged && c.capabilityFlag("prompts", "listChanged")
	f.ResourcesListChanged = want.ResourcesListChanged && c.capabilityFlag("resources", "listChanged")
	if len(want.ResourceSubscriptions) > 0 && c.capabilityFlag("resources", "subscribe") {
		for _, uri := range want.ResourceSubscriptions {
			if _, err := c.Call(ctx, "resources/subscribe", map[string]string{"uri": uri}); err != nil {
				s.filter = f
				s.unsubscribe()
				return nil, fmt.Errorf("subscribing to %s: %w", uri, err)
			}
			f.ResourceSubscriptions = append(f.ResourceSubscriptions, uri)
		}
	}
	s.filter = f
	close(s.acked)
	lctx, cancel := context.WithCancel(c.bgCtx)
	s.cancel = cancel
	go func() {
		select {
		case <-c.done:
			s.end(&SubscriptionEndedError{Err: c.connErr("the subscription", c.readError())})
		case <-lctx.Done():
		}
	}()
	return s, nil
}

// unsubscribe sends resources/unsubscribe for every subscribed resource,
// each bounded by closeTimeout; failures are of no consequence to a
// subscription that is ending.
func (s *Subscription) unsubscribe() {
	for _, uri := range s.Filter().ResourceSubscriptions {
		ctx, cancel := context.WithTimeout(s.c.bgCtx, closeTimeout)
		_, _ = s.c.Call(ctx, "resources/unsubscribe", map[string]string{"uri": uri})
		cancel()
	}
}

// readError is the error that ended the read loop, if it has ended.
func (c *Client) readError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// listen opens a subscriptions/listen request. It is a request like any
// other except that it has no timeout: it stays in flight, its
// notifications arrive while it is, and its answer (if one comes) means the
// server ended it.
func (c *Client) listen(ctx context.Context, want SubscriptionFilter) (*Subscription, error) {
	params, err := encodeParams(methodListen, map[string]any{"notifications": want})
	if err != nil {
		return nil, err
	}
	if params, err = c.withMeta(params); err != nil {
		return nil, fmt.Errorf("%s: %w", methodListen, err)
	}
	wo := transport.WriteOptions{Header: modernHeaders(methodListen, params)}
	// The listen's context is the client's, not ctx, which bounds only
	// the start: a transport that ties a request's stream to the context
	// of its Write keeps the stream open until the subscription ends.
	lctx, cancel := context.WithCancel(c.bgCtx)
	id := c.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	s := &Subscription{c: c, modern: true, key: key, id: id, acked: make(chan struct{}), done: make(chan struct{}), cancel: cancel}

	p := &pendingCall{ch: make(chan response, 1), method: methodListen}
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		cancel()
		return nil, c.connErr(methodListen, err)
	}
	c.pending[key] = p
	c.mu.Unlock()
	// Registered before the request is written: the acknowledgment may
	// come before Write returns.
	c.watch.mu.Lock()
	if c.watch.subs == nil {
		c.watch.subs = map[string]*Subscription{}
	}
	c.watch.subs[key] = s
	c.watch.mu.Unlock()
	go s.wait(lctx, p)

	timeout := c.opts.Timeout
	timer := time.AfterFunc(timeout, cancel) // a write that outlasts the timeout is abandoned
	err = c.write(lctx, [][]byte{assemble(json.RawMessage(key), methodListen, params)}, wo)
	if !timer.Stop() && err != nil {
		err = &TimeoutError{Method: methodListen, After: timeout}
	}
	if err != nil {
		cancel()
		<-s.done
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", methodListen, ctx.Err())
		}
		var te *TimeoutError
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, c.connErr(methodListen, err)
	}
	wait := time.NewTimer(timeout)
	defer wait.Stop()
	select {
	case <-s.acked:
		return s, nil
	case <-s.done:
		// Acknowledged and then ended at once (a server that ends the
		// subscription right after its first notifications): it did
		// start, and the caller reads its notifications and its end from
		// s. The acknowledgment is dispatched before the answer that ends
		// the listen, so acked is closed by now if it came.
		select {
		case <-s.acked:
			return s, nil
		default:
		}
		if err := s.Err(); err != nil {
			var ended *SubscriptionEndedError
			if errors.As(err, &ended) && ended.Err != nil {
				return nil, fmt.Errorf("%s: %w", methodListen, ended.Err)
			}
			return nil, fmt.Errorf("%s: %w", methodListen, err)
		}
		return nil, fmt.Errorf("%s: the subscription ended before it started", methodListen)
	case <-ctx.Done():
		s.Close()
		return nil, fmt.Errorf("%s: %w", methodListen, ctx.Err())
	case <-wait.C:
		s.Close()
		return nil, &TimeoutError{Method: methodListen, After: timeout, Cancelled: true,
			Detail: "no notifications/subscriptions/acknowledged arrived"}
	}
}

// wait ends a modern subscription when its listen request is answered, the
// connection ends or its context is cancelled (by Close, by the server's
// notifications/cancelled, by a failed start), then forgets it.
func (s *Subscription) wait(lctx context.Context, p *pendingCall) {
	c := s.c
	select {
	case r := <-p.ch:
		if r.err != nil {
			s.end(&SubscriptionEndedError{Err: r.err})
		} else {
			s.end(&SubscriptionEndedError{ByServer: true})
		}
	case <-c.done:
		// A graceful answer may have raced with the end of the stream.
		select {
		case r := <-p.ch:
			if r.err == nil {
				s.end(&SubscriptionEndedError{ByServer: true})
				break
			}
			s.end(&SubscriptionEndedError{Err: r.err})
		default:
			s.end(&SubscriptionEndedError{Err: c.connErr(methodListen, c.readError())})
		}
	case <-lctx.Done():
		s.end(nil) // the reason, if any, was set by whoever cancelled
	}
	s.cancel()
	c.mu.Lock()
	if _, still := c.pending[s.key]; still {
		delete(c.pending, s.key)
		c.recent.add(s.key, idAbandoned) // a late answer is expected
	}
	c.mu.Unlock()
	c.watch.mu.Lock()
	delete(c.watch.subs, s.key)
	c.watch.ended = append(c.watch.ended, s.key)
	if n := len(c.watch.ended); n > endedSubscriptionIDs {
		c.watch.ended = c.watch.ended[n-endedSubscriptionIDs:]
	}
	c.watch.mu.Unlock()
}

// end records why the subscription ended, the first time only, and
// closes done. A subscription being closed by the client ends without an
// error whatever else happens meanwhile.
func (s *Subscription) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	if !s.closing {
		s.err = err
	}
	close(s.done)
}

// ID is the JSON-RPC id of the subscriptions/listen request, which the
// notifications of the subscription carry in _meta; "" in the legacy era.
func (s *Subscription) ID() string {
	if !s.modern {
		return ""
	}
	return s.key
}

// Filter is what the server agreed to send: a subset of what Subscribe
// asked for.
func (s *Subscription) Filter() SubscriptionFilter {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.filter
	f.ResourceSubscriptions = append([]string(nil), f.ResourceSubscriptions...)
	return f
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err is why the subscription ended: nil while it lives and after Close, a
// [*SubscriptionEndedError] otherwise.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the subscription and waits until it has: a modern listen is
// cancelled as any modern request is (over HTTP by closing its response
// stream, over stdio with notifications/cancelled naming it), legacy resource subscriptions are undone
// with resources/unsubscribe. What Close sends is bounded by a short
// timeout of its own, so it may be called after the caller's context has
// ended. It may be called more than once.
func (s *Subscription) Close() error {
	s.mu.Lock()
	already := s.ended || s.closing
	s.closing = true
	s.mu.Unlock()
	if already {
		<-s.done
		return nil
	}
	if s.modern {
		s.c.cancelRequest(s.id, "the client no longer wants the subscription")
	} else {
		s.unsubscribe()
		s.end(nil)
	}
	s.cancel()
	<-s.done
	return nil
}

// notification handles a notification from the server: the messages of
// the subscriptions themselves (acknowledged, and notifications/cancelled
// naming a listen request) are taken here; late notifications of a
// subscription that has ended are dropped; the rest reach
// [Options.OnNotification].
func (c *Client) notification(method string, params json.RawMessage) {
	n := decodeNotification(method, params)
	switch method {
	case methodAcknowledged:
		if s := c.subscription(n.SubscriptionID); s != nil {
			var p struct {
				Notifications SubscriptionFilter `json:"notifications"`
			}
			if err := json.Unmarshal(params, &p); err != nil {
				c.warn(fmt.Sprintf("%s for subscription %s does not decode (%v); taking it as agreeing to nothing", method, n.SubscriptionID, err))
			}
			s.mu.Lock()
			select {
			case <-s.acked:
				s.mu.Unlock()
				c.warn(fmt.Sprintf("ignoring a second %s for subscription %s", method, n.SubscriptionID))
				return
			default:
			}
			s.filter = p.Notifications
			close(s.acked)
			s.mu.Unlock()
			return
		}
	case methodCancelled:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if json.Unmarshal(params, &p) == nil && len(p.RequestID) > 0 {
			if s := c.subscription(idKey(p.RequestID)); s != nil {
				s.end(&SubscriptionEndedError{ByServer: true, Reason: p.Reason})
				s.cancel()
				return
			}
		}
	}
	if n.SubscriptionID != "" && c.endedSubscription(n.SubscriptionID) {
		return
	}
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(n)
	}
}

// subscription returns the live modern subscription with the id key.
func (c *Client) subscription(key string) *Subscription {
	if key == "" {
		return nil
	}
	c.watch.mu.Lock()
	defer c.watch.mu.Unlock()
	return c.watch.subs[key]
}

// endedSubscription reports whether key names a subscription that ended
// lately and is not live.
func (c *Client) endedSubscription(key string) bool {
	c.watch.mu.Lock()
	defer c.watch.mu.Unlock()
	if _, live := c.watch.subs[key]; live {
		return false
	}
	for _, k := range c.watch.ended {
		if k == key {
			return true
		}
	}
	return false
}
