package client

import (
	"encoding/json"
	"strconv"

	"github.com/mcpctl/mcpctl/transport"
)

// cancelRequest cancels request id, which the caller stopped waiting for
// (its timeout, or the caller's context). How depends on the era and the
// transport (2026-07-28 basic/patterns/cancellation): a modern request over
// a connection that carries each request in an exchange of its own
// (Streamable HTTP, [transport.RequestCanceller]) is cancelled by closing
// that exchange, and no notifications/cancelled is sent; everything else —
// every legacy request, and modern ones over stdio — gets
// notifications/cancelled. It reports whether the exchange was closed.
func (c *Client) cancelRequest(id int64, reason string) (byStream bool) {
	if c.isModern() {
		if rc, ok := c.conn.(transport.RequestCanceller); ok && rc.CancelRequest(json.RawMessage(strconv.FormatInt(id, 10))) {
			return true
		}
	}
	c.cancel(id, reason)
	return false
}
