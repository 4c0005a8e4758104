package cmd

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/client"
)

// guard stands between every command and the server for the requests a
// policy governs and an audit trail records: tools/call, resources/read and
// prompts/get. The session's methods of those names (below) shadow the
// client's, so call, the shell, batches and mcpctl test all pass through
// it, whatever path they take.
//
// A nil guard, or one with nil hooks, lets everything through unrecorded.
type guard struct {
	// check decides, before anything is sent, whether the request may go
	// out. A refusal returns an error (exit 9, naming the rule) as well as
	// the decision, which is still recorded.
	check func(ctx context.Context, r *guardRequest) (guardDecision, error)
	// record is told of every attempt, refused or sent, and its outcome.
	record func(r *guardRequest, d guardDecision, o *guardOutcome)
	// prepare, when set, readies the hooks on the first guarded request
	// (reading the files they need), so that a command that makes none,
	// such as list, reads none. Its error stops that request and every
	// later one.
	prepare func() error

	once    sync.Once
	prepErr error
}

// ready runs prepare once and returns its error.
func (g *guard) ready() error {
	if g.prepare == nil {
		return nil
	}
	g.once.Do(func() { g.prepErr = g.prepare() })
	return g.prepErr
}

// guardRequest is one request the guard rules on.
type guardRequest struct {
	// Method is "tools/call", "resources/read" or "prompts/get".
	Method string
	// Name is the tool's or prompt's name, or the resource's URI.
	Name string
	// Args are the arguments as sent (a JSON object), nil for a read.
	Args json.RawMessage
	// Tool is the tool's listing when the session has listed tools this
	// session, nil otherwise.
	Tool *client.Tool
	// Server names the server as messages do (the session's description).
	Server string
	// Signed says the call carries a signature (params._meta.signature).
	Signed bool
}

// guardDecision is what the guard decided and who decided it.
type guardDecision struct {
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
	// Mask names arguments whose values the audit trail must not keep
	// (the policy's say; the inputSchema's writeOnly adds its own).
	Mask []string
}

// guardOutcome is what became of a request that was sent.
type guardOutcome struct {
	// Result is the result's raw JSON, nil on an error.
	Result json.RawMessage
	// IsError is a tool result's isError.
	IsError bool
	// Err is the error the request ended with, a JSON-RPC error included.
	Err error
	// Duration is the time from sending to the answer.
	Duration time.Duration
	// Signature is the verdict on the result's signature when the command
	// checks it (--verify-key): "verified" or "failed: <why>"; "" when
	// not checked.
	Signature string
}

// resultVerifierKey is the context key of the check of a tool result's
// signature (see [withResultVerifier]).
type resultVerifierKey struct{}

// withResultVerifier gives the guard the check a command makes of the
// result's signature, so that the audit trail records its verdict: the
// command checks the result after the guard has recorded the call.
func withResultVerifier(ctx context.Context, verify func(raw json.RawMessage) error) context.Context {
	return context.WithValue(ctx, resultVerifierKey{}, verify)
}

// signatureVerdict runs the result check ctx carries, if any.
func signatureVerdict(ctx context.Context, raw json.RawMessage) string {
	verify, _ := ctx.Value(resultVerifierKey{}).(func(json.RawMessage) error)
	if verify == nil || raw == nil {
		return ""
	}
	if err := verify(raw); err != nil {
		return "failed: " + err.Error()
	}
	return "verified"
}

// toolBook remembers the tools a session has listed, so the guard can see
// a tool's annotations and schema without listing again.
type toolBook struct {
	mu    sync.Mutex
	tools map[string]*client.Tool
}

func (b *toolBook) remember(tools []client.Tool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tools = make(map[string]*client.Tool, len(tools))
	for i := range tools {
		b.tools[tools[i].Name] = &tools[i]
	}
}

func (b *toolBook) lookup(name string) *client.Tool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tools[name]
}

// ListTools lists the tools, as the client does, and remembers them for
// the guard.
func (s *session) ListTools(ctx context.Context) ([]client.Tool, error) {
	tools, err := s.Client.ListTools(ctx)
	if err == nil && s.book != nil {
		s.book.remember(tools)
	}
	return tools, err
}

// tool returns the listing of the named tool when the session has one.
func (s *session) tool(name string) *client.Tool {
	if s.book == nil {
		return nil
	}
	return s.book.lookup(name)
}

// guarded runs send under the guard: check first, record after.
func (s *session) guarded(ctx context.Context, r *guardRequest, send func(context.Context) (json.RawMessage, bool, error)) error {
	g := s.guard
	if g != nil {
		if err := g.ready(); err != nil {
			return err
		}
	}
	d := guardDecision{Allowed: true}
	if g != nil && g.check != nil {
		var err error
		d, err = g.check(ctx, r)
		if err != nil || !d.Allowed {
			if g.record != nil {
				g.record(r, d, nil)
			}
			return err
		}
	}
	start := time.Now()
	raw, isError, err := send(ctx)
	if g != nil && g.record != nil {
		g.record(r, d, &guardOutcome{Result: raw, IsError: isError, Err: err, Duration: time.Since(start), Signature: signatureVerdict(ctx, raw)})
	}
	return err
}

// CallTool calls a tool under the guard.
func (s *session) CallTool(ctx context.Context, name string, args map[string]any, opts client.CallOptions) (*client.CallToolResult, error) {
	data, err := client.MarshalArguments(args)
	if err != nil {
		return nil, err
	}
	return s.CallToolWith(ctx, name, data, opts)
}

// CallToolWith calls a tool with encoded arguments under the guard.
func (s *session) CallToolWith(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions) (*client.CallToolResult, error) {
	var res *client.CallToolResult
	err := s.guarded(ctx, s.toolRequest(name, args, opts), func(ctx context.Context) (json.RawMessage, bool, error) {
		var err error
		res, err = s.Client.CallToolWith(ctx, name, args, opts)
		if err != nil {
			return nil, false, err
		}
		return res.Raw, res.IsError, nil
	})
	return res, err
}

// CallToolTask calls a tool as a task under the guard.
func (s *session) CallToolTask(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions, topts client.TaskOptions) (*client.CallToolResult, error) {
	var res *client.CallToolResult
	err := s.guarded(ctx, s.toolRequest(name, args, opts), func(ctx context.Context) (json.RawMessage, bool, error) {
		var err error
		res, err = s.Client.CallToolTask(ctx, name, args, opts, topts)
		if err != nil {
			return nil, false, err
		}
		return res.Raw, res.IsError, nil
	})
	return res, err
}

func (s *session) toolRequest(name string, args json.RawMessage, opts client.CallOptions) *guardRequest {
	return &guardRequest{Method: "tools/call", Name: name, Args: args, Tool: s.tool(name), Server: s.name, Signed: opts.Sign != nil}
}

// ReadResource reads a resource under the guard.
func (s *session) ReadResource(ctx context.Context, uri string) (*client.ReadResourceResult, error) {
	var res *client.ReadResourceResult
	err := s.guarded(ctx, &guardRequest{Method: "resources/read", Name: uri, Server: s.name}, func(ctx context.Context) (json.RawMessage, bool, error) {
		var err error
		res, err = s.Client.ReadResource(ctx, uri)
		if err != nil {
			return nil, false, err
		}
		return res.Raw, false, nil
	})
	return res, err
}

// GetPrompt gets a prompt under the guard.
func (s *session) GetPrompt(ctx context.Context, name string, args map[string]string) (*client.GetPromptResult, error) {
	var data json.RawMessage
	if len(args) > 0 {
		var err error
		if data, err = json.Marshal(args); err != nil {
			return nil, err
		}
	}
	var res *client.GetPromptResult
	err := s.guarded(ctx, &guardRequest{Method: "prompts/get", Name: name, Args: data, Server: s.name}, func(ctx context.Context) (json.RawMessage, bool, error) {
		var err error
		res, err = s.Client.GetPrompt(ctx, name, args)
		if err != nil {
			return nil, false, err
		}
		return res.Raw, false, nil
	})
	return res, err
}

// guardFor builds the guard of a session to the server o describes: the
// policy in force and the audit trail, nil when neither is.
func (f *Factory) guardFor(o *ServerOptions) (*guard, error) {
	g := &guard{}
	var err error
	if g.check, err = f.policyCheck(o); err != nil {
		return nil, err
	}
	if g.record, g.prepare, err = f.auditRecorder(o); err != nil {
		return nil, err
	}
	if g.check == nil && g.record == nil {
		return nil, nil
	}
	return g, nil
}
