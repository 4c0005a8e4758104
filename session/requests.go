package session

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpctl/mcpctl/client"
)

// toolBook remembers the tools a session has listed, so the stages see a
// tool's annotations and schemas without listing again. A lent session
// shares its lender's.
type toolBook struct {
	shared *toolBook
	mu     sync.Mutex
	tools  map[string]*client.Tool
}

func (b *toolBook) share(with *toolBook) { b.shared = with }

func (b *toolBook) own() *toolBook {
	if b.shared != nil {
		return b.shared.own()
	}
	return b
}

func (b *toolBook) remember(tools []client.Tool) {
	b = b.own()
	m := make(map[string]*client.Tool, len(tools))
	for i := range tools {
		m[tools[i].Name] = &tools[i]
	}
	b.mu.Lock()
	b.tools = m
	b.mu.Unlock()
}

func (b *toolBook) lookup(name string) *client.Tool {
	b = b.own()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tools[name]
}

// Governed requests: every one passes through the pipeline.

// CallTool calls a tool with arguments encoded by [client.MarshalArguments].
func (s *Session) CallTool(ctx context.Context, name string, args map[string]any, opts client.CallOptions) (*client.CallToolResult, error) {
	data, err := client.MarshalArguments(args)
	if err != nil {
		return nil, fmt.Errorf("calling tool %q: %w", name, err)
	}
	return s.CallToolWith(ctx, name, data, opts)
}

// CallToolWith calls a tool with encoded arguments. A result that breaks
// the tool's outputSchema, fails its signature check or could not be
// audited is returned together with the error saying so.
func (s *Session) CallToolWith(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions) (*client.CallToolResult, error) {
	return s.callTool(ctx, name, args, opts, func(ctx context.Context, opts client.CallOptions) (*client.CallToolResult, error) {
		return s.c.CallToolWith(ctx, name, args, opts)
	})
}

// CallToolTask calls a tool as a task and waits for its result, through
// the pipeline as [Session.CallToolWith].
func (s *Session) CallToolTask(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions, topts client.TaskOptions) (*client.CallToolResult, error) {
	return s.callTool(ctx, name, args, opts, func(ctx context.Context, opts client.CallOptions) (*client.CallToolResult, error) {
		return s.c.CallToolTask(ctx, name, args, opts, topts)
	})
}

func (s *Session) callTool(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions, do func(context.Context, client.CallOptions) (*client.CallToolResult, error)) (*client.CallToolResult, error) {
	call := &Call{Method: "tools/call", Name: name, Args: args, Tool: s.Tool(name), Server: s.name, Signed: opts.Sign != nil}
	signer, verifier := s.pipe.st.Signer, s.pipe.st.Verifier
	if s.signer != nil {
		signer = s.signer
	}
	if s.verifier != nil {
		verifier = s.verifier
	}
	var res *client.CallToolResult
	err := s.pipe.runWith(ctx, call, signer, verifier, func(ctx context.Context, sign signFunc) (sent, error) {
		if sign != nil && opts.Sign == nil {
			opts.Sign = sign
		}
		var err error
		res, err = do(ctx, opts)
		if err != nil {
			return sent{}, err
		}
		return sent{raw: res.Raw, tool: res}, nil
	})
	return res, err
}

// ReadResource reads a resource.
func (s *Session) ReadResource(ctx context.Context, uri string) (*client.ReadResourceResult, error) {
	var res *client.ReadResourceResult
	err := s.pipe.run(ctx, &Call{Method: "resources/read", Name: uri, Server: s.name}, func(ctx context.Context, _ signFunc) (sent, error) {
		var err error
		if res, err = s.c.ReadResource(ctx, uri); err != nil {
			return sent{}, err
		}
		return sent{raw: res.Raw}, nil
	})
	return res, err
}

// GetPrompt gets a prompt.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*client.GetPromptResult, error) {
	var data json.RawMessage
	if len(args) > 0 {
		var err error
		if data, err = json.Marshal(args); err != nil {
			return nil, err
		}
	}
	var res *client.GetPromptResult
	err := s.pipe.run(ctx, &Call{Method: "prompts/get", Name: name, Args: data, Server: s.name}, func(ctx context.Context, _ signFunc) (sent, error) {
		var err error
		if res, err = s.c.GetPrompt(ctx, name, args); err != nil {
			return sent{}, err
		}
		return sent{raw: res.Raw}, nil
	})
	return res, err
}

// Call sends one request the caller built, such as a host's raw JSON-RPC
// behind the proxy, and returns its raw result. tools/call,
// resources/read and prompts/get pass through the governed stages as the
// typed methods do; every other method is sent as it is. A tools/call
// whose result fails a check returns the result with the error.
func (s *Session) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	switch method {
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(raw, &p); err != nil || p.Name == "" {
			return nil, fmt.Errorf("tools/call: params need a tool name and an arguments object")
		}
		// The host's _meta (a progress token, …) goes out with the call;
		// the session's signature, when it signs, replaces any the host
		// set. Fields of params other than name, arguments and _meta are
		// not forwarded.
		var meta map[string]any
		if len(p.Meta) > 0 {
			if err := json.Unmarshal(p.Meta, &meta); err != nil {
				return nil, fmt.Errorf("tools/call: params._meta is not a JSON object: %v", err)
			}
			delete(meta, "signature")
		}
		res, err := s.CallToolWith(ctx, p.Name, p.Arguments, client.CallOptions{Meta: meta})
		if res == nil {
			return nil, err
		}
		return res.Raw, err
	case "resources/read", "prompts/get":
		var p struct {
			Name      string          `json:"name"`
			URI       string          `json:"uri"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("%s: params are not a JSON object: %v", method, err)
		}
		c := &Call{Method: method, Name: p.Name, Args: p.Arguments, Server: s.name}
		if method == "resources/read" {
			c.Name, c.Args = p.URI, nil
		}
		var res json.RawMessage
		err := s.pipe.run(ctx, c, func(ctx context.Context, _ signFunc) (sent, error) {
			var err error
			if res, err = s.c.Call(ctx, method, raw); err != nil {
				return sent{}, err
			}
			return sent{raw: res}, nil
		})
		return res, err
	}
	return s.c.Call(ctx, method, raw)
}

func marshalParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	case []byte:
		return p, nil
	}
	return json.Marshal(params)
}

// Requests no policy governs: sent as they are, their results checked
// against the official schema as every result is.

// ListTools lists the tools and remembers them for the stages.
func (s *Session) ListTools(ctx context.Context) ([]client.Tool, error) {
	tools, err := s.c.ListTools(ctx)
	if err == nil {
		s.book.remember(tools)
	}
	return tools, err
}

// ListResources lists the resources.
func (s *Session) ListResources(ctx context.Context) ([]client.Resource, error) {
	return s.c.ListResources(ctx)
}

// ListResourceTemplates lists the resource templates.
func (s *Session) ListResourceTemplates(ctx context.Context) ([]client.ResourceTemplate, error) {
	return s.c.ListResourceTemplates(ctx)
}

// ListPrompts lists the prompts.
func (s *Session) ListPrompts(ctx context.Context) ([]client.Prompt, error) {
	return s.c.ListPrompts(ctx)
}

// ListAll lists every page of a list method.
func (s *Session) ListAll(ctx context.Context, method, key string) ([]json.RawMessage, error) {
	return s.c.ListAll(ctx, method, key)
}

// ListAllPages lists every page of a list method, telling onPage of each.
func (s *Session) ListAllPages(ctx context.Context, method, key string, onPage func(client.ListPage)) ([]json.RawMessage, error) {
	return s.c.ListAllPages(ctx, method, key, onPage)
}

// Complete asks for completions of an argument.
func (s *Session) Complete(ctx context.Context, ref client.CompletionRef, arg, value string, given map[string]string) (*client.CompleteResult, error) {
	return s.c.Complete(ctx, ref, arg, value, given)
}

// Ping pings the server.
func (s *Session) Ping(ctx context.Context) error { return s.c.Ping(ctx) }

// SetLogLevel asks the server for its logs at level.
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	return s.c.SetLogLevel(ctx, level)
}

// Subscribe subscribes to the server's notifications.
func (s *Session) Subscribe(ctx context.Context, want client.SubscriptionFilter) (*client.Subscription, error) {
	return s.c.Subscribe(ctx, want)
}

// NotifyRootsChanged tells the server the roots changed.
func (s *Session) NotifyRootsChanged(ctx context.Context) error { return s.c.NotifyRootsChanged(ctx) }

// ListSkills lists the server's skills.
func (s *Session) ListSkills(ctx context.Context) ([]client.SkillEntry, error) {
	return s.c.ListSkills(ctx)
}

// GetTask gets a task's state.
func (s *Session) GetTask(ctx context.Context, id string) (*client.Task, error) {
	return s.c.GetTask(ctx, id)
}

// CancelTask cancels a task.
func (s *Session) CancelTask(ctx context.Context, id string) (*client.Task, error) {
	return s.c.CancelTask(ctx, id)
}

// TaskResult gets the result of a finished task.
func (s *Session) TaskResult(ctx context.Context, id string) (*client.CallToolResult, error) {
	return s.c.TaskResult(ctx, id)
}

// ListTasks lists the tasks.
func (s *Session) ListTasks(ctx context.Context) ([]client.Task, error) {
	return s.c.ListTasks(ctx)
}

// GetSkill gets a skill's entry by its SKILL.md URI.
func (s *Session) GetSkill(ctx context.Context, uri string) (*client.SkillEntry, error) {
	return s.c.GetSkill(ctx, uri)
}
