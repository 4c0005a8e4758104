package demo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// JSON-RPC and MCP error codes the server answers with.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeResourceNotFound = -32002
)

// Error is a JSON-RPC error the server answers a request with.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

func invalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// Notifier sends a notification to the client while a request is handled
// (the sleep tool's progress). params is marshalled as JSON.
type Notifier func(ctx context.Context, method string, params any) error

// Server holds the demo's tools, resources and prompts. It is safe for
// concurrent use; one Server may serve any number of sessions.
type Server struct {
	tools []*tool // sorted by name

	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema // compiled input schemas, by tool name

	// requestStarted and requestDone, when set by a test, are called before
	// and after each request's handler runs (initialize and
	// logging/setLevel excepted).
	requestStarted, requestDone func(method string)
}

// NewServer returns a demo server. Nothing is computed until a client asks
// for it: input schemas are compiled on a tool's first call.
func NewServer() *Server {
	return &Server{tools: tools(), schemas: map[string]*jsonschema.Schema{}}
}

// Handle answers one request other than initialize and logging/setLevel,
// which belong to a session (see [Serve]): it returns the JSON result, or an
// error that is an *[Error] for the client to see. ctx ends the request
// (cancellation); notify may be nil.
func (s *Server) Handle(ctx context.Context, method string, params json.RawMessage, notify Notifier) (json.RawMessage, error) {
	result, err := s.handle(ctx, method, params, notify)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(result)
	if err != nil {
		return nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("encoding the %s result: %v", method, err)}
	}
	return data, nil
}

func (s *Server) handle(ctx context.Context, method string, params json.RawMessage, notify Notifier) (any, error) {
	switch method {
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return list(params, "tools", s.tools)
	case "tools/call":
		return s.callTool(ctx, params, notify)
	case "resources/list":
		return list(params, "resources", resources())
	case "resources/templates/list":
		return list(params, "resourceTemplates", resourceTemplates())
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return readResource(p.URI)
	case "prompts/list":
		return list(params, "prompts", prompts())
	case "prompts/get":
		var p struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return getPrompt(p.Name, p.Arguments)
	case "completion/complete":
		var p completeParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		return complete(p), nil
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: fmt.Sprintf("method %q not found", method)}
}

// decodeParams decodes a request's params into v; absent params leave v
// zero.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	return nil
}

// list returns one page of items under key, with a nextCursor when more
// follow. The cursor is opaque to clients: the base64 of the next index.
func list[T any](params json.RawMessage, key string, items []T) (map[string]any, error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	start := 0
	if p.Cursor != nil {
		raw, err := base64.RawURLEncoding.DecodeString(*p.Cursor)
		n, convErr := strconv.Atoi(string(raw))
		if err != nil || convErr != nil || n <= 0 || n >= len(items) {
			return nil, invalidParams("invalid cursor %q: use the nextCursor of the previous page", *p.Cursor)
		}
		start = n
	}
	end := min(start+PageSize, len(items))
	page := map[string]any{key: items[start:end]}
	if end < len(items) {
		page["nextCursor"] = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return page, nil
}

// callTool checks a tools/call request's arguments against the tool's input
// schema, fills in the schema's defaults and runs the tool. Invalid
// arguments and failures of the tool are tool errors (isError), which a
// model can read and correct; an unknown tool is a protocol error.
func (s *Server) callTool(ctx context.Context, params json.RawMessage, notify Notifier) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	i, found := slices.BinarySearchFunc(s.tools, p.Name, func(t *tool, name string) int { return strings.Compare(t.Name, name) })
	if !found {
		return nil, invalidParams("unknown tool %q", p.Name)
	}
	t := s.tools[i]
	args, err := s.checkArguments(t, p.Arguments)
	if err != nil {
		return toolError(err), nil
	}
	c := &toolCall{args: args, notify: notify}
	if len(p.Meta.ProgressToken) > 0 && string(p.Meta.ProgressToken) != "null" {
		c.progressToken = p.Meta.ProgressToken
	}
	res, err := t.call(ctx, c)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return toolError(err), nil
	}
	return res, nil
}

// checkArguments returns the arguments of a call with the input schema's
// defaults filled in, or why they break the schema. Absent or null
// arguments are an empty object.
func (s *Server) checkArguments(t *tool, raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
		}
	}
	var schema struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		return nil, fmt.Errorf("reading the input schema: %v", err)
	}
	for name, prop := range schema.Properties {
		if _, given := args[name]; !given && prop.Default != nil {
			args[name] = prop.Default
		}
	}
	compiled, err := s.inputSchema(t)
	if err != nil {
		return nil, err
	}
	if err := compiled.Validate(args); err != nil {
		return nil, fmt.Errorf("invalid arguments for tool %q: %s", t.Name, describeViolation(err))
	}
	return args, nil
}

// inputSchema compiles a tool's input schema on its first call.
func (s *Server) inputSchema(t *tool) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if compiled, ok := s.schemas[t.Name]; ok {
		return compiled, nil
	}
	url := "demo://tools/" + t.Name + "/inputSchema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, strings.NewReader(string(t.InputSchema))); err != nil {
		return nil, fmt.Errorf("loading the input schema of %q: %v", t.Name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling the input schema of %q: %v", t.Name, err)
	}
	s.schemas[t.Name] = compiled
	return compiled, nil
}

// describeViolation lists the leaf errors of a validation error as
// "/path: message", most specific first.
func describeViolation(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			parts = append(parts, loc+": "+e.Message)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(parts, "; ")
}
