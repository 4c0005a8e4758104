package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// ModernProtocolVersion is the first revision of the modern era: no
// initialize and no sessions; every request carries the protocol version,
// the client's capabilities and its identity in params._meta, and
// server/discover tells what the server is (2026-07-28/basic/lifecycle).
const ModernProtocolVersion = "2026-07-28"

// Era names, as [Client.Era] reports them.
const (
	// EraLegacy is the initialize handshake and sessions (revisions up
	// to 2025-11-25).
	EraLegacy = "legacy"
	// EraModern is stateless requests with per-request _meta (2026-07-28
	// and later).
	EraModern = "modern"
)

// The _meta keys of the modern era.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// IsModern reports whether a protocol revision belongs to the modern era.
// Revisions are dates, so they compare as strings.
func IsModern(version string) bool { return version >= ModernProtocolVersion }

// DiscoverResult is the answer to server/discover.
type DiscoverResult struct {
	SupportedVersions []string                   `json:"supportedVersions"`
	Capabilities      map[string]json.RawMessage `json:"capabilities"`
	Instructions      string                     `json:"instructions,omitempty"`
	ResultType        string                     `json:"resultType,omitempty"`
	Meta              map[string]json.RawMessage `json:"_meta,omitempty"`
}

// Era is the protocol era of the session: [EraModern] when the client
// speaks a modern revision, else [EraLegacy].
func (c *Client) Era() string {
	if c.isModern() {
		return EraModern
	}
	return EraLegacy
}

// isModern reports whether requests are sent in the modern era. It may
// change once, while Connect detects the era.
func (c *Client) isModern() bool { return c.modern.Load() }

// discover starts a modern-era session: it asks the server what it is
// with server/discover and keeps the answer where a legacy session keeps
// the initialize result, so that what `connect` shows and the capability
// checks work the same in both eras.
func (c *Client) discover(ctx context.Context) error {
	start := time.Now()
	raw, _, err := c.roundTripAs(ctx, "server/discover", nil, false, true, requestOptions{})
	var rpc *RPCError
	if errors.As(err, &rpc) && rpc.Code == CodeMethodNotFound {
		return fmt.Errorf("the server does not speak the modern protocol era (it has no server/discover); let mcpctl detect the era (--era auto, without --protocol-version %s) or pin --era legacy: %w",
			c.wireVersion(), err)
	}
	return c.acceptDiscover(ctx, raw, err, start)
}

// acceptDiscover takes the answer to server/discover (sent at start): on
// an unsupported-version error it retries once with a revision both
// speak; a DiscoverResult becomes the session's description.
func (c *Client) acceptDiscover(ctx context.Context, raw json.RawMessage, err error, start time.Time) error {
	if err != nil {
		var retry bool
		if retry, err = c.renegotiate(err); retry {
			start = time.Now()
			raw, _, err = c.roundTripAs(ctx, "server/discover", nil, false, true, requestOptions{})
		}
	}
	if err != nil {
		return err
	}
	version := c.wireVersion()
	elapsed := time.Since(start)
	var res DiscoverResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return &ProtocolError{Method: "server/discover", Msg: "result is not a DiscoverResult: " + err.Error()}
	}
	if len(res.SupportedVersions) > 0 && !slices.Contains(res.SupportedVersions, version) {
		return &VersionError{Offered: version, Supported: res.SupportedVersions}
	}
	init := InitializeResult{
		ProtocolVersion: version,
		Capabilities:    res.Capabilities,
		Instructions:    res.Instructions,
		Raw:             raw,
	}
	if info, ok := res.Meta[metaServerInfo]; ok {
		_ = json.Unmarshal(info, &init.ServerInfo) // display only
	}
	c.mu.Lock()
	c.init = init
	c.handshake = elapsed
	c.generation++
	c.mu.Unlock()
	if c.opts.OnResult != nil {
		c.opts.OnResult("server/discover", version, raw)
	}
	return nil
}

// wireVersion is the revision modern requests carry.
func (c *Client) wireVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wire
}

// setWire makes version the revision modern requests carry, in _meta and
// (through [transport.ProtocolVersionSetter]) in MCP-Protocol-Version,
// which must equal it.
func (c *Client) setWire(version string) {
	c.mu.Lock()
	c.wire = version
	c.mu.Unlock()
	if s, ok := c.conn.(transport.ProtocolVersionSetter); ok {
		s.SetProtocolVersion(version)
	}
}

// renegotiate handles an unsupported-version error (-32022) to a modern
// request: it picks the newest revision mcpctl speaks among those the
// server lists and reports that the request should be sent again, once.
// A server that lists none of mcpctl's gets a [*VersionError]; any other
// error is returned as is.
func (c *Client) renegotiate(err error) (retry bool, _ error) {
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != CodeUnsupportedProtocolVersion {
		return false, err
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(rpc.Data, &data)
	for _, v := range ModernProtocolVersions() {
		if slices.Contains(data.Supported, v) {
			c.setWire(v)
			return true, nil
		}
	}
	return false, &VersionError{Offered: c.wireVersion(), Supported: data.Supported}
}

// withMeta returns params with the modern era's _meta keys merged into
// params._meta: the protocol version, the client's capabilities, its
// identity and, once [Client.SetLogLevel] chose one, the log level. Keys
// the caller put in _meta (a progress token, a signature) stay; the era's
// keys win over same-named ones. The rest of params is kept byte for
// byte, so arguments that were signed are sent as signed.
func (c *Client) withMeta(params json.RawMessage) (json.RawMessage, error) {
	caps := c.opts.Capabilities
	if caps == nil {
		caps = map[string]any{}
	}
	era := map[string]any{
		metaProtocolVersion:    c.wireVersion(),
		metaClientCapabilities: caps,
		metaClientInfo:         c.opts.ClientInfo,
	}
	if level := c.LogLevel(); level != "" {
		era[metaLogLevel] = level // SetLogLevel: logs are asked for per request
	}
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		return json.Marshal(map[string]any{"_meta": era})
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, fmt.Errorf("params are not a JSON object: %w", err)
	}
	meta := map[string]json.RawMessage{}
	if old, ok := fields["_meta"]; ok {
		if err := json.Unmarshal(old, &meta); err != nil {
			return nil, fmt.Errorf("params._meta is not a JSON object: %w", err)
		}
	}
	for k, v := range era {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		meta[k] = b
	}
	m, err := marshalObject(meta)
	if err != nil {
		return nil, err
	}
	if _, ok := fields["_meta"]; !ok {
		// Prepend _meta and keep the rest as written.
		out := make([]byte, 0, len(params)+len(m)+10)
		out = append(out, `{"_meta":`...)
		out = append(out, m...)
		rest := bytes.TrimSpace(params[1:])
		if len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, rest...), nil
	}
	fields["_meta"] = m
	return marshalObject(fields)
}

// modernHeaders are the HTTP headers a modern request carries besides
// MCP-Protocol-Version (2026-07-28/basic/transports/streamable-http):
// Mcp-Method always, and Mcp-Name for the methods that name a tool, a
// resource or a prompt.
func modernHeaders(method string, params json.RawMessage) http.Header {
	h := http.Header{}
	h.Set("Mcp-Method", headerValue(method))
	var key string
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	}
	if key != "" && len(params) > 0 {
		var p map[string]json.RawMessage
		if json.Unmarshal(params, &p) == nil {
			var v string
			if json.Unmarshal(p[key], &v) == nil && v != "" {
				h.Set("Mcp-Name", headerValue(v))
			}
		}
	}
	return h
}

// headerValue encodes a value for an Mcp-* header: as is when every byte
// is visible ASCII, space or tab and it neither starts nor ends with
// whitespace, else in the Base64 sentinel form "=?base64?…?=" of the UTF-8
// bytes. A plain value that looks like the sentinel is encoded too, so it
// cannot be mistaken for one (2026-07-28 streamable-http, "Value
// encoding").
func headerValue(v string) string {
	safe := true
	for i := 0; i < len(v); i++ {
		if b := v[i]; b != '\t' && (b < 0x20 || b > 0x7e) {
			safe = false
			break
		}
	}
	if n := len(v); n > 0 && (isSpace(v[0]) || isSpace(v[n-1])) {
		safe = false
	}
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		safe = false
	}
	if safe {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }

// checkResultType enforces resultType, which modern results carry:
// "complete" (or absent, as from a legacy server) is a final result;
// "input_required" asks the client for more input in another round
// (MRTR), which mcpctl does not do yet; anything else is a protocol
// error.
func checkResultType(method string, raw json.RawMessage) error {
	var r struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return nil // not an object: the typed decoder reports it
	}
	switch r.ResultType {
	case "", "complete":
		return nil
	case "input_required":
		return &ProtocolError{Method: method, Msg: fmt.Sprintf(`the server still needs input after %d rounds (resultType "input_required"); giving up`, MaxInputRounds), Result: raw}
	}
	return &ProtocolError{Method: method, Msg: fmt.Sprintf("unknown resultType %q", r.ResultType), Result: raw}
}
