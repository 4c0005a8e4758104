package export

import (
	"time"

	"github.com/mcpctl/mcpctl/proxy"
)

// HARLog is a HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/).
type HARLog struct {
	Log HARContent `json:"log"`
}

// HARContent is the log object of a HAR document.
type HARContent struct {
	Version string     `json:"version"`
	Creator HARCreator `json:"creator"`
	Entries []HAREntry `json:"entries"`
	Comment string     `json:"comment,omitempty"`
}

// HARCreator names the program that wrote a HAR document.
type HARCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// HAREntry is one exchange: here, one JSON-RPC call.
type HAREntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         HARRequest  `json:"request"`
	Response        HARResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         HARTimings  `json:"timings"`
	Comment         string      `json:"comment,omitempty"`
	// MCP is mcpctl's own field (HAR allows fields starting with _): the
	// call's method, tool, id and the checks' flags about it.
	MCP HARCall `json:"_mcp"`
}

// HARCall is the MCP side of a HAR entry.
type HARCall struct {
	ID        string       `json:"id"`
	Method    string       `json:"method"`
	Tool      string       `json:"tool,omitempty"`
	Direction string       `json:"direction"`
	Error     string       `json:"error,omitempty"`
	ErrorCode int          `json:"errorCode,omitempty"`
	IsError   bool         `json:"isError,omitempty"`
	Pending   bool         `json:"pending,omitempty"`
	Flags     []proxy.Flag `json:"flags,omitempty"`
}

// HARRequest is the JSON-RPC request, as the POST that would carry it
// over Streamable HTTP.
type HARRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Cookies     []HARNameVal `json:"cookies"`
	Headers     []HARNameVal `json:"headers"`
	QueryString []HARNameVal `json:"queryString"`
	PostData    *HARPostData `json:"postData,omitempty"`
	HeadersSize int          `json:"headersSize"`
	BodySize    int          `json:"bodySize"`
}

// HARResponse is the answer.
type HARResponse struct {
	Status      int          `json:"status"`
	StatusText  string       `json:"statusText"`
	HTTPVersion string       `json:"httpVersion"`
	Cookies     []HARNameVal `json:"cookies"`
	Headers     []HARNameVal `json:"headers"`
	Content     HARBody      `json:"content"`
	RedirectURL string       `json:"redirectURL"`
	HeadersSize int          `json:"headersSize"`
	BodySize    int          `json:"bodySize"`
}

// HARNameVal is a header, cookie or query parameter.
type HARNameVal struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HARPostData is a request body.
type HARPostData struct {
	MimeType string       `json:"mimeType"`
	Params   []HARNameVal `json:"params"`
	Text     string       `json:"text"`
}

// HARBody is a response body.
type HARBody struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
}

// HARTimings splits an entry's time; a proxy sees only the wait.
type HARTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// harURL is where a call's entry says it went: stdio sessions have no URL,
// and HAR needs one, so the method stands in as the path.
func harURL(method string) string { return "mcp://session/" + method }

// HAR returns the session as a HAR 1.2 log with an entry per correlated
// call. Times are the proxy's: a request's start is when it passed the
// proxy, its time is the wait for the answer. A JSON-RPC error is an HTTP
// 200 with the error body, as Streamable HTTP carries it; a call never
// answered has status 0, as HAR writes an aborted request.
func HAR(s *Session, info Info) HARLog {
	h := HARLog{Log: HARContent{
		Version: "1.2",
		Creator: HARCreator{Name: info.Name, Version: info.Version},
		Entries: make([]HAREntry, 0, len(s.Calls)),
		Comment: "MCP session " + s.Name,
	}}
	jsonHeader := []HARNameVal{{Name: "Content-Type", Value: "application/json"}}
	for _, c := range s.Calls {
		ms := float64(c.Latency) / float64(time.Millisecond)
		e := HAREntry{
			StartedDateTime: c.Start.UTC().Format(time.RFC3339Nano),
			Time:            ms,
			Request: HARRequest{
				Method: "POST", URL: harURL(c.Method), HTTPVersion: "HTTP/1.1",
				Cookies: []HARNameVal{}, Headers: jsonHeader, QueryString: []HARNameVal{},
				PostData:    &HARPostData{MimeType: "application/json", Params: []HARNameVal{}, Text: string(c.Request)},
				HeadersSize: -1, BodySize: len(c.Request),
			},
			Response: HARResponse{
				Status: 200, StatusText: "OK", HTTPVersion: "HTTP/1.1",
				Cookies: []HARNameVal{}, Headers: jsonHeader,
				Content:     HARBody{Size: len(c.Response), MimeType: "application/json", Text: string(c.Response)},
				HeadersSize: -1, BodySize: len(c.Response),
			},
			Timings: HARTimings{Wait: ms},
			MCP: HARCall{ID: c.ID, Method: c.Method, Tool: c.Tool, Direction: c.Dir, Error: c.Error,
				ErrorCode: c.ErrorCode, IsError: c.IsError, Pending: c.Pending},
		}
		if c.Pending {
			e.Response.Status, e.Response.StatusText, e.Response.Headers = 0, "", []HARNameVal{}
			e.Response.Content.MimeType = "x-unknown"
			e.Response.BodySize = -1
			// send, wait and receive must not be negative in HAR 1.2.
			e.Time, e.Timings.Wait = 0, 0
			e.Comment = "never answered"
		}
		e.MCP.Flags = c.Flags
		h.Log.Entries = append(h.Log.Entries, e)
	}
	return h
}
