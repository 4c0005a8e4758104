package client

import (
	"encoding/json"
	"strconv"

	"github.com/mcpctl/mcpctl/transport"
)

// cancelOutcome is how a request the caller stopped waiting for was
// cancelled.
type cancelOutcome int

const (
	// cancelNotified: notifications/cancelled was written (or its write
	// was tried and failed for another reason than a stuck writer).
	cancelNotified cancelOutcome = iota
	// cancelByStream: the request's own exchange was closed.
	cancelByStream
	// cancelSkipped: the server had stopped reading, so nothing was sent.
	cancelSkipped
)

// cancelRequest cancels request id, which the caller stopped waiting for
// (its timeout, or the caller's context). How depends on the era and the
// transport (2026-07-28 basic/patterns/cancellation): a modern request over
// a connection that carries each request in an exchange of its own
// (Streamable HTTP, [transport.RequestCanceller]) is cancelled by closing
// that exchange, and no notifications/cancelled is sent; everything else —
// every legacy request, and modern ones over stdio — gets
// notifications/cancelled, unless the server has stopped reading what
// mcpctl writes (see [Client.cancel]).
func (c *Client) cancelRequest(id int64, reason string) cancelOutcome {
	c.shortenGrace()
	if c.isModern() {
		if rc, ok := c.conn.(transport.RequestCanceller); ok && rc.CancelRequest(json.RawMessage(strconv.FormatInt(id, 10))) {
			return cancelByStream
		}
	}
	if !c.cancel(id, reason) {
		return cancelSkipped
	}
	return cancelNotified
}

// shortenGrace tells the connection, when its Close waits for the server
// to exit (stdio), that the session failed: a request was given up or the
// handshake did not complete, so the server may be stuck and the user is
// waiting for the error (see [transport.GraceShortener]).
func (c *Client) shortenGrace() {
	if s, ok := c.conn.(transport.GraceShortener); ok {
		s.ShortenGrace()
	}
}
