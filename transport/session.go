package transport

import (
	"context"
	"io"
	"net/http"
)

// HTTP header names of the Streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-Id"
)

// SessionExpiredError is returned by Write when the server answered 404 Not
// Found to a request carrying the session ID: the server ended the session.
// The connection has forgotten the session ID and closed its GET stream;
// the message was not processed. The client re-initializes by writing
// initialize again on the same connection, then sends the message again if
// it still matters.
type SessionExpiredError struct {
	// URL is the MCP endpoint.
	URL string
}

// Error reads like `http://127.0.0.1:3001/mcp: the server ended the session
// (404 Not Found)`.
func (e *SessionExpiredError) Error() string {
	return e.URL + ": the server ended the session (404 Not Found)"
}

// SetProtocolVersion implements [ProtocolVersionSetter]: version is sent as
// MCP-Protocol-Version on every later request but initialize.
func (c *streamableConn) SetProtocolVersion(version string) {
	c.mu.Lock()
	changed := c.version != version
	c.version = version
	c.mu.Unlock()
	if changed {
		c.event(EventProtocolVersion, version)
	}
}

// session returns the session ID and protocol version to send.
func (c *streamableConn) session() (sid, version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID, c.version
}

// setSessionHeaders adds the session ID and, except on initialize, the
// protocol version to req. It returns the session ID sent.
func (c *streamableConn) setSessionHeaders(req *http.Request, m msgInfo) string {
	sid, ver := c.session()
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if ver != "" && m.method != "initialize" {
		req.Header.Set(headerProtocolVersion, ver)
	}
	return sid
}

// captureSession adopts the session ID of resp: always from the answer to
// initialize, which starts a session; from any other answer only while
// there is none (lenient servers assign it late).
func (c *streamableConn) captureSession(resp *http.Response, m msgInfo) {
	v := resp.Header.Get(headerSessionID)
	if v == "" {
		return
	}
	valid := true
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e {
			valid = false
			break
		}
	}
	c.mu.Lock()
	if !valid {
		warned := c.warnedBadSID
		c.warnedBadSID = true
		c.mu.Unlock()
		if !warned {
			c.warnf("%s sent an Mcp-Session-Id with characters outside visible ASCII; ignored", c.urlString(c.url))
		}
		return
	}
	adopted := c.sessionID != v && (c.sessionID == "" || m.method == "initialize" && m.isRequest())
	if adopted {
		c.sessionID = v
	}
	c.mu.Unlock()
	if adopted {
		c.event(EventSessionID, map[string]any{"length": len(v)})
	}
}

// forgetSession drops the session ID and closes the GET stream, if the
// session is still sid ("" means whatever it is).
func (c *streamableConn) forgetSession(sid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sid != "" && c.sessionID != sid {
		return // forgotten already, perhaps replaced by a new one
	}
	c.sessionID = ""
	if c.getCancel != nil {
		c.getCancel()
		c.getCancel = nil
	}
}

// expired is what Write returns when the request m, sent with session sid,
// got 404.
func (c *streamableConn) expired(sid string, m msgInfo) error {
	c.forgetSession(sid)
	c.event(EventSessionExpired, m.String())
	return &SessionExpiredError{URL: c.urlString(c.url)}
}

// deleteSession asks the server to end the session. Failures are reported
// as events only: the server may not support DELETE, and we are leaving.
func (c *streamableConn) deleteSession(sid, ver string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.CloseTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	req.Header.Set(headerSessionID, sid)
	if ver != "" {
		req.Header.Set(headerProtocolVersion, ver)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		if re, ok := redirectError(err); ok {
			c.event(EventDeleteFailed, re.Error())
			return
		}
		c.event(EventDeleteFailed, describeNetError(err))
		return
	}
	drain(resp)
	if (resp.StatusCode < 200 || resp.StatusCode > 299) && resp.StatusCode != http.StatusMethodNotAllowed {
		c.event(EventDeleteFailed, resp.StatusCode)
	}
}

// drain reads a little of resp's body, so the connection can be reused,
// and closes it. The body's request context bounds the read.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
