package session

import (
	"errors"
	"time"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/client"
)

// Trail is the audit stage: every governed attempt, refused or sent, is
// appended to the trail as one hash-chained record.
type Trail struct {
	// W is the trail; nil records nothing (a setting that names none).
	W *audit.Writer
	// Redact hides what the run keeps out of its output (keys, header
	// values) in the server's description and error messages.
	Redact func(string) string
	// Now is the clock, time.Now when nil.
	Now func() time.Time
}

// Record implements [Recorder].
func (t *Trail) Record(c *Call, d Decision, o *Outcome) error {
	if t == nil || t.W == nil {
		return nil
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	e := AuditEntry(c, d, o, now())
	if t.Redact != nil {
		e.Server = t.Redact(e.Server)
		if e.Error != nil {
			e.Error.Message = t.Redact(e.Error.Message)
		}
	}
	return t.W.Append(e)
}

// AuditEntry is the audit record of one attempt; o is nil when the request
// was not sent.
func AuditEntry(c *Call, d Decision, o *Outcome, now time.Time) *audit.Entry {
	var schema []byte
	if c.Tool != nil {
		schema = c.Tool.InputSchema
	}
	e := &audit.Entry{
		Time:   now.UTC(),
		Server: c.Server,
		Method: c.Method,
		Name:   c.Name,
		Args:   audit.MaskArgs(c.Args, schema, d.Mask),
		Decision: audit.Decision{
			Allowed:     d.Allowed,
			By:          d.By,
			Rule:        d.Rule,
			Sensitivity: d.Sensitivity,
		},
		Signed: c.Signed,
		Host:   c.Host,
	}
	if c.Identity != nil {
		e.Subject = c.Identity.Subject
	}
	if o == nil {
		return e
	}
	e.Sent = true
	e.Time = now.Add(-o.Duration).UTC()
	e.DurationMS = float64(o.Duration.Microseconds()) / 1000
	if o.Result != nil {
		e.Result = audit.Digest(o.Result)
	}
	e.IsError = o.IsError
	e.Signature = o.Signature
	if o.Err != nil {
		var rpcErr *client.RPCError
		if errors.As(o.Err, &rpcErr) {
			e.Error = &audit.Error{Code: rpcErr.Code, Message: rpcErr.Message}
		} else {
			e.Error = &audit.Error{Message: o.Err.Error()}
		}
	}
	return e
}
