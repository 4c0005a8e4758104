// Package proxy puts mcpctl in the data path between an MCP host (an
// editor, an agent framework, the MCP Inspector) and a server. It relays
// every frame exactly as it was written, in both directions, and hands a
// copy of each to observers (the session log, the protocol checks, a live
// watcher) through a [Tap]: a bounded queue on a goroutine of its own, so
// that what observes the traffic can never slow it or break it.
//
// [Stdio] is the stdio shim a host starts in place of the server; [HTTP]
// is the reverse proxy a host reaches over HTTP in place of the server's
// URL.
package proxy

import (
	"encoding/json"
	"time"
)

// Direction says which way a frame went through the proxy.
type Direction uint8

const (
	// HostToServer is a frame the host wrote for the server.
	HostToServer Direction = iota + 1
	// ServerToHost is a frame the server wrote for the host.
	ServerToHost
)

// String names the direction as session logs and watchers show it.
func (d Direction) String() string {
	switch d {
	case HostToServer:
		return "host→server"
	case ServerToHost:
		return "server→host"
	}
	return "unknown"
}

// Frame is one message as it crossed the proxy: over stdio, one line
// without its line ending; over HTTP, a request or JSON response body, or
// the data of one server-sent event.
type Frame struct {
	// Time is when the frame's last byte was read, just before it was
	// passed on.
	Time time.Time
	// Dir is the way it went.
	Dir Direction
	// Data is the frame's bytes, or their first [Tap] limit bytes when the
	// frame was larger (then Size says how large). The observer owns it.
	Data []byte
	// Size is the frame's full length in bytes.
	Size int64
	// Status is the HTTP status of the response that carried a frame from
	// the server; zero over stdio and for frames from the host.
	Status int
	// Session is the HTTP session (Mcp-Session-Id) the frame belongs to:
	// the request's, or for a frame from the server the answer's when it
	// names one. "" over stdio and for sessionless requests. Several hosts
	// may share one proxy, each numbering its ids from the start, so ids
	// are unique only within a session.
	Session string
}

// Truncated reports whether Data holds only the start of the frame.
func (f Frame) Truncated() bool { return int64(len(f.Data)) < f.Size }

// Event is something that happened to the session besides a frame: the
// server started or exited, a side closed its stream, frames were dropped
// by a full [Tap].
type Event struct {
	// Time is when it happened.
	Time time.Time
	// Name names the event: "start", "host-closed", "server-exit",
	// "host-gone", "dropped", "error".
	Name string
	// Detail is its payload, any value encoding/json can marshal.
	Detail any
}

// Observer sees a session's frames and events, in the order they were
// relayed, on the [Tap]'s goroutine: one call at a time, never on the
// relay's path. It may take its time; frames that arrive meanwhile wait in
// the tap's queue or, when that is full, are dropped and counted.
type Observer interface {
	Frame(Frame)
	Event(Event)
}

// Flusher is an [Observer] that buffers what it writes: the [Tap] calls
// Flush [DefaultFlushDelay] after handing it the first frame or event it
// has not flushed, and at Close, so that a log is written in few system
// calls and what it holds reaches the disk within that delay.
type Flusher interface {
	Flush()
}

// Observers is an [Observer] that hands every frame and event to each of
// its members in turn.
type Observers []Observer

// Frame passes f to every member.
func (o Observers) Frame(f Frame) {
	for _, ob := range o {
		ob.Frame(f)
	}
}

// Event passes e to every member.
func (o Observers) Event(e Event) {
	for _, ob := range o {
		ob.Event(e)
	}
}

// Flush flushes the members that are [Flusher]s.
func (o Observers) Flush() {
	for _, ob := range o {
		if f, ok := ob.(Flusher); ok {
			f.Flush()
		}
	}
}

// envelope is the part of a JSON-RPC message observers look at.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}
