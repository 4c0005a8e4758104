package lint

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpctl/mcpctl/client"
)

// maxPages bounds one list, so a server that invents a new cursor forever
// cannot keep the linter busy forever. Real lists take a few pages.
const maxPages = 1000

// Caller sends one request and returns its raw result; a JSON-RPC error
// answer is a *client.RPCError and a request that got no answer in time a
// *client.TimeoutError. [*client.Client] is a Caller.
type Caller interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Server is everything a server sent, as [Collect] gathered it.
type Server struct {
	// Initialize is the result of initialize, as sent.
	Initialize json.RawMessage
	// Lists holds one entry per list method, in the order of [ListMethods].
	Lists []List
}

// List is what one list method returned, page by page.
type List struct {
	// Method is "tools/list", "resources/list", "resources/templates/list"
	// or "prompts/list".
	Method string
	// Pages are the results, in order; Pages[i].Cursor is the cursor sent to
	// get it ("" for the first).
	Pages []Page
	// Err is the JSON-RPC error or timeout that answered the request for
	// the page after the last one in Pages; nil when the list ended well.
	Err error
	// RepeatedCursor is the cursor the last page gave as nextCursor that an
	// earlier page had given already, which stopped the listing; "" if none.
	RepeatedCursor string
	// Endless reports a list stopped after maxPages pages, each with a new
	// cursor.
	Endless bool
}

// Page is one result of a list method.
type Page struct {
	Cursor string
	Result json.RawMessage
}

// ListMethod describes a paginated list method.
type ListMethod struct {
	Method     string // "tools/list"
	Key        string // the array in its result: "tools"
	Capability string // the server capability that offers it: "tools"
}

// ListMethods returns the list methods Collect calls.
func ListMethods() []ListMethod {
	return []ListMethod{
		{"tools/list", "tools", "tools"},
		{"resources/list", "resources", "resources"},
		{"resources/templates/list", "resourceTemplates", "resources"},
		{"prompts/list", "prompts", "prompts"},
	}
}

// Collect fetches every page of every list method from the server whose
// initialize result is initialize.
//
// It calls the lists whose capability the server declared first, then the
// others: a server must answer those with an error (such as -32601, method
// not found), and one that answers with items offers something it did not
// declare. Only this probing goes beyond what the server declared; it is
// what lets the capability-undeclared rule see the difference.
//
// Pagination is followed here rather than by the client so that a repeated
// cursor, a rejected cursor or a failed list are recorded for [Check]. A
// JSON-RPC error answer or a timeout is recorded in [List.Err]; any other
// failure (a lost connection, ctx done) ends Collect with that error.
func Collect(ctx context.Context, c Caller, initialize json.RawMessage) (*Server, error) {
	declared := declaredCapabilities(initialize)
	methods := ListMethods()
	// Declared first, each group in the order of ListMethods.
	order := make([]ListMethod, 0, len(methods))
	for _, pass := range []bool{true, false} {
		for _, m := range methods {
			if declared[m.Capability] == pass {
				order = append(order, m)
			}
		}
	}
	lists := map[string]List{}
	for _, m := range order {
		l, err := collectList(ctx, c, m.Method)
		if err != nil {
			return nil, err
		}
		lists[m.Method] = l
	}
	s := &Server{Initialize: initialize}
	for _, m := range methods {
		s.Lists = append(s.Lists, lists[m.Method])
	}
	return s, nil
}

func collectList(ctx context.Context, c Caller, method string) (List, error) {
	l := List{Method: method}
	seen := map[string]bool{}
	cursor := ""
	for {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := c.Call(ctx, method, params)
		if err != nil {
			var (
				rpcErr  *client.RPCError
				timeout *client.TimeoutError
			)
			if ctx.Err() == nil && (errors.As(err, &rpcErr) || errors.As(err, &timeout)) {
				l.Err = err
				return l, nil
			}
			return l, err // the client's errors name the method
		}
		l.Pages = append(l.Pages, Page{Cursor: cursor, Result: raw})
		next := nextCursor(raw)
		// An empty cursor ends the list, as the client takes it: sending it
		// back would only ask for the first page again.
		if next == "" {
			return l, nil
		}
		if seen[next] {
			l.RepeatedCursor = next
			return l, nil
		}
		if len(l.Pages) >= maxPages {
			l.Endless = true
			return l, nil
		}
		seen[next] = true
		cursor = next
	}
}

// nextCursor is the result's nextCursor when it is a string.
func nextCursor(result json.RawMessage) string {
	var r struct {
		NextCursor json.RawMessage `json:"nextCursor"`
	}
	var s string
	if json.Unmarshal(result, &r) != nil || json.Unmarshal(r.NextCursor, &s) != nil {
		return ""
	}
	return s
}

// declaredCapabilities reads the capabilities an initialize result
// declares; a capability whose value is not an object still counts (the
// message-schema rule reports it).
func declaredCapabilities(initialize json.RawMessage) map[string]bool {
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(initialize, &r) // a malformed result declares nothing
	out := map[string]bool{}
	for name, v := range r.Capabilities {
		out[name] = !isNull(v)
	}
	return out
}
