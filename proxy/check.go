package proxy

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
	"github.com/mcpctl/mcpctl/schema"
)

// Flag kinds: what [Checks] finds wrong in a session.
const (
	FlagSchema    = "schema"     // a message breaking the official schema of the negotiated revision
	FlagPollution = "pollution"  // a server frame that is not JSON-RPC (stdout pollution)
	FlagUnknownID = "unknown-id" // a response to no pending request
	FlagDuplicate = "duplicate-id"
	FlagError     = "error"         // a JSON-RPC error answer
	FlagPending   = "pending"       // a request never answered
	FlagTools     = "tools-changed" // tool definitions changed during the session
	FlagDropped   = "dropped"       // frames the checks never saw (a full tap)
	FlagMalformed = "malformed"     // a host frame that is not JSON-RPC
)

// Flag is one finding of [Checks].
type Flag struct {
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	// Dir is the direction of the frame it is about, if any.
	Dir string `json:"direction,omitempty"`
	// ID and Method identify the request it is about, if any.
	ID     string `json:"id,omitempty"`
	Method string `json:"method,omitempty"`
	// Session is the HTTP session of the frame or request it is about,
	// if any (see [Frame].Session).
	Session string `json:"session,omitempty"`
	// Msg says what is wrong in one line.
	Msg string `json:"message"`
}

// Call is one request and its answer, correlated by HTTP session and id.
type Call struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	// Session is the request's HTTP session, "" over stdio (see
	// [Frame].Session).
	Session string `json:"session,omitempty"`
	// Tool is params.name of a tools/call.
	Tool string `json:"tool,omitempty"`
	// Dir is the request's direction: most come from the host; sampling,
	// elicitation and roots requests come from the server.
	Dir   string    `json:"direction"`
	Start time.Time `json:"start"`
	// Latency is the time to the answer; zero while pending.
	Latency time.Duration `json:"latency_ns"`
	// Error is the JSON-RPC error's message when the answer was one.
	Error     string `json:"error,omitempty"`
	ErrorCode int    `json:"error_code,omitempty"`
	// IsError is a tools/call result's isError.
	IsError bool `json:"is_error,omitempty"`
	Pending bool `json:"pending,omitempty"`

	cursor bool // a tools/list asking for a page after the first
	seq    int  // the call's place among the session's requests, from 0
}

// Seq is the call's place among the requests of its session, from 0: with
// [Checks].KeepCalls, its index in [Summary].Calls. Exports derive span
// ids from it, so a call streamed while the session runs and the same call
// exported later get the same ids.
func (c Call) Seq() int { return c.seq }

// Checks is the [Observer] that checks a session as its frames pass (and
// `mcpctl check` replays a session log through the same code): it
// correlates requests with their answers, checks every message against the
// official schema of the revision the two sides negotiated (either era),
// and flags stdout pollution, unknown and duplicate ids, JSON-RPC errors,
// requests never answered, and tool definitions that change. It runs on
// the tap's goroutine; its methods are not for concurrent use, except
// through the tap.
type Checks struct {
	// OnFlag, when set, is told of each flag as it is raised; OnCall of
	// each call once answered.
	OnFlag func(Flag)
	OnCall func(Call)
	// KeepCalls keeps every call for [Checks.Summary]; without it only
	// the pending ones are kept, so that a proxy running for days does not
	// grow with its traffic (its log keeps the calls).
	KeepCalls bool

	checker    schema.Checker
	version    string
	clientInfo json.RawMessage
	serverInfo json.RawMessage
	pending    map[string]*Call // by direction + session + id (callKey)
	calls      []*Call          // every call, with KeepCalls
	callCount  int
	flagsLost  int // flags beyond maxFlags, counted only
	flags      []Flag
	tools      map[string]string // tool name → canonical definition, from the last whole tools/list
	listing    map[string]string // the pages of a tools/list so far
	frames     int
}

// Summary is what [Checks] knows of a session.
type Summary struct {
	// Version is the negotiated protocol revision, "" before it is known.
	Version    string          `json:"protocol_version,omitempty"`
	ClientInfo json.RawMessage `json:"client_info,omitempty"`
	ServerInfo json.RawMessage `json:"server_info,omitempty"`
	Frames     int             `json:"frames"`
	// CallCount counts the requests seen; Calls are all of them with
	// [Checks].KeepCalls, else the pending ones.
	CallCount int    `json:"call_count"`
	Calls     []Call `json:"calls"`
	// Flags are the findings, the first [MaxFlags] of them; FlagsLost
	// counts the rest.
	Flags     []Flag `json:"flags"`
	FlagsLost int    `json:"flags_lost,omitempty"`
	// Tools are the tool definitions of the last full tools/list, by
	// name; nil when the session listed none.
	Tools map[string]json.RawMessage `json:"tools,omitempty"`
}

// Frame checks one frame.
func (c *Checks) Frame(f Frame) {
	c.frames++
	if c.pending == nil {
		c.pending = map[string]*Call{}
	}
	if f.Truncated() {
		// Too large to keep whole: relayed, but checked no further.
		return
	}
	for m := range Messages(f.Data) {
		c.message(f, m)
	}
}

// message checks one JSON-RPC message of frame f.
func (c *Checks) message(f Frame, data []byte) {
	m, ok := readEnvelope(data)
	if !ok {
		kind := FlagPollution
		what := "the server wrote a line to stdout that is not JSON-RPC"
		if f.Dir == HostToServer {
			kind, what = FlagMalformed, "the host wrote a frame that is not JSON-RPC"
		}
		c.flag(f, kind, "", "", fmt.Sprintf("%s: %s", what, quote(data)))
		return
	}
	id := ""
	if len(m.ID) > 0 && string(m.ID) != "null" {
		id = idKey(m.ID)
	}
	switch {
	case m.Method != "" && id != "":
		c.request(f, id, m)
	case m.Method != "":
		c.notification(f, m)
	case id != "":
		c.response(f, id, m)
	default:
		c.flag(f, FlagMalformed, "", "", "a message with neither a method nor an id: "+quote(data))
	}
}

func (c *Checks) request(f Frame, id string, m envelope) {
	key := callKey(f.Dir, f.Session, id)
	if prev := c.pending[key]; prev != nil {
		c.flag(f, FlagDuplicate, id, m.Method, fmt.Sprintf("request id %s is already in use by a pending %s", id, prev.Method))
	}
	call := &Call{ID: id, Method: m.Method, Session: f.Session, Dir: f.Dir.String(), Start: f.Time, Pending: true, seq: c.callCount}
	var name, cursor, clientInfo, meta []byte
	jsonscan.Members(m.Params, func(p jsonscan.Member) bool {
		switch {
		case p.Is("name"):
			name = p.Value
		case p.Is("cursor"):
			cursor = p.Value
		case p.Is("clientInfo"):
			clientInfo = p.Value
		case p.Is("_meta"):
			meta = p.Value
		}
		return true
	})
	switch m.Method {
	case "tools/call":
		call.Tool, _ = jsonscan.String(name)
	case "tools/list":
		call.cursor = jsonscan.IsString(cursor)
	}
	if m.Method == "initialize" && jsonscan.IsObject(clientInfo) {
		c.clientInfo = clientInfo
	}
	if v, _ := jsonscan.String(jsonscan.Find(meta, "io.modelcontextprotocol/protocolVersion")); v != "" {
		// The modern era names the revision on every request.
		c.version = v
		if ci := jsonscan.Find(meta, "io.modelcontextprotocol/clientInfo"); ci != nil && c.clientInfo == nil {
			c.clientInfo = canonical(ci)
		}
	}
	c.pending[key] = call
	c.callCount++
	if c.KeepCalls {
		c.calls = append(c.calls, call)
	}
	if f.Dir == ServerToHost {
		c.violations(f, id, m.Method, func() ([]schema.Violation, error) {
			return c.checker.CheckRequest(c.version, m.Method, m.Params)
		})
	}
}

func (c *Checks) notification(f Frame, m envelope) {
	if f.Dir == ServerToHost {
		c.violations(f, "", m.Method, func() ([]schema.Violation, error) {
			return c.checker.CheckNotification(c.version, m.Method, m.Params)
		})
	}
}

func (c *Checks) response(f Frame, id string, m envelope) {
	// A response goes the other way from its request.
	reqDir := HostToServer
	if f.Dir == HostToServer {
		reqDir = ServerToHost
	}
	key := callKey(reqDir, f.Session, id)
	call := c.pending[key]
	if call == nil && f.Session != "" {
		// The answer to a sessionless request (an initialize) names the
		// session it opens.
		key = callKey(reqDir, "", id)
		call = c.pending[key]
	}
	if call == nil {
		c.flag(f, FlagUnknownID, id, "", fmt.Sprintf("a response to id %s, which no pending request has", id))
		return
	}
	delete(c.pending, key)
	// What is flagged about the answer is filed under its call's session.
	f.Session = call.Session
	call.Pending = false
	call.Latency = f.Time.Sub(call.Start)
	if len(m.Error) > 0 {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		json.Unmarshal(m.Error, &e)
		call.Error, call.ErrorCode = e.Message, e.Code
		// A legacy server refusing server/discover is how a modern host
		// learns the era (2026-07-28/basic/versioning), not a failure.
		if !(call.Method == "server/discover" && e.Code == -32601) {
			c.flag(f, FlagError, id, call.Method, fmt.Sprintf("%s answered with error %d: %s", call.Method, e.Code, e.Message))
		}
	} else {
		c.result(f, call, m.Result)
	}
	if c.OnCall != nil {
		c.OnCall(*call)
	}
}

// result looks at a successful answer: the negotiated revision, the
// server's identity, tool drift, and the official schema.
func (c *Checks) result(f Frame, call *Call, result json.RawMessage) {
	switch call.Method {
	case "initialize", "server/discover":
		var r struct {
			ProtocolVersion    string          `json:"protocolVersion"`
			SupportedVersions  []string        `json:"supportedVersions"`
			ServerInfo         json.RawMessage `json:"serverInfo"`
			ImplementationInfo json.RawMessage `json:"implementation"`
		}
		json.Unmarshal(result, &r)
		if r.ProtocolVersion != "" {
			c.version = r.ProtocolVersion
		}
		if len(r.ServerInfo) > 0 {
			c.serverInfo = r.ServerInfo
		}
	case "tools/call":
		call.IsError = string(jsonscan.Find(result, "isError")) == "true"
	case "tools/list":
		c.toolDrift(f, call, result)
	}
	if f.Dir == ServerToHost {
		c.violations(f, call.ID, call.Method, func() ([]schema.Violation, error) {
			return c.checker.CheckResult(c.version, call.Method, result)
		})
	}
}

// toolDrift gathers the pages of a tools/list and, once the list is
// whole, flags how it differs from the last whole list seen: the tools
// added, removed or changed.
func (c *Checks) toolDrift(f Frame, call *Call, result json.RawMessage) {
	var r struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	if !call.cursor || c.listing == nil {
		c.listing = map[string]string{}
	}
	for _, t := range r.Tools {
		var named struct {
			Name string `json:"name"`
		}
		json.Unmarshal(t, &named)
		c.listing[named.Name] = string(canonical(t))
	}
	if r.NextCursor != "" {
		return
	}
	now := c.listing
	c.listing = nil
	if c.tools != nil {
		var added, removed, changed []string
		for name, def := range now {
			old, ok := c.tools[name]
			switch {
			case !ok:
				added = append(added, name)
			case old != def:
				changed = append(changed, name)
			}
		}
		for name := range c.tools {
			if _, ok := now[name]; !ok {
				removed = append(removed, name)
			}
		}
		if len(added)+len(removed)+len(changed) > 0 {
			var parts []string
			for _, p := range []struct {
				what  string
				names []string
			}{{"added", added}, {"removed", removed}, {"changed", changed}} {
				if len(p.names) > 0 {
					sort.Strings(p.names)
					parts = append(parts, p.what+" "+strings.Join(p.names, ", "))
				}
			}
			c.flag(f, FlagTools, "", "tools/list", "the server's tools changed during the session: "+strings.Join(parts, "; "))
		}
	}
	c.tools = now
}

// violations runs a schema check when the revision is known and flags
// what it finds; messages too large to check are left alone.
func (c *Checks) violations(f Frame, id, method string, check func() ([]schema.Violation, error)) {
	if c.version == "" || !slices.Contains(schema.OfficialVersions(), c.version) {
		return
	}
	vs, err := check()
	if err != nil {
		return
	}
	for i, v := range vs {
		if i == 3 {
			c.flag(f, FlagSchema, id, method, fmt.Sprintf("%s: %d more violations", method, len(vs)-3))
			break
		}
		c.flag(f, FlagSchema, id, method, fmt.Sprintf("%s breaks the %s schema: %s", method, c.version, v))
	}
}

// Event notes what the checks need from the session's events.
func (c *Checks) Event(e Event) {
	if e.Name == "http" {
		c.httpAnswer(e)
	}
	if e.Name == "govern" {
		c.pinEvent(e)
	}
	if e.Name == "dropped" {
		c.flags = append(c.flags, Flag{Time: e.Time, Kind: FlagDropped, Msg: fmt.Sprintf("%v frames were relayed without being checked (the checks fell behind)", e.Detail)})
	}
}

// End flags the requests still pending when the session ended, in the
// order they were made.
func (c *Checks) End(at time.Time) {
	pending := make([]*Call, 0, len(c.pending))
	for _, call := range c.pending {
		pending = append(pending, call)
	}
	slices.SortFunc(pending, func(a, b *Call) int { return a.Start.Compare(b.Start) })
	for _, call := range pending {
		c.flag(Frame{Time: at, Session: call.Session}, FlagPending, call.ID, call.Method, fmt.Sprintf("%s (id %s) was never answered", call.Method, call.ID))
	}
}

// Version is the negotiated protocol revision, "" before it is known.
func (c *Checks) Version() string { return c.version }

// ServerInfo is the server's serverInfo, nil before it is known.
func (c *Checks) ServerInfo() json.RawMessage { return c.serverInfo }

// Summary returns what the checks found so far.
func (c *Checks) Summary() Summary {
	s := Summary{Version: c.version, ClientInfo: c.clientInfo, ServerInfo: c.serverInfo, Frames: c.frames, CallCount: c.callCount, Flags: slices.Clone(c.flags), FlagsLost: c.flagsLost}
	calls := c.calls
	if !c.KeepCalls {
		for _, call := range c.pending {
			calls = append(calls, call)
		}
		slices.SortFunc(calls, func(a, b *Call) int { return a.Start.Compare(b.Start) })
	}
	s.Calls = make([]Call, len(calls))
	for i, call := range calls {
		s.Calls[i] = *call
	}
	if c.tools != nil {
		s.Tools = make(map[string]json.RawMessage, len(c.tools))
		for name, def := range c.tools {
			s.Tools[name] = json.RawMessage(def)
		}
	}
	return s
}

// MaxFlags is how many findings [Checks] keeps; the rest are counted.
const MaxFlags = 10000

func (c *Checks) flag(f Frame, kind, id, method, msg string) {
	fl := Flag{Time: f.Time, Kind: kind, ID: id, Method: method, Session: f.Session, Msg: msg}
	if f.Dir != 0 {
		fl.Dir = f.Dir.String()
	}
	if len(c.flags) >= MaxFlags {
		c.flagsLost++
	} else {
		c.flags = append(c.flags, fl)
	}
	if c.OnFlag != nil {
		c.OnFlag(fl)
	}
}

// readEnvelope reads the envelope of a message; ok is false when the
// message is not a JSON object or its method is not a string. The members
// are data's own bytes, so that a large message costs no copy.
func readEnvelope(data []byte) (m envelope, ok bool) {
	if len(data) == 0 || data[0] != '{' || !json.Valid(data) {
		return m, false
	}
	ok = true
	jsonscan.Members(data, func(mb jsonscan.Member) bool {
		switch {
		case mb.Is("id"):
			m.ID = mb.Value
		case mb.Is("method"):
			if string(mb.Value) != "null" {
				m.Method, ok = jsonscan.String(mb.Value)
			}
		case mb.Is("params"):
			m.Params = mb.Value
		case mb.Is("result"):
			m.Result = mb.Value
		case mb.Is("error"):
			m.Error = mb.Value
		}
		return ok
	})
	return m, ok
}

// callKey is the key of a pending call: the direction of its request,
// its HTTP session and its id (see [idKey]). Ids are unique only within a
// session: hosts sharing a proxy each number theirs from the start.
func callKey(dir Direction, session, id string) string {
	return dir.String() + " " + strconv.Quote(session) + " " + id
}

// idKey is the form of a request id that requests and responses are
// matched by: numbers and plain strings as written, anything else
// canonical.
func idKey(raw json.RawMessage) string {
	simple := true
	for _, b := range raw {
		if b == '\\' || b == ' ' || b == '.' || b == 'e' || b == 'E' || b == '\t' || b == '\n' || b == '\r' {
			simple = false
			break
		}
	}
	if simple {
		return string(raw)
	}
	return string(canonical(raw))
}

// canonical compacts JSON so that ids and definitions compare by value.
func canonical(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// quote shows at most 60 bytes of a frame.
func quote(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q… (%d bytes)", b[:60], len(b))
	}
	return fmt.Sprintf("%q", b)
}
