package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/client"
)

// Call is one governed request: a tools/call, resources/read or
// prompts/get, whoever made it (a command, the shell, a batch line, a test
// step, or a host behind the proxy).
type Call struct {
	// Method is "tools/call", "resources/read" or "prompts/get".
	Method string
	// Name is the tool's or prompt's name, or the resource's URI.
	Name string
	// Args are the arguments as sent (a JSON object), nil for a read.
	Args json.RawMessage
	// Tool is the tool's listing when the session has listed tools, nil
	// otherwise.
	Tool *client.Tool
	// Server names the server as messages do (the session's description).
	Server string
	// Signed says the call carries a signature (params._meta.signature).
	Signed bool
	// Host names the host that made the call behind the proxy (its
	// clientInfo, "name version"), "" for mcpctl's own calls.
	Host string
	// Identity is who made this call when it carries its own credential
	// (a host's bearer token at the HTTP proxy); nil leaves the scopes to
	// the policy stage's own source ([PolicyGate.Scopes]).
	Identity *Identity
}

// Identity is the credential a call was made with, as the policy stage
// reads it.
type Identity struct {
	// Scopes are the scopes it grants.
	Scopes []string
	// From names the credential in messages ("host's bearer token"), ""
	// when there is none.
	From string
	// Subject is the token's subject (sub), "" when unknown.
	Subject string
	// Note says why the scopes are unknown, when they are.
	Note string
}

// Decision is what the policy stage decided and who decided it.
type Decision struct {
	// Allowed is false when the request was refused and not sent.
	Allowed bool
	// By says who decided: "" when no policy is in force, else e.g.
	// "policy", "tty-approved", "--approve", "refused: rate_limit".
	By string
	// Rule names the policy entry that applied ("db_*", "*", or
	// "annotations" for the fallback), "" when none did.
	Rule string
	// Sensitivity is the applying entry's sensitivity ("low", "high"…),
	// "" when no policy is in force.
	Sensitivity string
	// Mask names arguments whose values the audit trail must not keep.
	Mask []string
}

// Outcome is what became of a request that was sent.
type Outcome struct {
	// Result is the result's raw JSON, nil on an error.
	Result json.RawMessage
	// IsError is a tool result's isError.
	IsError bool
	// Err is the error the request ended with, a JSON-RPC error included.
	Err error
	// Duration is the time from sending to the answer.
	Duration time.Duration
	// Signature is the verdict on the result's signature when a verifier
	// is set: "verified" or "failed: <why>"; "" when not checked.
	Signature string
}

// Policy is the first stage: it decides, before anything is sent, whether
// a call may go out. A refusal returns an error as well as the decision,
// which the audit stage still records.
type Policy interface {
	Decide(ctx context.Context, c *Call) (Decision, error)
}

// ImmediatePolicy is a policy stage that can tell, before deciding,
// whether it would allow a call at once: true promises that Decide
// allows c without waiting on anything (a person, a rate-limit slot, a
// file); false promises nothing.
type ImmediatePolicy interface {
	Policy
	Immediate(c *Call) bool
}

// Signer signs tools/call requests: it returns the signature of the call
// to tool with arguments exactly as sent, and the nonce in it, which the
// verifier expects the result to echo.
type Signer interface {
	Sign(tool string, arguments json.RawMessage) (signature any, nonce string, err error)
}

// Verifier checks the signature of a tool's result against the nonce the
// call was signed with ("" when it was not).
type Verifier interface {
	VerifyResult(tool string, result json.RawMessage, nonce string) error
}

// Recorder is the last stage: it is told of every governed attempt,
// refused or sent, and its outcome (nil when nothing was sent). An error
// means the record was lost; the session remembers the first.
type Recorder interface {
	Record(c *Call, d Decision, o *Outcome) error
}

// Stages are the parts of the pipeline a session runs every governed
// request through, in this order: policy → signing → send → result checks
// → signature verification → audit. A nil stage is skipped.
type Stages struct {
	Policy   Policy
	Signer   Signer
	Verifier Verifier
	Recorder Recorder
	// Prepare, when set, readies the stages on the first governed request
	// (reading the files they need), so a command that makes none, such as
	// list, reads none. Its error stops that request and every later one.
	Prepare func() error
	// Outputs checks structuredContent against the tool's outputSchema;
	// nil checks nothing.
	Outputs *OutputChecks
}

// AuditError is the error of a request whose audit record could not be
// written: the request has happened (its result is returned beside this
// error), but the trail does not show it.
type AuditError struct {
	Method, Name string
	Err          error
}

func (e *AuditError) Error() string {
	if errors.As(e.Err, new(*audit.AppendError)) {
		return e.Err.Error() // it names the trail, the request and whether it was sent
	}
	return fmt.Sprintf("the %s of %s happened but was not recorded in the audit trail: %v", e.Method, e.Name, e.Err)
}

func (e *AuditError) Unwrap() error { return e.Err }

// pipeline runs governed requests through the session's stages.
type pipeline struct {
	st Stages

	once     sync.Once
	prepErr  error
	prepared atomic.Bool // Prepare has run and succeeded

	// lost is the first record the audit stage could not write: later
	// requests are refused unsent, since the trail can no longer show them.
	lostMu sync.Mutex
	lost   error
}

func (p *pipeline) ready() error {
	if p.st.Prepare == nil {
		return nil
	}
	p.once.Do(func() {
		p.prepErr = p.st.Prepare()
		p.prepared.Store(p.prepErr == nil)
	})
	return p.prepErr
}

// sent is what a send function reports back to the pipeline.
type sent struct {
	raw json.RawMessage
	// tool is the result of a tools/call, nil for other methods.
	tool *client.CallToolResult
}

// SignFunc is the signing hook of [client.CallOptions]: it returns the
// signature to put in params._meta.signature of a call to tool with
// arguments exactly as sent.
type SignFunc = func(tool string, arguments json.RawMessage) (any, error)

type signFunc = SignFunc

// run sends c through the stages. send performs the request with the
// signature hook the signing stage gives (nil without a signer) and
// returns its result. When the request was sent and answered, the error
// returned is the first of: the signature verification's, the outputSchema
// check's, the audit record's; the caller still has the result, so it may
// show it.
func (p *pipeline) run(ctx context.Context, c *Call, send func(ctx context.Context, sign signFunc) (sent, error)) error {
	return p.runWith(ctx, c, p.st.Signer, p.st.Verifier, send)
}

// runWith is run with the signer and verifier given in place of the
// stages' (nil for none).
func (p *pipeline) runWith(ctx context.Context, c *Call, signer Signer, verifier Verifier, send func(ctx context.Context, sign signFunc) (sent, error)) error {
	pd, sign, err := p.begin(ctx, c, signer, verifier)
	if pd == nil {
		return err
	}
	out, err := send(ctx, sign)
	return pd.finish(out, err)
}

// pending is a request the policy let through, between its sending and
// its answer: what the stages after the send need.
type pending struct {
	p        *pipeline
	c        *Call
	d        Decision
	verifier Verifier
	nonce    string // the signature's, set by the sign func begin returns
	start    time.Time
}

// begin runs c's stages up to the send: the policy (its refusal is
// recorded and returned) and the signing hook for the send (nil without a
// signer, and for methods other than tools/call). A nil pending means the
// request is not to be sent: err says why, if the policy said.
func (p *pipeline) begin(ctx context.Context, c *Call, signer Signer, verifier Verifier) (*pending, signFunc, error) {
	if err := p.ready(); err != nil {
		return nil, nil, err
	}
	p.lostMu.Lock()
	lost := p.lost
	p.lostMu.Unlock()
	if lost != nil {
		return nil, nil, fmt.Errorf("the %s of %s was not sent: the audit trail cannot be written (%w)", c.Method, c.Name, lost)
	}
	d := Decision{Allowed: true}
	if p.st.Policy != nil {
		var err error
		d, err = p.st.Policy.Decide(ctx, c)
		if err != nil || !d.Allowed {
			if recErr := p.record(c, d, nil); recErr != nil && err == nil {
				err = recErr
			}
			return nil, nil, err
		}
	}
	pd := &pending{p: p, c: c, d: d, verifier: verifier}
	var sign signFunc
	if signer != nil && c.Method == "tools/call" {
		c.Signed = true
		sign = func(tool string, args json.RawMessage) (any, error) {
			sig, n, err := signer.Sign(tool, args)
			pd.nonce = n
			return sig, err
		}
	}
	pd.start = time.Now()
	return pd, sign, nil
}

// finish runs the stages after the send on its outcome: out, or the error
// the send or the wait for the answer ended with.
func (pd *pending) finish(out sent, err error) error {
	p, c := pd.p, pd.c
	o := &Outcome{Err: err, Duration: time.Since(pd.start)}
	var checkErr, verifyErr error
	if err == nil {
		o.Result = out.raw
		if out.tool != nil {
			o.IsError = out.tool.IsError
			// Result checks: the official schema is checked as every result
			// arrives (see [ResultChecks]); the tool's outputSchema here.
			if p.st.Outputs != nil && c.Tool != nil && !out.tool.IsError {
				checkErr = p.st.Outputs.Check(c.Tool, out.tool)
			}
			if pd.verifier != nil {
				if verifyErr = pd.verifier.VerifyResult(c.Name, out.raw, pd.nonce); verifyErr != nil {
					o.Signature = "failed: " + verifyErr.Error()
				} else {
					o.Signature = "verified"
				}
			}
		}
	}
	recErr := p.record(c, pd.d, o)
	for _, e := range []error{err, verifyErr, checkErr, recErr} {
		if e != nil {
			return e
		}
	}
	return nil
}

func (p *pipeline) record(c *Call, d Decision, o *Outcome) error {
	if p.st.Recorder == nil {
		return nil
	}
	if err := p.st.Recorder.Record(c, d, o); err != nil {
		ae := &AuditError{Method: c.Method, Name: c.Name, Err: err}
		p.lostMu.Lock()
		if p.lost == nil {
			p.lost = ae
		}
		p.lostMu.Unlock()
		return ae
	}
	return nil
}
