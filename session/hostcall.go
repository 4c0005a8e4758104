package session

import (
	"context"
	"encoding/json"

	"github.com/mcpctl/mcpctl/client"
)

// Pipeline runs requests that mcpctl relays rather than makes (a host's,
// behind the proxy) through the same stages, in the same order, as a
// [Session] runs its own: policy → signing → send → result checks →
// signature verification → audit. The sender is the caller's, since the
// request travels on the host's connection, not on a client of mcpctl's.
type Pipeline struct{ p *pipeline }

// NewPipeline returns the pipeline of st. Its stages' Prepare runs on the
// first request.
func NewPipeline(st Stages) *Pipeline { return &Pipeline{p: &pipeline{st: st}} }

// Sent is what a send function of [Pipeline.Run] reports back.
type Sent struct {
	// Result is the result's raw JSON (the JSON-RPC response's "result").
	Result json.RawMessage
	// Tool is the decoded result of a tools/call, nil for other methods;
	// the result checks and the verifier read it.
	Tool *client.CallToolResult
}

// Run sends c through the stages. send forwards the request, signed with
// sign when it is not nil (sign is nil without a signing stage, and for
// methods other than tools/call), and waits for its answer; a JSON-RPC
// error answer is returned as a [*client.RPCError]. Run returns the policy
// stage's refusal ([*policy.Refusal]) or failure without calling send;
// once send was called, the first of send's error, the signature
// verification's (a [*signing.VerifyError]), the outputSchema check's
// ([*OutputError]) and the audit record's ([*AuditError]).
func (p *Pipeline) Run(ctx context.Context, c *Call, send func(ctx context.Context, sign SignFunc) (Sent, error)) error {
	return p.p.run(ctx, c, func(ctx context.Context, sign signFunc) (sent, error) {
		s, err := send(ctx, sign)
		return sent{raw: s.Result, tool: s.Tool}, err
	})
}

// Start is [Pipeline.Run] for a sender that does not wait for the
// answer: it runs c's stages up to the send and calls send, which forwards
// the request (signed with sign when it is not nil) and returns. finish,
// non-nil when send was called and succeeded, runs the stages after the
// send on the answer (or on the error the wait for it ended with) and
// returns what Run would; the caller calls it once, from any goroutine.
// When finish is nil, err is what Run would return: the policy's refusal
// or failure, or send's error (recorded as Run records it).
func (p *Pipeline) Start(ctx context.Context, c *Call, send func(ctx context.Context, sign SignFunc) error) (finish func(Sent, error) error, err error) {
	pd, sign, err := p.p.begin(ctx, c, p.p.st.Signer, p.p.st.Verifier)
	if pd == nil {
		return nil, err
	}
	if err := send(ctx, sign); err != nil {
		return nil, pd.finish(sent{}, err)
	}
	return func(s Sent, err error) error { return pd.finish(sent{raw: s.Result, tool: s.Tool}, err) }, nil
}

// Immediate reports whether [Pipeline.Start] would let c through at once:
// its stages are ready, the audit trail is whole, and the policy stage
// says (through [ImmediatePolicy]) that it allows c without waiting for
// anything — a person, a rate-limit slot, a file. A caller may then run
// Start on a goroutine that must not wait, such as a relay's. A policy
// stage that cannot say is taken to wait.
func (p *Pipeline) Immediate(c *Call) bool {
	if p.p.st.Prepare != nil && !p.p.prepared.Load() {
		return false
	}
	p.p.lostMu.Lock()
	lost := p.p.lost
	p.p.lostMu.Unlock()
	if lost != nil {
		return false
	}
	if p.p.st.Policy == nil {
		return true
	}
	ip, ok := p.p.st.Policy.(ImmediatePolicy)
	return ok && ip.Immediate(c)
}

// ReadsResult reports whether the stages after the send read c's
// tools/call result decoded ([Sent.Tool]): the signature verification,
// the audit record (which notes isError), or the outputSchema check of a
// tool that declares one. When none does, a caller may leave Sent.Tool nil
// and spare decoding the result on the answer's path. A [Trail] counts
// once its Prepare has run: before, it may still open its file.
func (p *Pipeline) ReadsResult(c *Call) bool {
	st := &p.p.st
	return st.Verifier != nil || records(st.Recorder, st.Prepare != nil && !p.p.prepared.Load()) ||
		(st.Outputs != nil && c.Tool != nil && len(c.Tool.OutputSchema) > 0)
}

// records reports whether r writes anything: a [Trail] whose setting
// named no file records nothing, unless it is yet to be prepared.
func records(r Recorder, unprepared bool) bool {
	if t, ok := r.(*Trail); ok && !unprepared {
		return t != nil && t.W != nil
	}
	return r != nil
}

// Stages returns the pipeline's stages.
func (p *Pipeline) Stages() Stages { return p.p.st }
