package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// mockMaxBody bounds one message the mock reads, stdio line or HTTP body.
const mockMaxBody = DefaultMaxMessageSize

// ServeStdio serves the recording on a stdio stream pair as an MCP server
// does: one JSON-RPC message a line read from r, answers written to w.
// It returns nil at the end of r, or ctx.Err() when ctx ends first (the
// read in progress is abandoned).
func (m *Mock) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				errc <- err
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			return err
		case line := <-lines:
			for _, out := range m.handleLine(bytes.TrimSpace(line)) {
				if _, err := w.Write(append(out, '\n')); err != nil {
					return fmt.Errorf("writing an answer: %w", err)
				}
			}
		}
	}
}

// handleLine answers one message, or each message of a JSON-RPC batch
// (the 2025-03-26 revision's arrays; the answers are then written one a
// line, which a client reading one message a line accepts).
func (m *Mock) handleLine(line []byte) []json.RawMessage {
	if len(line) > 0 && line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil {
			return []json.RawMessage{errorResponse(json.RawMessage("null"), codeParseError, "parse error: the line is not JSON")}
		}
		var out []json.RawMessage
		for _, msg := range batch {
			out = append(out, m.Handle(msg)...)
		}
		return out
	}
	if !json.Valid(line) {
		return []json.RawMessage{errorResponse(json.RawMessage("null"), codeParseError, "parse error: the line is not JSON")}
	}
	return m.Handle(line)
}

// ServeHTTP serves the recording as a Streamable HTTP server without
// sessions: a POSTed request is answered with application/json, or with a
// text/event-stream carrying the recorded notifications and then the
// response when there are any; a POSTed notification or response gets
// 202 Accepted. GET (a stream for server messages) and DELETE (ending a
// session) get 405, which the transport allows a server to answer.
func (m *Mock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "this mock server takes only POST", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, mockMaxBody))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	body = bytes.TrimSpace(body)
	out := m.handleLine(body)
	var responses, notes []json.RawMessage
	for _, msg := range out {
		if isResponse(msg) {
			responses = append(responses, msg)
		} else {
			notes = append(notes, msg)
		}
	}
	if len(responses) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if len(notes) == 0 && len(responses) == 1 && body[0] != '[' {
		w.Header().Set("Content-Type", "application/json")
		w.Write(responses[0])
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, msg := range append(notes, responses...) {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
	}
}

// isResponse reports whether msg is a JSON-RPC response (no method).
func isResponse(msg json.RawMessage) bool {
	var m rpcMessage
	return json.Unmarshal(msg, &m) == nil && m.Method == ""
}
