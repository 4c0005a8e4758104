package faultserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/client"
)

// Texts the modes send, for scripts and tests to match.
const (
	// UnknownID is the id the unknown-id mode answers tools/call with.
	UnknownID = 999999
	// EscapeText is the text the escape-injection mode sends as tool
	// content, log data and stderr line: OSC 52 (clipboard write), OSC 0
	// (window title) and ESC[2J (clear screen) between plain words.
	EscapeText = "before\x1b]52;c;ZXZpbA==\x07middle\x1b]0;pwned\x07\x1b[2Jafter"
	// InvalidUTF8Text is the text of the invalid-utf8 mode's result, whose
	// middle bytes are not UTF-8.
	InvalidUTF8Text = "valid then \xff\xfe invalid"
	// CrashLine is what the crash modes write to stderr before exiting.
	CrashLine = "fatal: simulated crash"
	// ImageData is the base64 of the image image-no-mimetype sends: a
	// 1×1 PNG (without saying so).
	ImageData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	// PromptName is the prompt the modes with prompts offer.
	PromptName = "greeting"
	// PromptText is the text of PromptName's message.
	PromptText = "You are talking to a fault server."
	// SessionEndsVersion is the revision session-ends negotiates, whatever
	// the client offers.
	SessionEndsVersion = "2025-06-18"
)

// exitCrash is the exit status of the crash modes.
const exitCrash = 3

// errCrash ends a crash mode.
var errCrash = fmt.Errorf("%s", CrashLine)

// handle answers one request: the messages to send, in order, the last
// being the response (none if the mode never answers). secrets are the
// credentials the echo-secret mode echoes; session is the HTTP session id
// an initialize hands out ("" over stdio).
func (s *server) handle(ctx context.Context, m message, secrets []string, session string) ([][]byte, error) {
	if m.Method == "initialize" {
		version, serverVersion := negotiate(m.Params), "1.0.0"
		if s.cfg.Mode == "session-ends" {
			// A fixed older revision, so a script can tell the
			// negotiated version from the one mcpctl offers, and a
			// server version per session, so it can tell which
			// session's answer a command shows.
			version, serverVersion = SessionEndsVersion, "1.0.0-"+session
		}
		result := mustJSON(object{
			"protocolVersion": version,
			"capabilities":    s.capabilities(),
			"serverInfo":      object{"name": "faultserver-" + s.cfg.Mode, "version": serverVersion},
		})
		return [][]byte{response(m.ID, result)}, nil
	}
	var (
		out [][]byte
		err error
	)
	switch m.Method {
	case "ping", "logging/setLevel":
		out = [][]byte{response(m.ID, []byte("{}"))}
	case "tools/list":
		out, err = s.toolsList(ctx, m)
		if s.cfg.Mode == "announces-lists" && err == nil && !s.listed.Swap(true) {
			changed := notification("notifications/tools/list_changed", object{})
			out = append([][]byte{changed, changed}, out...)
		}
	case "tools/call":
		out, err = s.toolsCall(m, secrets)
	case "prompts/list", "prompts/get":
		if !s.offersPrompts() {
			out = [][]byte{errorResponse(m.ID, client.CodeMethodNotFound, "method not found: "+m.Method)}
			break
		}
		out = s.prompts(m)
	default:
		out = [][]byte{errorResponse(m.ID, client.CodeMethodNotFound, "method not found: "+m.Method)}
	}
	if err != nil || len(out) == 0 {
		return out, err
	}
	if s.cfg.Mode == "batch-answer" {
		last := len(out) - 1
		out[last] = append(append([]byte("["), out[last]...), ']')
	}
	return out, nil
}

func (s *server) toolsList(ctx context.Context, m message) ([][]byte, error) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p) // absent or malformed params: the first page
	result := object{"tools": []any{faultTool()}}
	switch s.cfg.Mode {
	case "many-tools":
		start := 0
		if p.Cursor != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(p.Cursor, "from-"))
			if err != nil || n < 0 || n > s.cfg.Count {
				return [][]byte{errorResponse(m.ID, client.CodeInvalidParams, fmt.Sprintf("invalid cursor %q", p.Cursor))}, nil
			}
			start = n
		}
		end := s.cfg.Count
		if s.cfg.PageSize > 0 {
			end = min(start+s.cfg.PageSize, s.cfg.Count)
		}
		tools := make([]any, 0, end-start)
		for i := start; i < end; i++ {
			tools = append(tools, object{"name": fmt.Sprintf("tool%05d", i+1), "inputSchema": object{"type": "object"}})
		}
		result = object{"tools": tools}
		if end < s.cfg.Count {
			result["nextCursor"] = fmt.Sprintf("from-%d", end)
		}
	case "cursor-loop":
		next := map[string]string{"": "a", "a": "b", "b": "a"}[p.Cursor]
		result = object{"tools": []any{object{"name": "tool-" + next, "inputSchema": object{"type": "object"}}}, "nextCursor": next}
	case "fresh-cursor-forever":
		if err := sleep(ctx, s.cfg.Delay); err != nil {
			return nil, err
		}
		page, _ := strconv.Atoi(strings.TrimPrefix(p.Cursor, "page-")) // the first page has none
		tools := make([]any, 0, max(s.cfg.PageSize, 1))
		for i := range max(s.cfg.PageSize, 1) {
			tools = append(tools, object{"name": fmt.Sprintf("tool-%d-%d", page, i), "inputSchema": object{"type": "object"}})
		}
		result = object{"tools": tools, "nextCursor": fmt.Sprintf("page-%d", page+1)}
	}
	return [][]byte{response(m.ID, mustJSON(result))}, nil
}

func (s *server) toolsCall(m message, secrets []string) ([][]byte, error) {
	id := m.ID
	switch s.cfg.Mode {
	case "invalid-utf8":
		// Built by hand: encoding/json would replace the invalid bytes.
		return [][]byte{response(id, []byte(`{"content":[{"type":"text","text":"`+InvalidUTF8Text+`"}]}`))}, nil
	case "notification-flood":
		out := make([][]byte, 0, s.cfg.Count+1)
		for i := range s.cfg.Count {
			out = append(out, logMessage(fmt.Sprintf("flood message %d of %d", i+1, s.cfg.Count)))
		}
		return append(out, response(id, textResult("ok"))), nil
	case "request-flood":
		out := make([][]byte, 0, s.cfg.Count+1)
		for i := range s.cfg.Count {
			out = append(out, request(fmt.Sprintf("flood-%d", i+1), s.cfg.Method, object{}))
		}
		return append(out, response(id, textResult("ok"))), nil
	case "unknown-id":
		return [][]byte{response(json.RawMessage(strconv.Itoa(UnknownID)), textResult("answer to nobody"))}, nil
	case "string-id":
		return [][]byte{response(json.RawMessage(strconv.Quote(string(id))), textResult("answer with a string id"))}, nil
	case "deep-nesting":
		n := s.cfg.Count
		var b bytes.Buffer
		b.WriteString(`{"content":[{"type":"text","text":"deep"}],"structuredContent":{"nested":`)
		b.WriteString(strings.Repeat("[", n))
		b.WriteString(strings.Repeat("]", n))
		b.WriteString("}}")
		return [][]byte{response(id, b.Bytes())}, nil
	case "huge-result":
		return [][]byte{response(id, textResult(hugeText(s.cfg.Size)))}, nil
	case "echo-secret":
		seen := strings.Join(secrets, " ")
		return [][]byte{
			logMessage("received credentials: " + seen),
			errorResponse(id, -32001, "access denied for credentials: "+seen),
		}, nil
	case "escape-injection":
		fmt.Fprintln(s.stderr, EscapeText)
		return [][]byte{logMessage(EscapeText), response(id, textResult(EscapeText))}, nil
	case "image-no-mimetype":
		return [][]byte{response(id, mustJSON(object{"content": []any{object{"type": "image", "data": ImageData}}}))}, nil
	case "result-shapes":
		if res := shapedResult(m.Params); res != nil {
			return [][]byte{response(id, res)}, nil
		}
	case "print-env":
		env := os.Environ()
		slices.Sort(env)
		return [][]byte{response(id, textResult(strings.Join(env, "\n")))}, nil
	}
	var p struct {
		Arguments struct {
			Message string `json:"message"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(m.Params, &p) // no message: "ok"
	if p.Arguments.Message == "" {
		p.Arguments.Message = "ok"
	}
	return [][]byte{response(id, textResult(p.Arguments.Message))}, nil
}

// capabilities are what initialize declares: tools and logging, and
// prompts in the modes that offer them.
func (s *server) capabilities() object {
	caps := object{"tools": object{}, "logging": object{}}
	switch s.cfg.Mode {
	case "announces-lists":
		caps["tools"] = object{"listChanged": true}
	case "session-ends":
		caps["tools"] = object{"listChanged": true}
		caps["prompts"] = object{"listChanged": true}
	case "prompt-system-role":
		caps["prompts"] = object{}
	}
	return caps
}

// offersPrompts reports whether the mode declares prompts.
func (s *server) offersPrompts() bool {
	_, ok := s.capabilities()["prompts"]
	return ok
}

// prompts answers prompts/list and prompts/get: one prompt, PromptName,
// whose message has the role "user", or "system" (which no revision of
// the schema allows) in prompt-system-role.
func (s *server) prompts(m message) [][]byte {
	if m.Method == "prompts/list" {
		return [][]byte{response(m.ID, mustJSON(object{"prompts": []any{object{
			"name":        PromptName,
			"description": "A prompt whose message has the role the server's mode says.",
		}}}))}
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p) // no name: the error below
	if p.Name != PromptName {
		return [][]byte{errorResponse(m.ID, client.CodeInvalidParams, fmt.Sprintf("unknown prompt %q: this server offers %q", p.Name, PromptName))}
	}
	role := "user"
	if s.cfg.Mode == "prompt-system-role" {
		role = "system"
	}
	return [][]byte{response(m.ID, mustJSON(object{
		"description": "A prompt from the fault server.",
		"messages":    []any{object{"role": role, "content": object{"type": "text", "text": PromptText}}},
	}))}
}

// hugeText is size bytes of 'x' ending in "END" (or just x's when size is
// under 3), so a reader can tell the whole text arrived.
func hugeText(size int64) string {
	if size < 3 {
		return strings.Repeat("x", int(max(size, 0)))
	}
	return strings.Repeat("x", int(size-3)) + "END"
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shapedResult is the tools/call result of the result-shapes mode for the
// shape params' message names, nil for a message that names none.
func shapedResult(params json.RawMessage) []byte {
	var p struct {
		Arguments struct {
			Message string `json:"message"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p) // no message: no shape
	const file = "line one\nline two\n"
	image := object{"type": "image", "mimeType": "image/png", "data": ImageData}
	switch p.Arguments.Message {
	case "file":
		return mustJSON(object{"content": []any{object{"type": "text", "text": file}}, "structuredContent": object{"content": file}})
	case "json":
		return mustJSON(object{"content": []any{object{"type": "text", "text": `{"b": [1, 2], "a": "x"}`}}, "structuredContent": object{"a": "x", "b": []int{1, 2}}})
	case "empty":
		return mustJSON(object{"content": []any{}})
	case "images":
		return mustJSON(object{"content": []any{image, image}})
	}
	return nil
}
