package testserver

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The watch mode: a server whose state changes on demand, for `mcpctl
// watch`. It declares tools (listChanged), resources (listChanged,
// subscribe) and logging, and serves both subscriptions/listen and
// resources/subscribe (the SDK does, in whichever era the client speaks).
//
// Tools:
//   - poke: one change of everything a watcher sees, in this order: log
//     messages at debug, info, warning and error (logger "watch"; to the
//     caller per its requested level, and to every other legacy session
//     at the level it set), progress 1/1 if the caller sent a progress
//     token, resources/updated for watch://counter (whose text is the number
//     of pokes), and the tool list: tool extraN added, extraN-1 removed. It
//     answers once the tools/list_changed notification has gone out, so
//     whatever a client does after it comes after the notification.
//   - end: ends every open subscriptions/listen gracefully (its result),
//     as a server shutting down does.
//
// Every tools/list request is logged at debug ("listing tools") to the
// client that sent it, so a watcher's re-list shows its log level at work.
//
// -ready FILE is also created when a client subscribes: a resources/subscribe
// answered, a subscriptions/listen acknowledged. With WATCHSERVER_AUTO=1 in
// the environment the server pokes itself once at that moment and, for a
// subscriptions/listen, then ends it: a stdio script then sees every kind of
// event, in order, with no second command and no timer.
const (
	watchResource = "watch://counter"
	watchLogger   = "watch"
	watchAutoEnv  = "WATCHSERVER_AUTO"
)

// watchServer is the state of the watch mode.
type watchServer struct {
	s    *mcp.Server
	e    *env
	auto bool

	mu       sync.Mutex
	pokes    int
	listens  map[int]context.CancelFunc // open subscriptions/listen handlers
	nextID   int
	sentList chan struct{} // closed when the next tools/list_changed has been sent
}

func watchMode(ctx context.Context, e *env) int {
	w := &watchServer{e: e, auto: os.Getenv(watchAutoEnv) == "1", listens: map[int]context.CancelFunc{}, sentList: make(chan struct{})}
	w.s = newServer(e.mode, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities: &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		},
	})
	w.s.AddTool(&mcp.Tool{
		Name:        "poke",
		Description: "Logs at four levels, updates " + watchResource + " and changes the tool list; answers once the list change is announced.",
		InputSchema: emptyObject(),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 1, Message: "poking"})
		}
		n := w.poke(ctx, req.Session)
		return text("poke " + strconv.Itoa(n)), nil
	})
	w.s.AddTool(&mcp.Tool{
		Name:        "end",
		Description: "Ends every open subscriptions/listen gracefully.",
		InputSchema: emptyObject(),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(fmt.Sprintf("ended %d subscriptions", w.endListens())), nil
	})
	w.s.AddResource(&mcp.Resource{URI: watchResource, Name: "counter", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			w.mu.Lock()
			n := w.pokes
			w.mu.Unlock()
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: watchResource, MIMEType: "text/plain", Text: strconv.Itoa(n)}}}, nil
		})
	w.s.AddReceivingMiddleware(w.receiving)
	w.s.AddSendingMiddleware(w.sending)
	return e.exitStatus(e.serve(ctx, w.s))
}

// receiving logs tools/list, keeps a way to end each listen, and notices
// legacy subscriptions.
func (w *watchServer) receiving(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Logger: watchLogger, Data: "listing tools"})
			}
		case "subscriptions/listen":
			ctx, cancel := context.WithCancel(ctx)
			w.mu.Lock()
			id := w.nextID
			w.nextID++
			w.listens[id] = cancel
			w.mu.Unlock()
			defer func() {
				w.mu.Lock()
				delete(w.listens, id)
				w.mu.Unlock()
				cancel()
			}()
			return next(ctx, method, req)
		case "resources/subscribe":
			res, err := next(ctx, method, req)
			if err == nil {
				w.subscribed(false)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// sending notices acknowledged listens and announced tool list changes.
func (w *watchServer) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		switch method {
		case "notifications/subscriptions/acknowledged":
			w.subscribed(true)
		case "notifications/tools/list_changed":
			w.mu.Lock()
			select {
			case <-w.sentList:
			default:
				close(w.sentList)
			}
			w.mu.Unlock()
		}
		return res, err
	}
}

// subscribed marks a client's subscription for scripts (-ready) and, with
// WATCHSERVER_AUTO=1, pokes; a listen is then ended.
func (w *watchServer) subscribed(listen bool) {
	if w.e.obs.readyPath != "" {
		if err := os.WriteFile(w.e.obs.readyPath, nil, 0o644); err != nil {
			fmt.Fprintf(w.e.stderr, "testserver: creating ready file: %v\n", err)
		}
	}
	if !w.auto {
		return
	}
	go func() {
		w.poke(context.Background(), nil)
		if listen {
			w.endListens()
		}
	}()
}

// poke makes one change of everything (see the mode's doc) and returns
// its number. caller is the session of the request that asked, nil for
// none; ctx carries its requested log level.
func (w *watchServer) poke(ctx context.Context, caller *mcp.ServerSession) int {
	w.mu.Lock()
	w.pokes++
	n := w.pokes
	sent := w.sentList
	announced := len(w.listens) > 0 // someone may have asked for list changes
	w.mu.Unlock()

	for _, level := range []mcp.LoggingLevel{"debug", "info", "warning", "error"} {
		msg := &mcp.LoggingMessageParams{Level: level, Logger: watchLogger, Data: fmt.Sprintf("poke %d: %s", n, level)}
		if caller != nil {
			_ = caller.Log(ctx, msg)
		}
		for ss := range w.s.Sessions() {
			// A modern session has no level of its own: its logs belong to
			// requests, and a listen stream must not carry them.
			if !isLegacySession(ss) {
				continue
			}
			announced = true // legacy sessions get every list change
			if ss != caller {
				_ = ss.Log(context.Background(), msg)
			}
		}
	}
	_ = w.s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: watchResource})
	w.s.AddTool(&mcp.Tool{
		Name:        "extra" + strconv.Itoa(n),
		Description: fmt.Sprintf("Added by poke %d.", n),
		InputSchema: emptyObject(),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("extra"), nil
	})
	w.s.RemoveTools("extra" + strconv.Itoa(n-1))

	// The SDK announces list changes after a short debounce; answering
	// after it keeps the order a script sees.
	if announced {
		select {
		case <-sent:
		case <-ctx.Done():
		case <-time.After(10 * time.Second): // a bound, in case nobody wanted it after all
		}
	}
	w.mu.Lock()
	if w.sentList == sent {
		w.sentList = make(chan struct{})
	}
	w.mu.Unlock()
	return n
}

// endListens ends every open subscriptions/listen and returns how many.
func (w *watchServer) endListens() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.listens)
	for id, cancel := range w.listens {
		cancel()
		delete(w.listens, id)
	}
	return n
}

// isLegacySession reports whether ss speaks a revision before 2026-07-28.
func isLegacySession(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion != "" && p.ProtocolVersion < "2026-07-28"
}
