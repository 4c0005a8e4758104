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

// Options say what lint knows of the session it checks, beyond what the
// server sent.
type Options struct {
	// Era is the protocol era the session speaks: [client.EraModern] for
	// 2026-07-28 and later, where the session opened with server/discover;
	// "" or [client.EraLegacy] for the initialize handshake.
	Era string
	// ProtocolVersion is the revision the session speaks. In the legacy
	// era "" means the one the initialize result names; in the modern era,
	// where no result names it, "" means [client.ModernProtocolVersion].
	ProtocolVersion string
	// ProbeUndeclared asks [Collect] for the lists whose capability the
	// server did not declare too, to see whether it answers them with
	// items. Off by default: the lifecycle says both parties MUST use only
	// the capabilities they negotiated, so a client that asks for more is
	// itself off the specification (and some servers end the session).
	ProbeUndeclared bool
}

// modern reports whether the options name the modern era.
func (o Options) modern() bool {
	return o.Era == client.EraModern || o.Era == "" && client.IsModern(o.ProtocolVersion)
}

// Server is everything a server sent, as [Collect] gathered it.
type Server struct {
	// Options are those Collect was given: the era and revision the
	// session speaks.
	Options Options
	// Initialize is the result that opened the session, as sent: that of
	// initialize, or of server/discover in the modern era.
	Initialize json.RawMessage
	// Lists holds one entry per list method, in the order of
	// [client.ListMethods]. A list whose capability the server did not
	// declare has no pages unless [Options.ProbeUndeclared] was set.
	Lists []List
	// StdoutNoise are the lines a stdio server wrote to its stdout that
	// are not JSON-RPC messages, as the transport and client reported
	// them while the session ran. Collect cannot see them: the caller that
	// owns the transport fills them in before [Check].
	StdoutNoise []string
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
// initialize result (server/discover result, in the modern era) is
// initialize.
//
// It calls the lists whose capability the server declared; with
// [Options.ProbeUndeclared], then the others too: a server must answer
// those with an error (such as -32601, method not found), and one that
// answers with items offers something it did not declare. Only this
// probing goes beyond what the server declared; it is what lets the
// capability-undeclared rule see the difference.
//
// Pagination is followed by the client's paginator, [client.Paginate],
// which reports where and why a list stopped; that is recorded in
// [List.Stopped] for [Check], with every page received. A JSON-RPC error
// answer or a timeout is recorded; any other failure (a lost connection,
// ctx done) ends Collect with that error. A result the client refused to
// hand over (an unknown resultType: a [*client.ProtocolError] that carries
// the result) is recorded as the page it is, for [Check] to report.
func Collect(ctx context.Context, c Caller, initialize json.RawMessage, opts Options) (*Server, error) {
	declared := declaredCapabilities(initialize)
	methods := client.ListMethods()
	// Declared first, each group in the order of client.ListMethods.
	order := make([]client.ListKind, 0, len(methods))
	for _, pass := range []bool{true, false} {
		if !pass && !opts.ProbeUndeclared {
			break
		}
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
	s := &Server{Options: opts, Initialize: initialize}
	for _, m := range methods {
		l, ok := lists[m.Method]
		if !ok {
			l = List{Method: m.Method} // not declared, not probed
		}
		s.Lists = append(s.Lists, l)
	}
	return s, nil
}

func collectList(ctx context.Context, c Caller, m client.ListKind) (List, error) {
	l := List{Method: m.Method}
	call := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		var (
			raw json.RawMessage
			err error
		)
		if params == nil {
			raw, err = c.Call(ctx, method, nil) // no params member at all
		} else {
			raw, err = c.Call(ctx, method, params)
		}
		var refused *client.ProtocolError
		if errors.As(err, &refused) && refused.Result != nil {
			// What a client refuses is what lint is for: check it.
			return refused.Result, nil
		}
		return raw, err
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
