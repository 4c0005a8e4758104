package lint

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpctl/mcpctl/client"
)

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
	// Lists holds one entry per list method, in the order of
	// [client.ListMethods].
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
	// Stopped says why the listing stopped before the end of the list, as
	// the client's paginator reported it: a JSON-RPC error or timeout
	// answering page Stopped.Page (the first page, or a cursor the server
	// gave), a repeated cursor, mcpctl's page or item limit, or a page that
	// is not a list result. It is nil when the list ended well.
	Stopped *client.PaginationError
}

// Page is one result of a list method.
type Page struct {
	Cursor string
	Result json.RawMessage
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
// Pagination is followed by the client's paginator, [client.Paginate],
// which reports where and why a list stopped; that is recorded in
// [List.Stopped] for [Check], with every page received. A JSON-RPC error
// answer or a timeout is recorded; any other failure (a lost connection,
// ctx done) ends Collect with that error.
func Collect(ctx context.Context, c Caller, initialize json.RawMessage) (*Server, error) {
	declared := declaredCapabilities(initialize)
	methods := client.ListMethods()
	// Declared first, each group in the order of client.ListMethods.
	order := make([]client.ListKind, 0, len(methods))
	for _, pass := range []bool{true, false} {
		for _, m := range methods {
			if declared[m.Capability] == pass {
				order = append(order, m)
			}
		}
	}
	lists := map[string]List{}
	for _, m := range order {
		l, err := collectList(ctx, c, m)
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

func collectList(ctx context.Context, c Caller, m client.ListKind) (List, error) {
	l := List{Method: m.Method}
	call := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		if params == nil {
			return c.Call(ctx, method, nil) // no params member at all
		}
		return c.Call(ctx, method, params)
	}
	_, err := client.Paginate(ctx, call, m.Method, m.Key, func(p client.ListPage) {
		l.Pages = append(l.Pages, Page{Cursor: p.Cursor, Result: p.Result})
	})
	if err == nil {
		return l, nil
	}
	var stop *client.PaginationError
	if !errors.As(err, &stop) {
		return l, err
	}
	if stop.Reason == client.PaginationRequestFailed {
		var (
			rpcErr  *client.RPCError
			timeout *client.TimeoutError
		)
		if ctx.Err() != nil || !errors.As(stop.Err, &rpcErr) && !errors.As(stop.Err, &timeout) {
			return l, err // the client's errors name the method
		}
	}
	l.Stopped = stop
	return l, nil
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
