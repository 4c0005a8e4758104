package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/mcpctl/mcpctl/transport"
)

// Serve runs a new demo server (see [NewServer]) over conn until the peer
// closes the connection, which returns nil, or ctx is done, which returns
// ctx.Err(). Serve closes conn before it returns.
func Serve(ctx context.Context, conn transport.Connection) error {
	return NewServer().Serve(ctx, conn)
}

// Serve runs one session of s over conn; see the package-level [Serve].
//
// Requests are answered concurrently, each in its own goroutine, so that a
// slow tool does not hold up pings or lists and notifications/cancelled can
// reach it. A cancelled request gets no response, as the protocol asks.
// Messages that are not JSON-RPC get an error response with a null id and
// the session goes on.
func (s *Server) Serve(ctx context.Context, conn transport.Connection) error {
	ctx, cancel := context.WithCancel(ctx)
	sess := &session{server: s, conn: conn, inflight: map[string]context.CancelFunc{}}
	defer conn.Close()
	defer sess.handlers.Wait()
	defer cancel()
	for {
		data, err := conn.Read(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) || errors.Is(err, transport.ErrClosed) {
				return nil
			}
			return fmt.Errorf("demo server: reading a message: %w", err)
		}
		sess.dispatch(ctx, data)
	}
}

// session is the state of one client's connection.
type session struct {
	server *Server
	conn   transport.Connection

	writeMu sync.Mutex // transport.Connection allows one writer at a time

	handlers sync.WaitGroup

	mu          sync.Mutex
	initialized bool
	logLevel    string
	inflight    map[string]context.CancelFunc // by the request's raw id
}

// message is any JSON-RPC message the server can receive.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// dispatch handles one incoming message.
func (s *session) dispatch(ctx context.Context, data json.RawMessage) {
	var msg message
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		s.reply(ctx, nil, nil, &Error{Code: CodeInvalidRequest, Message: "JSON-RPC batches are not supported: send one message at a time"})
		return
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		s.reply(ctx, nil, nil, &Error{Code: CodeParseError, Message: fmt.Sprintf("parse error: %v", err)})
		return
	}
	hasID := len(msg.ID) > 0 && string(msg.ID) != "null"
	switch {
	case msg.JSONRPC != "2.0":
		s.reply(ctx, idOrNull(msg.ID), nil, &Error{Code: CodeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`})
	case msg.Method == "" && (msg.Result != nil || msg.Error != nil):
		// A response: the server sends no requests, so there is nothing
		// waiting for it.
	case msg.Method == "":
		s.reply(ctx, idOrNull(msg.ID), nil, &Error{Code: CodeInvalidRequest, Message: `invalid request: no "method"`})
	case !hasID:
		s.notification(msg)
	default:
		s.request(ctx, msg)
	}
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return nil
	}
	return id
}

// notification handles a notification from the client.
func (s *session) notification(msg message) {
	if msg.Method != "notifications/cancelled" {
		return // notifications/initialized and the rest need nothing
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(msg.Params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	s.mu.Lock()
	cancel := s.inflight[string(compact(p.RequestID))]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// compact returns id without insignificant white space, so that ids compare
// as JSON values.
func compact(id json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return id
	}
	return b.Bytes()
}

// request answers a request: initialize and logging/setLevel at once, since
// they change the session, the rest in a goroutine of their own.
func (s *session) request(ctx context.Context, msg message) {
	switch msg.Method {
	case "initialize":
		result, err := s.initialize(msg.Params)
		s.reply(ctx, msg.ID, result, err)
		return
	case "logging/setLevel":
		result, err := s.setLevel(msg.Params)
		s.reply(ctx, msg.ID, result, err)
		return
	}
	key := string(compact(msg.ID))
	reqCtx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if _, dup := s.inflight[key]; dup {
		s.mu.Unlock()
		cancel()
		s.reply(ctx, msg.ID, nil, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("request id %s is already in use", msg.ID)})
		return
	}
	s.inflight[key] = cancel
	s.mu.Unlock()

	s.handlers.Add(1)
	go func() {
		defer s.handlers.Done()
		defer cancel()
		if started := s.server.requestStarted; started != nil {
			started(msg.Method)
		}
		result, err := s.server.Handle(reqCtx, msg.Method, msg.Params, s.notify)
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		if done := s.server.requestDone; done != nil {
			defer done(msg.Method)
		}
		if reqCtx.Err() != nil && ctx.Err() == nil {
			return // cancelled by the client: no response
		}
		s.reply(ctx, msg.ID, result, err)
	}()
}

// initialize answers the initialize request: the protocol version is the
// client's if the server speaks it, else the newest the server speaks.
func (s *session) initialize(params json.RawMessage) (any, error) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, invalidParams("initialize: protocolVersion is missing")
	}
	s.mu.Lock()
	again := s.initialized
	s.initialized = true
	s.mu.Unlock()
	if again {
		return nil, &Error{Code: CodeInvalidRequest, Message: "initialize was already received in this session"}
	}
	versions := ProtocolVersions()
	version := versions[0]
	if slices.Contains(versions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	type listChanged struct {
		ListChanged bool `json:"listChanged"`
	}
	return map[string]any{
		"protocolVersion": version,
		"capabilities": map[string]any{
			"completions": struct{}{},
			"logging":     struct{}{},
			"prompts":     listChanged{true},
			"resources":   listChanged{true},
			"tools":       listChanged{true},
		},
		"serverInfo":   map[string]string{"name": Name, "title": Title, "version": Version},
		"instructions": Instructions,
	}, nil
}

// setLevel answers logging/setLevel. The demo sends no log messages; it
// accepts the levels the protocol names and remembers the choice.
func (s *session) setLevel(params json.RawMessage) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	levels := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	if !slices.Contains(levels, p.Level) {
		return nil, invalidParams("logging/setLevel: unknown level %q (want one of %v)", p.Level, levels)
	}
	s.mu.Lock()
	s.logLevel = p.Level
	s.mu.Unlock()
	return struct{}{}, nil
}

// notify sends a notification to the client.
func (s *session) notify(ctx context.Context, method string, params any) error {
	data, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", method, params})
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	return s.write(ctx, data)
}

// reply sends the response to the request with the given id: result, or
// err as a JSON-RPC error. A nil id is sent as null.
func (s *session) reply(ctx context.Context, id json.RawMessage, result any, err error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *Error          `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id}
	if err != nil {
		var rpcErr *Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		resp.Error = rpcErr
	} else {
		resp.Result = result
	}
	data, mErr := json.Marshal(resp)
	if mErr != nil {
		data, _ = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *Error          `json:"error"`
		}{"2.0", id, &Error{Code: CodeInternalError, Message: "encoding the result: " + mErr.Error()}})
	}
	// A failed write means the client has gone; the read loop will see it.
	_ = s.write(ctx, data)
}

func (s *session) write(ctx context.Context, data []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.conn.Write(ctx, data, transport.WriteOptions{})
}
