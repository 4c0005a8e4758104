// Package export turns a captured session (a proxy session log, a trace
// or a recording) into files other tools read: JSON of the correlated
// calls, HAR 1.2 for HTTP tooling, OTLP/JSON traces for an OpenTelemetry
// collector, and one self-contained HTML page to open in a browser.
//
// It is a package of its own rather than part of proxy: proxy is the data
// path and the checks that run beside it; export only reads what a session
// left behind, through those same checks ([proxy.Checks]), and writes
// formats nobody in the data path needs.
package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/mcpctl/mcpctl/proxy"
)

// Session is a captured session as the exports see it: what the checks
// found, and each call with the messages it was made of.
type Session struct {
	// Name names the session in the exports: a session id or a file name.
	Name string `json:"session"`
	// Version, ClientInfo and ServerInfo are those the checks learned.
	Version    string          `json:"protocol_version,omitempty"`
	ClientInfo json.RawMessage `json:"client_info,omitempty"`
	ServerInfo json.RawMessage `json:"server_info,omitempty"`
	Frames     int             `json:"frames"`
	Calls      []Call          `json:"calls"`
	Flags      []proxy.Flag    `json:"flags"`
}

// Call is one correlated request and its answer, with their messages as
// the session log holds them (already redacted by the proxy).
type Call struct {
	proxy.Call
	// End is when the answer passed; zero while pending.
	End time.Time `json:"end,omitzero"`
	// Request and Response are the JSON-RPC messages; Response is nil
	// while the call is pending.
	Request  json.RawMessage `json:"request,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// Flags are the flags raised about this call (by its id and method).
	Flags []proxy.Flag `json:"flags,omitempty"`
}

// collector is the observer that reads a log: the checks, and the
// messages of requests and responses kept by direction, HTTP session and
// id so that each call can be given its own (hosts sharing a proxy reuse
// each other's ids, each in its own session). The live stream ([Stream])
// uses it too, with live set: then it keeps only the requests still
// unanswered, which the stream takes as their answers pass.
type collector struct {
	checks    *proxy.Checks
	live      bool
	requests  map[string][]json.RawMessage // request direction + session + id → requests, in order
	responses map[string][]json.RawMessage // request direction + session + id → answers, in order
	open      map[string]int               // request direction + session + id → requests not yet answered
}

func (c *collector) Frame(f proxy.Frame) {
	c.checks.Frame(f)
	if f.Truncated() {
		return
	}
	for m := range proxy.Messages(f.Data) {
		c.message(f.Dir, f.Session, m)
	}
}

func (c *collector) Event(e proxy.Event) { c.checks.Event(e) }

// message files one JSON-RPC message under its call's key.
func (c *collector) message(dir proxy.Direction, session string, data json.RawMessage) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &m) != nil {
		return
	}
	if len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	id := string(canonical(m.ID))
	if c.live && m.Method == "" {
		return
	}
	msg := json.RawMessage(bytes.Clone(data))
	if m.Method != "" {
		key := callKey(dir.String(), session, id)
		c.requests[key] = append(c.requests[key], msg)
		if !c.live {
			c.open[key]++
		}
		return
	}
	// An answer goes the other way from its request.
	reqDir := proxy.HostToServer
	if dir == proxy.HostToServer {
		reqDir = proxy.ServerToHost
	}
	key := callKey(reqDir.String(), session, id)
	if c.open[key] == 0 && session != "" {
		// The answer to a sessionless request (an initialize) names the
		// session it opens, as the checks know.
		if k := callKey(reqDir.String(), "", id); c.open[k] > 0 {
			key = k
		}
	}
	if c.open[key] > 0 {
		c.open[key]--
	}
	c.responses[key] = append(c.responses[key], msg)
}

// callKey files a call's messages by its request's direction, its HTTP
// session and its id.
func callKey(dir, session, id string) string {
	return dir + " " + strconv.Quote(session) + " " + id
}

// take removes and returns the request of call pc, nil when it was not
// kept.
func (c *collector) take(pc proxy.Call) json.RawMessage {
	key := callKey(pc.Dir, pc.Session, pc.ID)
	q := c.requests[key]
	if len(q) == 0 {
		return nil
	}
	if len(q) == 1 {
		delete(c.requests, key)
		return q[0]
	}
	c.requests[key] = q[1:]
	return q[0]
}

// Read reads a session log from r (name names it in errors and exports)
// through the proxy's checks and returns the session with every call's
// messages. Calls still unanswered at the end of the log are flagged
// pending unless running says the session goes on. A log whose last line
// is cut off gives the session read before it with a
// [*proxy.CutOffError], which the caller reports as a warning.
func Read(r io.Reader, name string, running bool) (*Session, error) {
	c := &collector{checks: &proxy.Checks{KeepCalls: true}, requests: map[string][]json.RawMessage{}, responses: map[string][]json.RawMessage{}, open: map[string]int{}}
	last, err := proxy.ReadLog(r, name, c)
	var cut *proxy.CutOffError
	if err != nil && !errors.As(err, &cut) {
		return nil, err
	}
	if !running {
		c.checks.End(last)
	}
	sum := c.checks.Summary()
	s := &Session{Name: name, Version: sum.Version, ClientInfo: sum.ClientInfo, ServerInfo: sum.ServerInfo, Frames: sum.Frames, Flags: sum.Flags}
	if s.Flags == nil {
		s.Flags = []proxy.Flag{}
	}
	s.Calls = make([]Call, 0, len(sum.Calls))
	for _, pc := range sum.Calls {
		key := callKey(pc.Dir, pc.Session, pc.ID)
		call := Call{Call: pc}
		if q := c.requests[key]; len(q) > 0 {
			call.Request, c.requests[key] = q[0], q[1:]
		}
		if !pc.Pending {
			call.End = pc.Start.Add(pc.Latency)
			if q := c.responses[key]; len(q) > 0 {
				call.Response, c.responses[key] = q[0], q[1:]
			}
		}
		for _, fl := range sum.Flags {
			if fl.ID == pc.ID && fl.ID != "" && fl.Session == pc.Session && (fl.Method == "" || fl.Method == pc.Method) {
				call.Flags = append(call.Flags, fl)
			}
		}
		s.Calls = append(s.Calls, call)
	}
	return s, err
}

// Formats are the formats [Write] writes.
var formats = []string{"json", "har", "otlp", "html"}

// Formats returns the names of the formats [Write] writes.
func Formats() []string { return append([]string(nil), formats...) }

// Info is what the exports say about the program that made them.
type Info struct {
	// Name and Version name the program (HAR's creator, OTLP's scope).
	Name, Version string
}

// Write writes s to w in format: json, har, otlp or html.
func Write(w io.Writer, format string, s *Session, info Info) error {
	switch format {
	case "json":
		return writeJSON(w, s)
	case "har":
		return writeJSON(w, HAR(s, info))
	case "otlp":
		return writeJSON(w, OTLP(s, info))
	case "html":
		return HTML(w, s, info)
	}
	return fmt.Errorf("unknown export format %q", format)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// canonical compacts JSON so that ids compare by value, as the checks
// compare them.
func canonical(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}
