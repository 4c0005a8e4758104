package proxy

// sessionNamer is an [Outbox] that knows the HTTP session it serves.
type sessionNamer interface {
	httpSession() string
}

// outboxFrame files f, a frame the governor made for the host, under the
// HTTP session of out, when out serves one (see [Frame].Session).
func outboxFrame(out Outbox, f Frame) Frame {
	if n, ok := out.(sessionNamer); ok {
		f.Session = n.httpSession()
	}
	return f
}

// httpSession is the session's Mcp-Session-Id, "" before the server gave
// one or for the sessionless session.
func (s *govSession) httpSession() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sid
}
