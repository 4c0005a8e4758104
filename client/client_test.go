package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/transport"
)

// failAfter bounds every wait for something that should happen promptly. It
// only turns a hang into a failure; nothing waits for it to pass.
const failAfter = 10 * time.Second

// message is one JSON-RPC message as the fake server decodes it.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// handler scripts the fake server's reaction to one method. It runs on the
// server's read loop, after the message has been recorded.
type handler func(s *fakeServer, m message)

// fakeServer is a scripted MCP server on the far end of a transport.NewPipe.
// It records every message the client sends and runs the handler registered
// for its method; initialize is answered with [LatestProtocolVersion] unless
// a test registers its own handler.
type fakeServer struct {
	t        *testing.T
	conn     transport.Connection
	handlers map[string]handler
	got      chan message // every message received, in order
	done     chan struct{}
	writeMu  sync.Mutex
}

// startFake starts a fake server and returns it with the client's end of the
// pipe.
func startFake(t *testing.T, handlers map[string]handler) (*fakeServer, transport.Connection) {
	t.Helper()
	clientEnd, serverEnd := transport.NewPipe()
	s := &fakeServer{
		t:        t,
		conn:     serverEnd,
		handlers: map[string]handler{"initialize": answerInitialize(LatestProtocolVersion)},
		got:      make(chan message, 1024),
		done:     make(chan struct{}),
	}
	maps.Copy(s.handlers, handlers)
	go s.serve()
	t.Cleanup(func() {
		serverEnd.Close()
		<-s.done
	})
	return s, clientEnd
}

func (s *fakeServer) serve() {
	defer close(s.done)
	for {
		data, err := s.conn.Read(context.Background())
		if err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			s.t.Errorf("the client sent something that is not a JSON-RPC message: %s: %v", data, err)
			continue
		}
		s.got <- m
		if h := s.handlers[m.Method]; h != nil && m.Method != "" {
			h(s, m)
		}
	}
}

// write sends one raw message to the client.
func (s *fakeServer) write(msg string) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.conn.Write(context.Background(), json.RawMessage(msg), transport.WriteOptions{}); err != nil {
		s.t.Errorf("fake server: writing %s: %v", msg, err)
	}
}

func (s *fakeServer) reply(m message, result string) {
	s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
}

func (s *fakeServer) replyError(m message, errObj string) {
	s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":%s}`, m.ID, errObj))
}

// waitFor returns the first message received from now on that matches.
func (s *fakeServer) waitFor(t *testing.T, what string, match func(message) bool) message {
	t.Helper()
	timeout := time.NewTimer(failAfter)
	defer timeout.Stop()
	for {
		select {
		case m := <-s.got:
			if match(m) {
				return m
			}
		case <-s.done:
			for _, m := range s.drain() {
				if match(m) {
					return m
				}
			}
			t.Fatalf("the connection ended before the server received %s", what)
		case <-timeout.C:
			t.Fatalf("the server did not receive %s within %s", what, failAfter)
		}
	}
}

// drain returns the messages received and not yet consumed.
func (s *fakeServer) drain() []message {
	var ms []message
	for {
		select {
		case m := <-s.got:
			ms = append(ms, m)
		default:
			return ms
		}
	}
}

// received waits for the client to close the connection and returns the
// messages not yet consumed.
func (s *fakeServer) received(t *testing.T) []message {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(failAfter):
		t.Fatalf("the client did not close the connection within %s", failAfter)
	}
	return s.drain()
}

func isMethod(method string) func(message) bool {
	return func(m message) bool { return m.Method == method }
}

func isResponseTo(id string) func(message) bool {
	return func(m message) bool { return m.Method == "" && string(m.ID) == id }
}

func methods(ms []message) []string {
	var names []string
	for _, m := range ms {
		names = append(names, m.Method)
	}
	return names
}

func answerInitialize(version string) handler {
	return func(s *fakeServer, m message) {
		s.reply(m, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"fake","version":"0.1"},"instructions":"be nice"}`, version))
	}
}

// transportFunc makes a function a transport.Transport.
type transportFunc func(ctx context.Context) (transport.Connection, error)

func (f transportFunc) Connect(ctx context.Context) (transport.Connection, error) { return f(ctx) }

// fixed is a transport whose Connect returns conn.
func fixed(conn transport.Connection) transport.Transport {
	return transportFunc(func(context.Context) (transport.Connection, error) { return conn, nil })
}

// newClient starts a session over conn without the handshake, for tests
// about what follows it.
func newClient(t *testing.T, conn transport.Connection, opts Options) *Client {
	t.Helper()
	c := New(conn, opts)
	t.Cleanup(func() { c.Close() })
	return c
}

func compactString(t *testing.T, data []byte) string {
	t.Helper()
	if data == nil {
		return ""
	}
	return compact(t, data)
}

func TestConnectHandshake(t *testing.T) {
	type initParams struct {
		ProtocolVersion string
		Capabilities    string
		ClientInfo      string
	}
	tests := []struct {
		name string
		opts Options
		want initParams
	}{
		{
			name: "defaults",
			want: initParams{LatestProtocolVersion, `{}`, `{"name":"mcpctl","version":"dev"}`},
		},
		{
			name: "options",
			opts: Options{
				ClientInfo:      Implementation{Name: "test", Title: "Test", Version: "1.2.3"},
				ProtocolVersion: "2025-03-26",
				Capabilities:    map[string]any{"roots": map[string]any{}},
			},
			want: initParams{"2025-03-26", `{"roots":{}}`, `{"name":"test","title":"Test","version":"1.2.3"}`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, conn := startFake(t, nil)
			c, err := Connect(t.Context(), fixed(conn), tc.opts)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			t.Cleanup(func() { c.Close() })

			init := s.waitFor(t, "initialize", isMethod("initialize"))
			if init.ID == nil {
				t.Errorf("initialize was sent without an id")
			}
			var p struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Capabilities    json.RawMessage `json:"capabilities"`
				ClientInfo      json.RawMessage `json:"clientInfo"`
			}
			if err := json.Unmarshal(init.Params, &p); err != nil {
				t.Fatalf("initialize params %s: %v", init.Params, err)
			}
			got := initParams{p.ProtocolVersion, compactString(t, p.Capabilities), compactString(t, p.ClientInfo)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("initialize params mismatch (-want +got):\n%s", diff)
			}

			// notifications/initialized must come right after initialize.
			next := s.waitFor(t, "a message after initialize", func(message) bool { return true })
			if diff := cmp.Diff(message{Method: "notifications/initialized"}, next); diff != "" {
				t.Errorf("message after initialize mismatch (-want +got):\n%s", diff)
			}

			if got := c.ProtocolVersion(); got != LatestProtocolVersion {
				t.Errorf("ProtocolVersion() = %q, want %q", got, LatestProtocolVersion)
			}
			res := c.InitializeResult()
			if res.ServerInfo.Name != "fake" || res.Instructions != "be nice" {
				t.Errorf("InitializeResult() = %+v, want serverInfo.name fake and instructions", res)
			}
			for capName, want := range map[string]bool{"tools": true, "logging": true, "prompts": false} {
				if got := c.HasCapability(capName); got != want {
					t.Errorf("HasCapability(%q) = %v, want %v", capName, got, want)
				}
			}
		})
	}
}

func TestConnectProtocolVersions(t *testing.T) {
	tests := []struct {
		answer  string
		wantErr error // nil, or a value of the wanted error type
	}{
		{answer: "2024-11-05"},
		{answer: "2025-03-26"},
		{answer: "2025-06-18"},
		{answer: "2025-11-25"},
		{answer: "2099-01-01", wantErr: &VersionError{Offered: LatestProtocolVersion, Answered: "2099-01-01"}},
		{answer: "2025-11-25-draft", wantErr: &VersionError{Offered: LatestProtocolVersion, Answered: "2025-11-25-draft"}},
		{answer: "", wantErr: &ProtocolError{Method: "initialize", Msg: "result has no protocolVersion"}},
	}
	for _, tc := range tests {
		t.Run(tc.answer, func(t *testing.T) {
			s, conn := startFake(t, map[string]handler{"initialize": answerInitialize(tc.answer)})
			c, err := Connect(t.Context(), fixed(conn), Options{})
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Connect with server version %q: %v", tc.answer, err)
				}
				defer c.Close()
				if got := c.ProtocolVersion(); got != tc.answer {
					t.Errorf("ProtocolVersion() = %q, want %q", got, tc.answer)
				}
				return
			}
			if c != nil {
				t.Errorf("Connect returned a client along with error %v", err)
			}
			switch want := tc.wantErr.(type) {
			case *VersionError:
				var got *VersionError
				if !errors.As(err, &got) {
					t.Fatalf("Connect error = %v, want a *VersionError", err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("VersionError mismatch (-want +got):\n%s", diff)
				}
			case *ProtocolError:
				var got *ProtocolError
				if !errors.As(err, &got) {
					t.Fatalf("Connect error = %v, want a *ProtocolError", err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("ProtocolError mismatch (-want +got):\n%s", diff)
				}
			}
			// A rejected server gets no notifications/initialized, and the
			// connection is closed.
			if diff := cmp.Diff([]string{"initialize"}, methods(s.received(t))); diff != "" {
				t.Errorf("messages sent mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallToolErrorAnswer(t *testing.T) {
	tests := []struct {
		name    string
		errObj  string
		wantRPC *RPCError
		wantMsg string // for a non-RPC error: substring of the message
	}{
		{
			name:    "with data",
			errObj:  `{"code":-32602,"message":"unknown tool: nope","data":{"tool":"nope","hint":["a","b"]}}`,
			wantRPC: &RPCError{Code: -32602, Message: "unknown tool: nope", Data: raw(`{"tool":"nope","hint":["a","b"]}`)},
		},
		{
			name:    "without data",
			errObj:  `{"code":-32603,"message":"internal error"}`,
			wantRPC: &RPCError{Code: -32603, Message: "internal error"},
		},
		{
			name:    "not an error object",
			errObj:  `"it broke"`,
			wantMsg: "error member is not a JSON-RPC error object",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, conn := startFake(t, map[string]handler{
				"tools/call": func(s *fakeServer, m message) { s.replyError(m, tc.errObj) },
			})
			c := newClient(t, conn, Options{})
			res, err := c.CallTool(t.Context(), "nope", nil, CallOptions{})
			if res != nil {
				t.Errorf("CallTool returned a result along with error %v", err)
			}
			if tc.wantRPC == nil {
				var pe *ProtocolError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("CallTool error = %v, want a *ProtocolError containing %q", err, tc.wantMsg)
				}
				return
			}
			var got *RPCError
			if !errors.As(err, &got) {
				t.Fatalf("CallTool error = %v, want an *RPCError", err)
			}
			if diff := cmp.Diff(tc.wantRPC, got); diff != "" {
				t.Errorf("RPCError mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAbandonedRequestSendsCancelled(t *testing.T) {
	tests := []struct {
		name       string
		timeout    time.Duration
		cancelCtx  bool // cancel the caller's context once the server has the request
		checkError func(t *testing.T, err error)
	}{
		{
			name: "timeout",
			// The pings before the call are bound by it too: long enough
			// for them on a loaded machine under the race detector (50 ms
			// was not); the call waits for it in full.
			timeout: 500 * time.Millisecond,
			checkError: func(t *testing.T, err error) {
				var got *TimeoutError
				if !errors.As(err, &got) {
					t.Fatalf("CallTool error = %v, want a *TimeoutError", err)
				}
				if diff := cmp.Diff(&TimeoutError{Method: "tools/call", After: 500 * time.Millisecond, Cancelled: true}, got); diff != "" {
					t.Errorf("TimeoutError mismatch (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:      "context cancelled",
			cancelCtx: true,
			checkError: func(t *testing.T, err error) {
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("CallTool error = %v, want one wrapping context.Canceled", err)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s, conn := startFake(t, map[string]handler{
				"ping": func(s *fakeServer, m message) { s.reply(m, `{}`) },
				"tools/call": func(*fakeServer, message) {
					if tc.cancelCtx {
						cancel()
					}
				},
			})
			c := newClient(t, conn, Options{Timeout: tc.timeout})
			// Two requests first, so the abandoned one's id is not 1.
			for range 2 {
				if err := c.Ping(ctx); err != nil {
					t.Fatal(err)
				}
			}
			_, err := c.CallTool(ctx, "slow", nil, CallOptions{})
			tc.checkError(t, err)

			req := s.waitFor(t, "tools/call", isMethod("tools/call"))
			cancelled := s.waitFor(t, "notifications/cancelled", isMethod("notifications/cancelled"))
			if cancelled.ID != nil {
				t.Errorf("notifications/cancelled has an id: %s", cancelled.ID)
			}
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
				Reason    string          `json:"reason"`
			}
			if err := json.Unmarshal(cancelled.Params, &p); err != nil {
				t.Fatalf("notifications/cancelled params %s: %v", cancelled.Params, err)
			}
			if string(p.RequestID) != string(req.ID) {
				t.Errorf("notifications/cancelled requestId = %s, want %s (the tools/call id)", p.RequestID, req.ID)
			}
			if p.Reason == "" {
				t.Errorf("notifications/cancelled has no reason")
			}
		})
	}
}

func TestInitializeAbandonedSendsNoCancelled(t *testing.T) {
	tests := []struct {
		name       string
		timeout    time.Duration
		cancelCtx  bool
		checkError func(t *testing.T, err error)
	}{
		{
			name:    "timeout",
			timeout: 50 * time.Millisecond,
			checkError: func(t *testing.T, err error) {
				var got *TimeoutError
				if !errors.As(err, &got) || got.Method != "initialize" {
					t.Fatalf("Connect error = %v, want a *TimeoutError for initialize", err)
				}
			},
		},
		{
			name:      "context cancelled",
			cancelCtx: true,
			checkError: func(t *testing.T, err error) {
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Connect error = %v, want one wrapping context.Canceled", err)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s, conn := startFake(t, map[string]handler{
				"initialize": func(*fakeServer, message) {
					if tc.cancelCtx {
						cancel()
					}
				},
			})
			_, err := Connect(ctx, fixed(conn), Options{Timeout: tc.timeout})
			tc.checkError(t, err)
			// Connect closed the connection, so everything it sent is in.
			if diff := cmp.Diff([]string{"initialize"}, methods(s.received(t))); diff != "" {
				t.Errorf("messages sent mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServerPing(t *testing.T) {
	s, conn := startFake(t, nil)
	newClient(t, conn, Options{})
	for _, id := range []string{`"abc"`, `"7"`, `""`, `"with \"quotes\" and \\"`, `7`, `0`, `-3`, `9007199254740993`} {
		t.Run(id, func(t *testing.T) {
			s.write(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
			got := s.waitFor(t, "the answer to ping "+id, isResponseTo(id))
			want := message{ID: raw(id), Result: raw(`{}`)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("answer to ping mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServerRequests(t *testing.T) {
	var rootsParams json.RawMessage // written by the handler, read after its answer arrives
	handlers := map[string]RequestHandler{
		"roots/list": func(_ context.Context, params json.RawMessage) (any, error) {
			rootsParams = append(json.RawMessage(nil), params...)
			return map[string]any{"roots": []map[string]string{{"uri": "file:///tmp", "name": "tmp"}}}, nil
		},
		"elicitation/create": func(context.Context, json.RawMessage) (any, error) {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "no form", Data: raw(`{"why":"test"}`)}
		},
		"sampling/createMessage": func(context.Context, json.RawMessage) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", errors.New("boom"))
		},
		"x/nothing": func(context.Context, json.RawMessage) (any, error) { return nil, nil },
	}
	tests := []struct {
		method string
		want   message // the answer, without its id
	}{
		{
			method: "roots/list",
			want:   message{Result: raw(`{"roots":[{"name":"tmp","uri":"file:///tmp"}]}`)},
		},
		{
			method: "elicitation/create",
			want:   message{Error: &RPCError{Code: CodeInvalidParams, Message: "no form", Data: raw(`{"why":"test"}`)}},
		},
		{
			method: "sampling/createMessage",
			want:   message{Error: &RPCError{Code: CodeInternalError, Message: "wrapped: boom"}},
		},
		{
			method: "x/nothing",
			want:   message{Result: raw(`{}`)},
		},
		{
			method: "x/unknown",
			want:   message{Error: &RPCError{Code: CodeMethodNotFound, Message: "mcpctl does not handle x/unknown"}},
		},
		{
			method: "ping", // ping is answered even when Handlers are set
			want:   message{Result: raw(`{}`)},
		},
	}
	s, conn := startFake(t, nil)
	newClient(t, conn, Options{Handlers: handlers})
	for i, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			id := fmt.Sprint(100 + i)
			s.write(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + tc.method + `","params":{"k":[1,2]}}`)
			got := s.waitFor(t, "the answer to "+tc.method, isResponseTo(id))
			tc.want.ID = raw(id)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if got, want := string(rootsParams), `{"k":[1,2]}`; got != want {
		t.Errorf("roots/list handler got params %s, want %s", got, want)
	}
}

func TestNotificationsReachOnNotification(t *testing.T) {
	type note struct{ Method, Params string }
	notes := make(chan note, 10)
	s, conn := startFake(t, nil)
	newClient(t, conn, Options{OnNotification: func(n Notification) {
		notes <- note{n.Method, string(n.Params)}
	}})
	want := []note{
		{"notifications/message", `{"level":"info","data":"hello {\"x\"}"}`},
		{"notifications/tools/list_changed", ""},
		{"notifications/progress", `{"progressToken":"t1","progress":1,"total":2}`},
	}
	for _, n := range want {
		msg := `{"jsonrpc":"2.0","method":"` + n.Method + `"`
		if n.Params != "" {
			msg += `,"params":` + n.Params
		}
		s.write(msg + "}")
	}
	var got []note
	for range want {
		select {
		case n := <-notes:
			got = append(got, n)
		case <-time.After(failAfter):
			t.Fatalf("got %d notifications within %s, want %d", len(got), failAfter, len(want))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications mismatch (-want +got):\n%s", diff)
	}
}

func TestListToolsPagination(t *testing.T) {
	tests := []struct {
		name        string
		pages       map[string]string // cursor ("" for the first page) → result
		wantNames   []string
		wantParams  []string // params of each tools/list request
		wantErrText []string // substrings of a *ProtocolError; nil means success
	}{
		{
			name: "three pages",
			pages: map[string]string{
				"":   `{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"c2"}`,
				"c2": `{"tools":[{"name":"c"}],"nextCursor":"c3"}`,
				"c3": `{"tools":[{"name":"d"},{"name":"e"}]}`,
			},
			wantNames:  []string{"a", "b", "c", "d", "e"},
			wantParams: []string{"", `{"cursor":"c2"}`, `{"cursor":"c3"}`},
		},
		{
			name: "empty page in the middle",
			pages: map[string]string{
				"":  `{"tools":[{"name":"a"}],"nextCursor":"x"}`,
				"x": `{"tools":[],"nextCursor":"y"}`,
				"y": `{"tools":[{"name":"b"}]}`,
			},
			wantNames:  []string{"a", "b"},
			wantParams: []string{"", `{"cursor":"x"}`, `{"cursor":"y"}`},
		},
		{
			name:       "empty nextCursor ends",
			pages:      map[string]string{"": `{"tools":[{"name":"a"}],"nextCursor":""}`},
			wantNames:  []string{"a"},
			wantParams: []string{""},
		},
		{
			name:       "null nextCursor ends",
			pages:      map[string]string{"": `{"tools":[{"name":"a"}],"nextCursor":null}`},
			wantNames:  []string{"a"},
			wantParams: []string{""},
		},
		{
			name: "repeated cursor",
			pages: map[string]string{
				"":   `{"tools":[{"name":"a"}],"nextCursor":"c2"}`,
				"c2": `{"tools":[{"name":"b"}],"nextCursor":"c3"}`,
				"c3": `{"tools":[{"name":"c"}],"nextCursor":"c2"}`,
			},
			wantNames:   []string{"a", "b", "c"},
			wantParams:  []string{"", `{"cursor":"c2"}`, `{"cursor":"c3"}`},
			wantErrText: []string{"tools/list", `"c2"`},
		},
		{
			name: "server echoes the cursor",
			pages: map[string]string{
				"":     `{"tools":[{"name":"a"}],"nextCursor":"same"}`,
				"same": `{"tools":[{"name":"a"}],"nextCursor":"same"}`,
			},
			wantNames:   []string{"a", "a"},
			wantParams:  []string{"", `{"cursor":"same"}`},
			wantErrText: []string{`"same"`},
		},
		{
			name:        "page without tools",
			pages:       map[string]string{"": `{"nextCursor":"x"}`},
			wantParams:  []string{""},
			wantErrText: []string{`no "tools" array`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, conn := startFake(t, map[string]handler{
				"tools/list": func(s *fakeServer, m message) {
					var p struct{ Cursor string }
					if m.Params != nil {
						if err := json.Unmarshal(m.Params, &p); err != nil {
							s.t.Errorf("tools/list params %s: %v", m.Params, err)
						}
					}
					page, ok := tc.pages[p.Cursor]
					if !ok {
						s.replyError(m, `{"code":-32602,"message":"invalid cursor"}`)
						return
					}
					s.reply(m, page)
				},
			})
			c := newClient(t, conn, Options{})
			tools, err := c.ListTools(t.Context())
			if tc.wantErrText == nil && err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			if tc.wantErrText != nil {
				var pe *ProtocolError
				if !errors.As(err, &pe) {
					t.Fatalf("ListTools error = %v, want a *ProtocolError", err)
				}
				for _, want := range tc.wantErrText {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("ListTools error %q does not mention %s", err, want)
					}
				}
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			if diff := cmp.Diff(tc.wantNames, names); diff != "" {
				t.Errorf("tool names mismatch (-want +got):\n%s", diff)
			}
			// Every request was answered, so all of them are recorded.
			var params []string
			for _, m := range s.drain() {
				if m.Method == "tools/list" {
					params = append(params, compactString(t, m.Params))
				}
			}
			if diff := cmp.Diff(tc.wantParams, params); diff != "" {
				t.Errorf("tools/list params mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConcurrentCallsAnsweredOutOfOrder(t *testing.T) {
	const n = 4
	var held []message // server goroutine only
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			held = append(held, m)
			if len(held) < n {
				return
			}
			for i := len(held) - 1; i >= 0; i-- { // newest first
				var p struct{ Name string }
				if err := json.Unmarshal(held[i].Params, &p); err != nil {
					s.t.Errorf("tools/call params %s: %v", held[i].Params, err)
				}
				s.reply(held[i], `{"content":[{"type":"text","text":"`+p.Name+`"}]}`)
			}
		},
	})
	c := newClient(t, conn, Options{})
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := c.CallTool(t.Context(), fmt.Sprint("tool", i), nil, CallOptions{})
			if err != nil {
				t.Errorf("CallTool tool%d: %v", i, err)
				return
			}
			got[i] = res.Content[0].Text
		})
	}
	wg.Wait()
	want := []string{"tool0", "tool1", "tool2", "tool3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers mismatch (-want +got):\n%s", diff)
	}
}

func TestLateResponseIgnored(t *testing.T) {
	var slowID json.RawMessage // server goroutine only
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			var p struct{ Name string }
			if err := json.Unmarshal(m.Params, &p); err != nil {
				s.t.Errorf("tools/call params %s: %v", m.Params, err)
			}
			if p.Name == "slow" {
				slowID = m.ID // answered only once the client gives up
				return
			}
			s.reply(m, `{"content":[{"type":"text","text":"fast"}]}`)
		},
		"notifications/cancelled": func(s *fakeServer, m message) {
			s.reply(message{ID: slowID}, `{"content":[{"type":"text","text":"late"}]}`)
		},
	})
	var (
		warnMu   sync.Mutex
		warnings []string
	)
	c := newClient(t, conn, Options{
		// Long enough for the second call never to time out on a loaded
		// machine; the first one waits for it in full.
		Timeout: 200 * time.Millisecond,
		OnProtocolWarning: func(msg string) {
			warnMu.Lock()
			defer warnMu.Unlock()
			warnings = append(warnings, msg)
		},
	})
	var te *TimeoutError
	if _, err := c.CallTool(t.Context(), "slow", nil, CallOptions{}); !errors.As(err, &te) {
		t.Fatalf("CallTool slow error = %v, want a *TimeoutError", err)
	}
	// The late answer is written before the answer to this call, so it has
	// been dispatched by the time this call returns.
	res, err := c.CallTool(t.Context(), "fast", nil, CallOptions{})
	if err != nil {
		t.Fatalf("CallTool fast: %v", err)
	}
	if got := res.Content[0].Text; got != "fast" {
		t.Errorf("CallTool fast got %q, want %q", got, "fast")
	}
	warnMu.Lock()
	defer warnMu.Unlock()
	if len(warnings) > 0 {
		t.Errorf("late answer caused warnings: %q", warnings)
	}
}

func TestConnectionClosedMidRequest(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) { s.conn.Close() },
	})
	c := newClient(t, conn, Options{})
	_, err := c.CallTool(t.Context(), "any", nil, CallOptions{})
	if !errors.Is(err, io.EOF) {
		t.Fatalf("CallTool error = %v, want one wrapping io.EOF", err)
	}
	select {
	case <-c.Done():
	case <-time.After(failAfter):
		t.Fatal("Done is not closed after the server closed the connection")
	}
	// Once the connection is known to be gone, calls fail at once.
	if err := c.Ping(t.Context()); !errors.Is(err, io.EOF) {
		t.Errorf("Ping after the connection closed: %v, want an error wrapping io.EOF", err)
	}
}

func TestToolsKeepUnknownFields(t *testing.T) {
	tools := []string{
		`{"name":"minimal","inputSchema":{"type":"object"}}`,
		`{"name":"vendor","inputSchema":{"type":"object"},"x-vendor":{"nested":[1,"two",null,{"deep":true}]},"icons":[{"src":"https://example.com/i.png","sizes":["48x48"]}]}`,
		`{"name":"full","title":"Full","description":"all known fields","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"title":"Annotated","readOnlyHint":true,"futureHint":1},"_meta":{"k":"v"},"execution":{"taskSupport":"optional"}}`,
	}
	_, conn := startFake(t, map[string]handler{
		"tools/list": func(s *fakeServer, m message) {
			s.reply(m, `{"tools":[`+strings.Join(tools, ",")+`]}`)
		},
	})
	c := newClient(t, conn, Options{})
	got, err := c.ListTools(t.Context())
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if len(got) != len(tools) {
		t.Fatalf("ListTools returned %d tools, want %d", len(got), len(tools))
	}
	for i, want := range tools {
		data, err := json.Marshal(got[i])
		if err != nil {
			t.Fatalf("json.Marshal(%s): %v", got[i].Name, err)
		}
		if string(data) != want {
			t.Errorf("json.Marshal(tool %d) =\n%s\nwant the server's bytes\n%s", i, data, want)
		}
	}
	if full := got[2]; full.Annotations == nil || full.Annotations.ReadOnlyHint == nil || !*full.Annotations.ReadOnlyHint || full.DisplayName() != "Full" {
		t.Errorf("known fields of %q were not decoded: %+v", full.Name, full)
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[" + strings.Join(tools, ",") + "]"; string(data) != want {
		t.Errorf("json.Marshal of the list =\n%s\nwant\n%s", data, want)
	}
}

func TestCallToolContentTypes(t *testing.T) {
	tests := []struct {
		name    string
		content string // one content block as the server sends it
		want    Content
	}{
		{
			name:    "text",
			content: `{"type":"text","text":"hello \"world\"\n"}`,
			want:    Content{Type: "text", Text: "hello \"world\"\n", TextRaw: raw(`"hello \"world\"\n"`)},
		},
		{
			name:    "image",
			content: `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`,
			want:    Content{Type: "image", Data: "iVBORw0KGgo=", MIMEType: "image/png"},
		},
		{
			name:    "audio",
			content: `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`,
			want:    Content{Type: "audio", Data: "UklGRg==", MIMEType: "audio/wav"},
		},
		{
			name:    "resource_link",
			content: `{"type":"resource_link","uri":"demo://readme","name":"readme","title":"Demo README","description":"What it offers.","mimeType":"text/markdown"}`,
			want:    Content{Type: "resource_link", URI: "demo://readme", Name: "readme", Title: "Demo README", Description: "What it offers.", MIMEType: "text/markdown"},
		},
		{
			name:    "embedded text resource",
			content: `{"type":"resource","resource":{"uri":"demo://readme","mimeType":"text/markdown","text":"# Demo"}}`,
			want:    Content{Type: "resource", Resource: &ResourceContents{URI: "demo://readme", MIMEType: "text/markdown", Text: new("# Demo")}},
		},
		{
			name:    "embedded blob resource",
			content: `{"type":"resource","resource":{"uri":"demo://logo.png","mimeType":"image/png","blob":"iVBORw0KGgo="}}`,
			want:    Content{Type: "resource", Resource: &ResourceContents{URI: "demo://logo.png", MIMEType: "image/png", Blob: new("iVBORw0KGgo=")}},
		},
		{
			name:    "unknown type",
			content: `{"type":"hologram","frames":[1,2],"text":"kept"}`,
			want:    Content{Type: "hologram", Text: "kept", Raw: raw(`{"type":"hologram","frames":[1,2],"text":"kept"}`)},
		},
	}
	results := map[string]string{}
	for _, tc := range tests {
		results[tc.name] = `{"content":[` + tc.content + `],"structuredContent":{"sum":5},"isError":true,"_meta":{"m":1}}`
	}
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			var p struct{ Name string }
			if err := json.Unmarshal(m.Params, &p); err != nil {
				s.t.Errorf("tools/call params %s: %v", m.Params, err)
			}
			s.reply(m, results[p.Name])
		},
	})
	c := newClient(t, conn, Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.CallTool(t.Context(), tc.name, nil, CallOptions{})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			want := &CallToolResult{
				Content:           []Content{tc.want},
				StructuredContent: raw(`{"sum":5}`),
				IsError:           true,
				Meta:              raw(`{"m":1}`),
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(CallToolResult{}, "Raw")); diff != "" {
				t.Errorf("CallToolResult mismatch (-want +got):\n%s", diff)
			}
			if string(got.Raw) != results[tc.name] {
				t.Errorf("Raw = %s, want the server's result %s", got.Raw, results[tc.name])
			}
			// Known types are re-encoded from their fields, which must give
			// back what the server sent (member order aside).
			data, err := json.Marshal(got.Content[0])
			if err != nil {
				t.Fatal(err)
			}
			var gotJSON, wantJSON any
			if err := json.Unmarshal(data, &gotJSON); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.content), &wantJSON); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
				t.Errorf("json.Marshal(content) = %s, mismatch with the server's block (-want +got):\n%s", data, diff)
			}
		})
	}
}

// TestDuplicateResponse checks that a server answering one request several
// times cannot stall the client: the extra answers must be dropped.
func TestDuplicateResponse(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			for range 3 {
				s.reply(m, `{"content":[]}`)
			}
			s.write(`{"jsonrpc":"2.0","method":"notifications/after"}`)
		},
	})
	// The caller is held in Write until the notification that follows the
	// duplicates has been dispatched, so the read loop meets the duplicates
	// while the first answer is still waiting to be picked up.
	release := make(chan struct{})
	gated := &gatedConn{Connection: conn, method: "tools/call", release: release}
	after := make(chan struct{})
	c := New(gated, Options{OnNotification: func(n Notification) {
		if n.Method == "notifications/after" {
			close(after)
		}
	}})
	called := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "dup", nil, CallOptions{})
		called <- err
	}()
	stuck := false
	select {
	case <-after:
	case <-time.After(failAfter):
		stuck = true
		t.Errorf("the read loop did not reach the message after a duplicated response within %s: it is blocked delivering the duplicate", failAfter)
	}
	close(release)
	if err := <-called; err != nil {
		t.Errorf("CallTool: %v", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(failAfter):
		// The blocked read loop never closes Done, so Close waits forever;
		// leave it behind rather than hang the test binary.
		t.Errorf("Close did not return within %s (read loop blocked: %v)", failAfter, stuck)
	}
}

// gatedConn holds the Write of the first request for method until release
// is closed (the request itself goes out at once).
type gatedConn struct {
	transport.Connection
	method  string
	release chan struct{}
	once    sync.Once
}

func (g *gatedConn) Write(ctx context.Context, msg json.RawMessage, opts transport.WriteOptions) error {
	err := g.Connection.Write(ctx, msg, opts)
	if strings.Contains(string(msg), `"method":"`+g.method+`"`) {
		g.once.Do(func() { <-g.release })
	}
	return err
}

// recordingConn records the method of every message the client writes.
type recordingConn struct {
	transport.Connection
	mu      sync.Mutex
	methods []string
}

func (r *recordingConn) Write(ctx context.Context, msg json.RawMessage, opts transport.WriteOptions) error {
	var m message
	if err := json.Unmarshal(msg, &m); err == nil && m.Method != "" {
		r.mu.Lock()
		r.methods = append(r.methods, m.Method)
		r.mu.Unlock()
	}
	return r.Connection.Write(ctx, msg, opts)
}

func (r *recordingConn) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.methods...)
}

// connectDemo connects a client to the demo server over a pipe. wrap, if not
// nil, wraps the client's end.
func connectDemo(tb testing.TB, wrap func(transport.Connection) transport.Connection) *Client {
	tb.Helper()
	clientEnd, serverEnd := transport.NewPipe()
	served := make(chan error, 1)
	go func() { served <- demo.Serve(context.Background(), serverEnd) }()
	tb.Cleanup(func() {
		clientEnd.Close()
		if err := <-served; err != nil {
			tb.Errorf("demo.Serve: %v", err)
		}
	})
	if wrap != nil {
		clientEnd = wrap(clientEnd)
	}
	c, err := Connect(tb.Context(), fixed(clientEnd), Options{ClientInfo: Implementation{Name: "client-test", Version: "0"}})
	if err != nil {
		tb.Fatalf("Connect to the demo server: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func TestDemoServer(t *testing.T) {
	rec := &recordingConn{}
	c := connectDemo(t, func(conn transport.Connection) transport.Connection {
		rec.Connection = conn
		return rec
	})
	ctx := t.Context()
	if got, want := c.InitializeResult().ServerInfo.Name, demo.Name; got != want {
		t.Errorf("serverInfo.name = %q, want %q", got, want)
	}

	t.Run("list tools", func(t *testing.T) {
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatalf("ListTools: %v", err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		want := []string{"add", "audio", "count_words", "echo", "embedded", "fail", "image", "random_number", "resource_link", "sleep", "upper", "weather"}
		if diff := cmp.Diff(want, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("tool names mismatch (-want +got):\n%s", diff)
		}
		var pages int
		for _, m := range rec.sent() {
			if m == "tools/list" {
				pages++
			}
		}
		if pages != 2 {
			t.Errorf("ListTools sent %d tools/list requests, want 2 (page size %d, %d tools)", pages, demo.PageSize, len(want))
		}
	})

	t.Run("call add", func(t *testing.T) {
		res, err := c.CallTool(ctx, "add", map[string]any{"a": 2, "b": 3}, CallOptions{})
		if err != nil {
			t.Fatalf("CallTool add: %v", err)
		}
		if res.IsError {
			t.Errorf("add returned a tool error: %s", res.Raw)
		}
		if got := compactString(t, res.StructuredContent); got != `{"sum":5}` {
			t.Errorf("structuredContent = %s, want {\"sum\":5}", got)
		}
		if diff := cmp.Diff([]Content{{Type: "text", Text: "5", TextRaw: raw(`"5"`)}}, res.Content); diff != "" {
			t.Errorf("content mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("read readme", func(t *testing.T) {
		res, err := c.ReadResource(ctx, "demo://readme")
		if err != nil {
			t.Fatalf("ReadResource: %v", err)
		}
		if len(res.Contents) != 1 {
			t.Fatalf("ReadResource returned %d contents, want 1: %s", len(res.Contents), res.Raw)
		}
		got := res.Contents[0]
		if got.URI != "demo://readme" || got.MIMEType != "text/markdown" || got.Text == nil || !strings.HasPrefix(*got.Text, "# mcpctl demo server") {
			t.Errorf("readme contents = %s, want demo://readme as Markdown text", res.Raw)
		}
	})

	t.Run("get prompt", func(t *testing.T) {
		res, err := c.GetPrompt(ctx, "review_code", map[string]string{"code": "x := 1", "language": "Go"})
		if err != nil {
			t.Fatalf("GetPrompt: %v", err)
		}
		if res.Description != "Code review of Go code" {
			t.Errorf("description = %q, want %q", res.Description, "Code review of Go code")
		}
		var roles []string
		for _, m := range res.Messages {
			roles = append(roles, m.Role)
		}
		if diff := cmp.Diff([]string{"user", "assistant"}, roles); diff != "" {
			t.Errorf("roles mismatch (-want +got):\n%s", diff)
		}
		if len(res.Messages) > 0 && !strings.Contains(res.Messages[0].Content.Text, "```go\nx := 1\n```") {
			t.Errorf("first message does not quote the code: %q", res.Messages[0].Content.Text)
		}
	})

	t.Run("prompt error", func(t *testing.T) {
		_, err := c.GetPrompt(ctx, "review_code", nil)
		var rpcErr *RPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != CodeInvalidParams {
			t.Errorf("GetPrompt without code: %v, want an *RPCError %d", err, CodeInvalidParams)
		}
	})
}

func TestCallToolStdio(t *testing.T) {
	c := connectStdio(t)
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"message": "over stdio"}, CallOptions{})
	if err != nil {
		t.Fatalf("CallTool echo: %v", err)
	}
	if diff := cmp.Diff([]Content{{Type: "text", Text: "over stdio", TextRaw: raw(`"over stdio"`)}}, res.Content); diff != "" {
		t.Errorf("content mismatch (-want +got):\n%s", diff)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestTimeoutLeavesOutAnsweringTime: while the client answers the server's
// own request (a person filling in an elicitation form), the timeout of
// the request that caused it does not run, so a slow answer does not make
// the call fail; the server's own time still counts.
func TestTimeoutLeavesOutAnsweringTime(t *testing.T) {
	const timeout = 2 * time.Second
	calls := make(chan message, 1)
	s, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			calls <- m
			s.write(`{"jsonrpc":"2.0","id":900,"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}`)
		},
	})
	handlers := map[string]RequestHandler{
		"elicitation/create": func(context.Context, json.RawMessage) (any, error) {
			// Longer than the whole timeout: the person takes their time.
			<-time.After(timeout + timeout/2)
			return map[string]any{"action": "accept", "content": map[string]any{}}, nil
		},
	}
	c := newClient(t, conn, Options{Timeout: timeout, Handlers: handlers})
	type outcome struct {
		res *CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.CallTool(t.Context(), "ask", nil, CallOptions{})
		done <- outcome{res, err}
	}()
	call := <-calls
	s.waitFor(t, "the elicitation's answer", isResponseTo("900"))
	s.reply(call, `{"content":[{"type":"text","text":"thanks"}]}`)
	got := <-done
	if got.err != nil {
		t.Fatalf("CallTool = %v, want the result: the time spent answering the elicitation is not the server's", got.err)
	}
	if len(got.res.Content) != 1 {
		t.Errorf("CallTool result = %+v, want its one content block", got.res)
	}

	// The server's own silence still times out.
	var te *TimeoutError
	if err := c.Ping(t.Context()); !errors.As(err, &te) {
		t.Errorf("a ping the server does not answer = %v, want a *TimeoutError", err)
	}
}
