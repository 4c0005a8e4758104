package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpctl/mcpctl/internal/defectserver"
)

// rawServer is a minimal newline-delimited JSON-RPC server for the modes
// that break the protocol in ways the SDK will not. It handles one message
// at a time, in order.
type rawServer struct {
	methods map[string]rawHandler
	// noise, if not empty, is written as a line of its own before every
	// response.
	noise string
	obs   *observer
}

// rawHandler answers a request with a result, or with an error.
type rawHandler func(params json.RawMessage) (any, *jsonrpc.Error)

// rawMessage is an incoming JSON-RPC message. A request has an ID; a
// notification does not; a message without a method (a response) is ignored.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// serve answers the messages read from r on w until r ends (which returns
// nil) or writing fails. Lines may be of any length.
func (s *rawServer) serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return defectserver.ServeLines(ctx, r, func(line []byte) error { return s.handle(line, w) })
}

func (s *rawServer) handle(line []byte, w io.Writer) error {
	var msg rawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		return s.reply(w, nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: " + err.Error()})
	}
	if msg.Method == "" {
		return nil
	}
	s.obs.received(msg.Method)
	if msg.ID == nil {
		return nil
	}
	h, ok := s.methods[msg.Method]
	if !ok {
		return s.reply(w, msg.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + msg.Method})
	}
	result, rpcErr := h(msg.Params)
	return s.reply(w, msg.ID, result, rpcErr)
}

// reply writes the response to the request with the given id (null if nil).
func (s *rawServer) reply(w io.Writer, id json.RawMessage, result any, rpcErr *jsonrpc.Error) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": id}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		resp["result"] = result
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("encoding response: %w", err)
	}
	if s.noise != "" {
		data = append([]byte(s.noise+"\n"), data...)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	return nil
}

// fallbackVersion is what a raw server answers initialize with when the
// client names no version.
const fallbackVersion = "2025-11-25"

// rawMethods returns the methods every raw mode answers: initialize (with
// version, or the client's own version if version is empty), ping, and
// tools/list and tools/call offering one tool, echo(message).
func rawMethods(mode, version string) map[string]rawHandler {
	return map[string]rawHandler{
		"initialize": func(params json.RawMessage) (any, *jsonrpc.Error) {
			v := version
			if v == "" {
				var p struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				_ = json.Unmarshal(params, &p) // a bad request gets the fallback
				v = p.ProtocolVersion
			}
			if v == "" {
				v = fallbackVersion
			}
			return map[string]any{
				"protocolVersion": v,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "testserver-" + mode, "version": "1.0.0"},
			}, nil
		},
		"ping": func(json.RawMessage) (any, *jsonrpc.Error) {
			return map[string]any{}, nil
		},
		"tools/list": func(json.RawMessage) (any, *jsonrpc.Error) {
			return map[string]any{"tools": []any{echoTool()}}, nil
		},
		"tools/call": callEcho,
	}
}

func echoTool() map[string]any {
	return map[string]any{
		"name":        "echo",
		"description": "Returns the message unchanged.",
		"inputSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"message": map[string]any{"type": "string"}},
			"required":   []string{"message"},
		},
	}
}

func callEcho(params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Message string `json:"message"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid tools/call params: " + err.Error()}
	}
	if p.Name != "echo" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}
	}
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": p.Arguments.Message}}}, nil
}

// nonJSONNoise is the line the nonjson mode writes before every response.
const nonJSONNoise = "hello from a misbehaving server"

func nonJSONMode(ctx context.Context, e *env) int {
	s := &rawServer{methods: rawMethods(e.mode, ""), noise: nonJSONNoise, obs: e.obs}
	return e.exitStatus(s.serve(ctx, e.stdin, e.stdout))
}

// repeatedCursor is the nextCursor every tools/list answer of the
// repeat-cursor mode carries.
const repeatedCursor = "same"

func repeatCursorMode(ctx context.Context, e *env) int {
	methods := rawMethods(e.mode, "")
	methods["tools/list"] = func(json.RawMessage) (any, *jsonrpc.Error) {
		return map[string]any{"tools": []any{echoTool()}, "nextCursor": repeatedCursor}, nil
	}
	s := &rawServer{methods: methods, obs: e.obs}
	return e.exitStatus(s.serve(ctx, e.stdin, e.stdout))
}

func versionMode(ctx context.Context, e *env) int {
	s := &rawServer{methods: rawMethods(e.mode, e.answerVersion), obs: e.obs}
	return e.exitStatus(s.serve(ctx, e.stdin, e.stdout))
}
