package transport

// ShortenGrace passes the failure on to the traced connection when its
// Close waits for a grace period (see [GraceShortener]).
func (c *traceConn) ShortenGrace() {
	if s, ok := c.conn.(GraceShortener); ok {
		s.ShortenGrace()
	}
}

// Kill passes a second Ctrl-C on to the traced connection when it can stop
// its peer at once ([Command]'s can), so that --trace and --record do not
// take that away.
func (c *traceConn) Kill() error {
	if k, ok := c.conn.(interface{ Kill() error }); ok {
		return k.Kill()
	}
	return nil
}
