package export

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// OTLPTraces is an OTLP/JSON ExportTraceServiceRequest, as a collector's
// /v1/traces takes it: ids in hex, 64-bit integers as strings.
type OTLPTraces struct {
	ResourceSpans []OTLPResourceSpans `json:"resourceSpans"`
}

// OTLPResourceSpans are the spans of one resource.
type OTLPResourceSpans struct {
	Resource   OTLPResource     `json:"resource"`
	ScopeSpans []OTLPScopeSpans `json:"scopeSpans"`
}

// OTLPResource describes what made the spans.
type OTLPResource struct {
	Attributes []OTLPAttribute `json:"attributes"`
}

// OTLPScopeSpans are the spans of one instrumentation scope.
type OTLPScopeSpans struct {
	Scope OTLPScope  `json:"scope"`
	Spans []OTLPSpan `json:"spans"`
}

// OTLPScope names the instrumentation.
type OTLPScope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// OTLPSpan is one call.
type OTLPSpan struct {
	TraceID           string          `json:"traceId"`
	SpanID            string          `json:"spanId"`
	ParentSpanID      string          `json:"parentSpanId,omitempty"`
	Name              string          `json:"name"`
	Kind              int             `json:"kind"`
	StartTimeUnixNano string          `json:"startTimeUnixNano"`
	EndTimeUnixNano   string          `json:"endTimeUnixNano"`
	Attributes        []OTLPAttribute `json:"attributes"`
	Status            OTLPStatus      `json:"status"`
}

// OTLPStatus is a span's status: code 0 unset, 1 ok, 2 error.
type OTLPStatus struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// OTLPAttribute is a key and an AnyValue.
type OTLPAttribute struct {
	Key   string    `json:"key"`
	Value OTLPValue `json:"value"`
}

// OTLPValue is an AnyValue with one of its members set.
type OTLPValue struct {
	StringValue *string `json:"stringValue,omitempty"`
	IntValue    *string `json:"intValue,omitempty"`
	BoolValue   *bool   `json:"boolValue,omitempty"`
}

func strAttr(k, v string) OTLPAttribute {
	return OTLPAttribute{Key: k, Value: OTLPValue{StringValue: &v}}
}
func intAttr(k string, v int64) OTLPAttribute {
	s := strconv.FormatInt(v, 10)
	return OTLPAttribute{Key: k, Value: OTLPValue{IntValue: &s}}
}
func boolAttr(k string, v bool) OTLPAttribute {
	return OTLPAttribute{Key: k, Value: OTLPValue{BoolValue: &v}}
}

// Span kinds of OTLP: a request the host sent is a client span, seen from
// the side that made it.
const otlpKindClient = 3

// OTLP status codes.
const otlpStatusError = 2

// OTLP returns the session as OTLP/JSON traces, a span per call named
// after the MCP semantic conventions ("tools/call echo"). A request whose
// params._meta.traceparent names a W3C trace joins it (its trace id, and
// the caller's span as parent); the others share one trace derived from
// the session's name. Span ids are derived from the session and the call,
// so exporting a session twice gives the same ids.
func OTLP(s *Session, info Info) OTLPTraces {
	spans := make([]OTLPSpan, 0, len(s.Calls))
	for i, c := range s.Calls {
		spans = append(spans, span(s.Name, s.Version, i, c))
	}
	return OTLPTraces{ResourceSpans: []OTLPResourceSpans{resourceSpans(info, s.Name, serverName(s.ServerInfo), spans)}}
}

// span is call c of session name, the seq-th request of the session,
// negotiated revision version: the one span both the export and the live
// stream ([Stream]) make of a call.
func span(name, version string, seq int, c Call) OTLPSpan {
	sp := OTLPSpan{
		TraceID: hashHex(16, "trace", name),
		SpanID:  hashHex(8, "span", name, strconv.Itoa(seq), c.Dir, c.ID),
		Name:    c.Method,
		Kind:    otlpKindClient,
	}
	if trace, parent, ok := traceparent(c.Request); ok {
		sp.TraceID, sp.ParentSpanID = trace, parent
	}
	if c.Tool != "" {
		sp.Name += " " + c.Tool
	}
	start := c.Start.UnixNano()
	end := start
	if !c.Pending {
		end = c.End.UnixNano()
	}
	sp.StartTimeUnixNano, sp.EndTimeUnixNano = strconv.FormatInt(start, 10), strconv.FormatInt(end, 10)
	sp.Attributes = []OTLPAttribute{
		strAttr("mcp.method.name", c.Method),
		strAttr("rpc.system", "jsonrpc"),
		strAttr("rpc.jsonrpc.version", "2.0"),
		strAttr("rpc.jsonrpc.request_id", strings.Trim(c.ID, `"`)),
		strAttr("mcpctl.direction", c.Dir),
	}
	if version != "" {
		sp.Attributes = append(sp.Attributes, strAttr("mcp.protocol.version", version))
	}
	if c.Tool != "" {
		sp.Attributes = append(sp.Attributes, strAttr("gen_ai.tool.name", c.Tool), strAttr("gen_ai.operation.name", "execute_tool"))
	}
	switch {
	case c.Pending:
		sp.Status = OTLPStatus{Code: otlpStatusError, Message: "never answered"}
		sp.Attributes = append(sp.Attributes, strAttr("error.type", "pending"))
	case c.Error != "":
		sp.Status = OTLPStatus{Code: otlpStatusError, Message: c.Error}
		sp.Attributes = append(sp.Attributes, intAttr("rpc.jsonrpc.error_code", int64(c.ErrorCode)),
			strAttr("rpc.jsonrpc.error_message", c.Error), strAttr("error.type", strconv.Itoa(c.ErrorCode)))
	case c.IsError:
		sp.Status = OTLPStatus{Code: otlpStatusError, Message: "the tool returned isError: true"}
		sp.Attributes = append(sp.Attributes, strAttr("error.type", "tool_error"))
	}
	if len(c.Flags) > 0 {
		sp.Attributes = append(sp.Attributes, intAttr("mcpctl.flags", int64(len(c.Flags))))
	}
	return sp
}

// resourceSpans are the spans of session name, whose server is server
// ("" when unknown), as made by the program info names.
func resourceSpans(info Info, name, server string, spans []OTLPSpan) OTLPResourceSpans {
	res := []OTLPAttribute{strAttr("service.name", info.Name), strAttr("mcpctl.session", name)}
	if server != "" {
		res = append(res, strAttr("mcp.server.name", server))
	}
	res = append(res, boolAttr("mcpctl.proxy", true))
	return OTLPResourceSpans{
		Resource:   OTLPResource{Attributes: res},
		ScopeSpans: []OTLPScopeSpans{{Scope: OTLPScope{Name: info.Name, Version: info.Version}, Spans: spans}},
	}
}

// traceparent reads params._meta.traceparent of a request: the W3C trace
// context "00-<trace id>-<parent id>-<flags>".
func traceparent(req json.RawMessage) (trace, parent string, ok bool) {
	var m struct {
		Params struct {
			Meta struct {
				Traceparent string `json:"traceparent"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(req, &m) != nil {
		return "", "", false
	}
	parts := strings.Split(strings.TrimSpace(m.Params.Meta.Traceparent), "-")
	if len(parts) < 4 || len(parts[1]) != 32 || len(parts[2]) != 16 || !isHex(parts[1]) || !isHex(parts[2]) ||
		parts[1] == strings.Repeat("0", 32) || parts[2] == strings.Repeat("0", 16) {
		return "", "", false
	}
	return strings.ToLower(parts[1]), strings.ToLower(parts[2]), true
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// hashHex derives n bytes, in hex, from parts.
func hashHex(n int, parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:n])
}

// serverName is the name of a serverInfo.
func serverName(info json.RawMessage) string {
	var si struct{ Name string }
	json.Unmarshal(info, &si)
	return si.Name
}
