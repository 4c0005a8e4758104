// Package defectserver is an MCP server with seeded defects: one or more of
// every kind `mcpctl validate` (package lint) reports. The end-to-end tests
// run it as `testserver defects`; lint's tests call [Handle] directly.
//
// It is a hand-written newline-delimited JSON-RPC loop rather than the
// official SDK, which refuses several of these defects at registration (a
// tool name with a space, duplicate names, a tool without inputSchema).
// [Server.Defects] lists what is seeded, by lint rule ID. A [Server] with
// WarningsOnly seeds only the defects lint reports as warnings, so tests can
// tell `mcpctl validate --strict` from a plain run; `testserver defects` runs
// that one when the environment has DEFECTSERVER_ONLY=warnings.
package defectserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mcpctl/mcpctl/client"
)

// Defect is one seeded defect.
type Defect struct {
	// RuleID is the lint rule that must report it.
	RuleID string
	// Subject is the finding's subject.
	Subject string
	// What describes the defect.
	What string
}

// Server is the defect server. The zero value seeds every defect.
type Server struct {
	// WarningsOnly seeds only the defects lint reports as warnings.
	WarningsOnly bool
}

// Defects lists the seeded defects, in the order of the server's messages.
func (s Server) Defects() []Defect {
	if s.WarningsOnly {
		return []Defect{
			{"description-missing", `tool "undocumented"`, "a tool without a description"},
			{"resource-name-duplicate", `resource name "readme"`, "two resources named readme"},
		}
	}
	return []Defect{
		{"message-schema", "initialize", "serverInfo has no version"},
		{"tool-name-invalid", `tool "get weather"`, "a tool name with a space"},
		{"tool-name-duplicate", `tool "echo"`, "two tools named echo"},
		{"input-schema-not-object", `tool "list_items"`, `an inputSchema with "type": "array"`},
		{"input-schema-invalid", `tool "bad_minimum"`, `an inputSchema whose "minimum" is a string`},
		{"output-schema-invalid", `tool "stats"`, `an outputSchema with "type": "float", which does not compile`},
		{"output-schema-not-object", `tool "list_rows"`, `an outputSchema with "type": "array"`},
		{"description-missing", `tool "undocumented"`, "a tool without a description"},
		{"message-schema", `tool "no_schema"`, "a tool without inputSchema"},
		{"resource-uri-invalid", `resource "notes/my file.txt"`, "a resource URI without a scheme and with a space"},
		{"resource-uri-duplicate", `resource "defect://readme"`, "two resources with the URI defect://readme"},
		{"resource-name-duplicate", `resource name "readme"`, "two resources named readme"},
		{"resource-template-invalid", `template "item"`, `a URI template with an unclosed "{"`},
		{"pagination-cursor-rejected", "resources/templates/list page 2", "templates/list rejects its own nextCursor"},
		{"capability-undeclared", `capability "prompts"`, "prompts/list answers, but the prompts capability is not declared"},
		{"prompt-argument-unnamed", `prompt "review" argument #2`, "a prompt argument with an empty name"},
		{"prompt-name-duplicate", `prompt "summarize"`, "two prompts named summarize"},
		{"pagination-repeated-cursor", "prompts/list", `prompts/list always answers nextCursor "again"`},
	}
}

// Cursors the lists hand out.
const (
	toolsPage2     = "tools-2"
	templatesPage2 = "templates-2"
	promptsAgain   = "again"
)

// supportedVersions are the revisions initialize accepts from the client,
// mcpctl's own; others get the latest.
func supportedVersions() []string { return client.SupportedProtocolVersions() }

// object is shorthand for the messages below.
type object = map[string]any

func schemaObject() object { return object{"type": "object"} }

func tools(cursor string) (any, *RPCError) {
	switch cursor {
	case "":
		return object{"tools": []any{
			object{"name": "get weather", "description": "Returns the weather.", "inputSchema": schemaObject()},
			object{"name": "echo", "description": "Returns the message.", "inputSchema": object{
				"type": "object", "properties": object{"message": object{"type": "string"}}, "required": []string{"message"},
			}},
			object{"name": "echo", "description": "Returns the message, again.", "inputSchema": schemaObject()},
		}, "nextCursor": toolsPage2}, nil
	case toolsPage2:
		return object{"tools": []any{
			object{"name": "list_items", "description": "Lists items.", "inputSchema": object{"type": "array", "items": object{"type": "string"}}},
			object{"name": "bad_minimum", "description": "Counts.", "inputSchema": object{
				"type": "object", "properties": object{"n": object{"type": "integer", "minimum": "1"}},
			}},
			object{"name": "stats", "description": "Computes statistics.", "inputSchema": schemaObject(),
				"outputSchema": object{"type": "object", "properties": object{"mean": object{"type": "float"}}}},
			object{"name": "list_rows", "description": "Lists rows.", "inputSchema": schemaObject(),
				"outputSchema": object{"type": "array"}},
			object{"name": "undocumented", "inputSchema": schemaObject()},
			object{"name": "no_schema", "description": "Has no input schema."},
		}}, nil
	}
	return nil, invalidCursor(cursor)
}

func resources(string) (any, *RPCError) {
	return object{"resources": []any{
		object{"uri": "defect://readme", "name": "readme", "mimeType": "text/plain"},
		object{"uri": "notes/my file.txt", "name": "notes"},
		object{"uri": "defect://readme-copy", "name": "readme"},
		object{"uri": "defect://readme", "name": "readme-again"},
	}}, nil
}

func templates(cursor string) (any, *RPCError) {
	if cursor == "" {
		return object{"resourceTemplates": []any{
			object{"uriTemplate": "defect://users/{user}/posts{?page,limit}{#section:3}", "name": "posts"},
			object{"uriTemplate": "defect://items/{id", "name": "item"},
		}, "nextCursor": templatesPage2}, nil
	}
	return nil, invalidCursor(cursor)
}

func prompts(cursor string) (any, *RPCError) {
	if cursor == "" {
		return object{"prompts": []any{
			object{"name": "review", "description": "Reviews code.", "arguments": []any{
				object{"name": "code", "required": true},
				object{"name": "", "description": "An argument nobody can pass."},
			}},
			object{"name": "summarize", "description": "Summarizes."},
			object{"name": "summarize", "description": "Summarizes, again."},
		}, "nextCursor": promptsAgain}, nil
	}
	return object{"prompts": []any{object{"name": "translate", "description": "Translates."}}, "nextCursor": promptsAgain}, nil
}

func initialize(params json.RawMessage, warningsOnly bool) (any, *RPCError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p) // a bad request gets the latest version
	version := p.ProtocolVersion
	if !slices.Contains(supportedVersions(), version) {
		version = supportedVersions()[0]
	}
	if warningsOnly {
		return object{
			"protocolVersion": version,
			"capabilities":    object{"tools": object{}, "resources": object{}},
			"serverInfo":      object{"name": "defectserver", "version": "1.0.0"},
		}, nil
	}
	return object{
		"protocolVersion": version,
		// No "prompts", though prompts/list answers.
		"capabilities": object{"tools": object{}, "resources": object{}},
		"serverInfo":   object{"name": "defectserver"},
	}, nil
}

// The lists of a server with WarningsOnly.
func warningTools(cursor string) (any, *RPCError) {
	if cursor != "" {
		return nil, invalidCursor(cursor)
	}
	return object{"tools": []any{
		object{"name": "echo", "description": "Returns the message.", "inputSchema": schemaObject()},
		object{"name": "undocumented", "inputSchema": schemaObject()},
	}}, nil
}

func warningResources(string) (any, *RPCError) {
	return object{"resources": []any{
		object{"uri": "defect://readme", "name": "readme"},
		object{"uri": "defect://readme-copy", "name": "readme"},
	}}, nil
}

// RPCError is a JSON-RPC error answer.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

func invalidCursor(cursor string) *RPCError {
	return &RPCError{Code: client.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %q", cursor)}
}

// Handle answers one request as the server does: a result, or an error.
func (s Server) Handle(method string, params json.RawMessage) (json.RawMessage, *RPCError) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(params, &p) // absent or malformed params: the first page
	var (
		result any
		rpcErr *RPCError
	)
	switch {
	case method == "initialize":
		result, rpcErr = initialize(params, s.WarningsOnly)
	case method == "ping":
		result = object{}
	case s.WarningsOnly && method == "tools/list":
		result, rpcErr = warningTools(p.Cursor)
	case s.WarningsOnly && method == "resources/list":
		result, rpcErr = warningResources(p.Cursor)
	case s.WarningsOnly && method == "resources/templates/list":
		result = object{"resourceTemplates": []any{}}
	case s.WarningsOnly:
		return nil, &RPCError{Code: client.CodeMethodNotFound, Message: "method not found: " + method}
	case method == "tools/list":
		result, rpcErr = tools(p.Cursor)
	case method == "resources/list":
		result, rpcErr = resources(p.Cursor)
	case method == "resources/templates/list":
		result, rpcErr = templates(p.Cursor)
	case method == "prompts/list":
		result, rpcErr = prompts(p.Cursor)
	default:
		return nil, &RPCError{Code: client.CodeMethodNotFound, Message: "method not found: " + method}
	}
	if rpcErr != nil {
		return nil, rpcErr
	}
	data, err := json.Marshal(result)
	if err != nil {
		return nil, &RPCError{Code: client.CodeInternalError, Message: err.Error()}
	}
	return data, nil
}

// Serve answers the newline-delimited JSON-RPC messages read from r on w,
// one at a time, until r ends (which returns nil), ctx is done or writing
// fails. received, if not nil, is called with the method of every request
// and notification before it is handled.
func (s Server) Serve(ctx context.Context, r io.Reader, w io.Writer, received func(method string)) error {
	return ServeLines(ctx, r, func(line []byte) error { return s.serveOne(line, w, received) })
}

// ServeLines calls handle with each line read from r that is not blank,
// until r ends (which returns nil), ctx is done or handle fails. Lines
// may be of any length.
func ServeLines(ctx context.Context, r io.Reader, handle func(line []byte) error) error {
	br := bufio.NewReader(r)
	for ctx.Err() == nil {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if herr := handle(line); herr != nil {
				return herr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading: %w", err)
		}
	}
	return nil
}

func (s Server) serveOne(line []byte, w io.Writer, received func(string)) error {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	resp := object{"jsonrpc": "2.0"}
	if err := json.Unmarshal(line, &msg); err != nil {
		resp["id"] = nil
		resp["error"] = &RPCError{Code: client.CodeParseError, Message: "parse error: " + err.Error()}
	} else {
		if msg.Method == "" {
			return nil // a response to nothing we sent
		}
		if received != nil {
			received(msg.Method)
		}
		if msg.ID == nil {
			return nil // a notification
		}
		resp["id"] = msg.ID
		if result, rpcErr := s.Handle(msg.Method, msg.Params); rpcErr != nil {
			resp["error"] = rpcErr
		} else {
			resp["result"] = result
		}
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("encoding response: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	return nil
}
