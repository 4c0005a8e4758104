package export

import (
	_ "embed"
	"encoding/json"
	"html/template"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/proxy"
)

//go:embed page.html
var pageHTML string

// pageData is what the page's template sees.
type pageData struct {
	Name, Version  string
	Client, Server string
	Frames         int
	Calls          []Call
	Flags          []proxy.Flag
	// Data is the session as JSON for the page's script, with <, > and &
	// escaped so that no "</script" can end the element early.
	Data template.JS
}

// HTML writes the session as one self-contained page: inline style and
// script, no network access (its Content-Security-Policy allows none), the
// calls with method, tool, latency and status, the flags, a search box
// that filters the calls (its words can be given in the address as
// "#q=words"), and each call's request and response as
// collapsible pretty JSON. The session is embedded as JSON in a
// <script type="application/json"> element.
func HTML(w io.Writer, s *Session, info Info) error {
	tmpl, err := template.New("page").Parse(pageHTML)
	if err != nil {
		return err
	}
	data, err := embedJSON(s)
	if err != nil {
		return err
	}
	p := pageData{Name: s.Name, Version: s.Version, Frames: s.Frames, Calls: s.Calls, Flags: s.Flags,
		Client: implName(s.ClientInfo), Server: implName(s.ServerInfo), Data: template.JS(data)}
	return tmpl.Execute(w, p)
}

// embedJSON encodes v for a script element: encoding/json escapes <, >
// and & (so "</script" and "<!--" cannot occur) and U+2028 and U+2029.
func embedJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// implName shows an Implementation (clientInfo, serverInfo) as "name
// version".
func implName(info json.RawMessage) string {
	var ci struct{ Name, Version string }
	if json.Unmarshal(info, &ci) != nil {
		return ""
	}
	return strings.TrimSpace(ci.Name + " " + ci.Version)
}
