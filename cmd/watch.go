package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/session"
)

// WatchOptions are the options of `mcpctl watch`.
type WatchOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// Subscribe are the resource URIs whose updates are wanted.
	Subscribe []string
	// LogLevel asks for server logs at this level and above; "" for none.
	LogLevel string
	// Duration ends the watch after this long; zero means until Ctrl-C.
	Duration time.Duration
	// now is the clock of event times; time.Now unless a test sets it.
	now func() time.Time
}

// NewCmdWatch builds `mcpctl watch`. runF replaces the run function in
// tests.
func NewCmdWatch(f *Factory, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "watch [--subscribe URI]... [--log-level LEVEL] [--duration D] [flags] [-- server command...]",
		Short: "Print a server's notifications as they arrive",
		Long: `Watch a server: print its notifications as they arrive, one line each,
until Ctrl-C (exit 130) or the end of --duration (exit 0):

  log       server log messages at --log-level and above
  progress  progress notifications
  changed   a list changed (tools, resources, prompts): the list is fetched
            again and the line says what changed: +added -removed ~changed
  updated   a resource given with --subscribe changed (read it to see how)

mcpctl asks for list changes of every list the server offers. In the
legacy protocol era that needs no request (the server sends them to every
session), resources are subscribed with resources/subscribe, and
--log-level sends logging/setLevel. In the modern era (2026-07-28) one
subscriptions/listen request carries the subscription, and logs belong to
requests: every request mcpctl sends carries the level, so the log lines are
those of mcpctl's own requests (the lists fetched again). To see the logs of
a tool call, give --log-level to call.

If the server ends the subscription, watch says so and exits 0; if the
connection is lost, it exits 1.

-o json prints one JSON object per line (NDJSON), each with "time"
(RFC 3339) and "event": subscribed, log, progress, list_changed,
resource_updated, ended; the fields of each are those of the example below
and stay stable.`,
		Example: `  mcpctl watch --demo --duration 5s
  mcpctl watch --demo --subscribe demo://readme --log-level debug
  mcpctl watch -o json --log-level info -- npx -y @modelcontextprotocol/server-everything
  mcpctl watch --url http://127.0.0.1:3001/mcp --subscribe file:///project/config.json

  # -o json, one object per line:
  # {"time":"…","event":"log","level":"info","logger":"db","data":"connected"}
  # {"time":"…","event":"progress","progressToken":"t1","progress":1,"total":3,"message":"step 1"}
  # {"time":"…","event":"list_changed","list":"tools","added":["b"],"removed":[],"changed":[]}
  # {"time":"…","event":"resource_updated","uri":"demo://readme"}`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 0 {
				return flagErrorf("watch takes no arguments (got %q); give a server command after --", args[0])
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if opts.Output.Format == "yaml" || opts.Output.JQ != "" {
				return flagErrorf("watch prints text or NDJSON: use -o text or -o json, without --jq")
			}
			if err := checkLogLevelFlag(opts.LogLevel); err != nil {
				return err
			}
			if opts.Duration < 0 {
				return flagErrorf("invalid --duration %s: must not be negative", opts.Duration)
			}
			if runF != nil {
				return runF(opts)
			}
			return watchRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	addLogLevelFlag(cmd, &opts.LogLevel)
	cmd.Flags().StringArrayVar(&opts.Subscribe, "subscribe", nil, "Print updates of the resource at `URI` (repeatable)")
	durationVar(cmd.Flags(), &opts.Duration, "duration", 0, "Stop after this long, e.g. 30s, 5m or a number of seconds, and exit 0 (default: until Ctrl-C)")
	return cmd
}

// addLogLevelFlag registers --log-level, for the commands where a user
// meets server logs.
func addLogLevelFlag(cmd *cobra.Command, level *string) {
	cmd.Flags().StringVar(level, "log-level", "", "Ask the server for its logs at `LEVEL` and above: "+strings.Join(client.LogLevels(), ", "))
	_ = cmd.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions(client.LogLevels(), cobra.ShellCompDirectiveNoFileComp))
}

// checkLogLevelFlag makes an unknown --log-level a usage error.
func checkLogLevelFlag(level string) error {
	if level == "" {
		return nil
	}
	if err := client.CheckLogLevel(level); err != nil {
		return flagErrorf("invalid --log-level: %v", err)
	}
	return nil
}

// applyLogLevel asks the server of s for its logs at level, if one is
// given. A server without the logging capability gets a warning, not a
// failure: it simply has no logs to show.
func applyLogLevel(ctx context.Context, f *Factory, s *session.Session, level string) error {
	if level == "" {
		return nil
	}
	err := s.SetLogLevel(ctx, level)
	var capErr *client.CapabilityError
	if errors.As(err, &capErr) {
		f.Warner().Warn("log-level", "mcpctl: warning: --log-level "+level+": "+err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("asking %s for its logs at %s: %w", s.Name(), level, err)
	}
	return nil
}

// watchQueue carries notifications from the client's read loop, which
// must not block, to the loop that prints them, in order.
type watchQueue struct {
	mu    sync.Mutex
	items []watchItem
	ready chan struct{} // has a token while items is not empty
}

// watchItem is a notification and when it arrived.
type watchItem struct {
	at time.Time
	n  client.Notification
}

func newWatchQueue() *watchQueue { return &watchQueue{ready: make(chan struct{}, 1)} }

func (q *watchQueue) push(it watchItem) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns everything queued.
func (q *watchQueue) take() []watchItem {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// watchList is one list a watcher keeps to say what changed: the kind a
// list_changed notification names, its method and key, the member that
// identifies an item, and the items last fetched.
type watchList struct {
	kind, method, key, id string
	items                 map[string]string // id → the item's compact JSON
}

// watchListKinds returns the lists whose changes watch explains: those a
// list_changed notification names, with their methods and keys from the
// client's one table ([client.ListMethods]) and the member that identifies
// an item.
func watchListKinds() []*watchList {
	var lists []*watchList
	for _, w := range []struct{ kind, id string }{{"tools", "name"}, {"resources", "uri"}, {"prompts", "name"}} {
		l, ok := client.LookupList(w.kind)
		if !ok {
			panic("watch: no list kind " + w.kind)
		}
		lists = append(lists, &watchList{kind: w.kind, method: l.Method, key: l.Key, id: w.id})
	}
	return lists
}

// fetch lists l again and returns what changed since the last fetch.
func (l *watchList) fetch(ctx context.Context, s *session.Session) (added, removed, changed []string, err error) {
	raw, err := s.ListAll(ctx, l.method, l.key)
	if err != nil {
		return nil, nil, nil, err
	}
	items := make(map[string]string, len(raw))
	for _, r := range raw {
		var item map[string]json.RawMessage
		var id string
		if json.Unmarshal(r, &item) != nil || json.Unmarshal(item[l.id], &id) != nil {
			continue // not an item of this list: the result checks report it
		}
		var b bytes.Buffer
		if json.Compact(&b, r) == nil {
			items[id] = b.String()
		}
	}
	added, removed, changed = []string{}, []string{}, []string{}
	for id, v := range items {
		old, ok := l.items[id]
		switch {
		case !ok:
			added = append(added, id)
		case old != v:
			changed = append(changed, id)
		}
	}
	for id := range l.items {
		if _, ok := items[id]; !ok {
			removed = append(removed, id)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(changed)
	l.items = items
	return added, removed, changed, nil
}

// The JSON events of watch -o json. Every event starts with time and event.
type (
	eventHead struct {
		Time  string `json:"time"`
		Event string `json:"event"`
	}
	subscribedEvent struct {
		eventHead
		Server       string   `json:"server"`
		Era          string   `json:"era"`
		Subscription string   `json:"subscription,omitempty"`
		Lists        []string `json:"lists"`
		Resources    []string `json:"resources"`
		LogLevel     string   `json:"logLevel,omitempty"`
	}
	logEvent struct {
		eventHead
		Level  string          `json:"level"`
		Logger string          `json:"logger,omitempty"`
		Data   json.RawMessage `json:"data"`
	}
	progressEvent struct {
		eventHead
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    *float64        `json:"total,omitempty"`
		Message  string          `json:"message,omitempty"`
	}
	listChangedEvent struct {
		eventHead
		List    string   `json:"list"`
		Added   []string `json:"added"`
		Removed []string `json:"removed"`
		Changed []string `json:"changed"`
		Error   string   `json:"error,omitempty"`
	}
	resourceUpdatedEvent struct {
		eventHead
		URI string `json:"uri"`
	}
	endedEvent struct {
		eventHead
		Reason string `json:"reason"`
	}
)

// watcher prints the events of one watch.
type watcher struct {
	opts  *WatchOptions
	s     *session.Session
	p     *render.Printer
	json  bool
	lists map[string]*watchList
}

func watchRun(ctx context.Context, opts *WatchOptions) error {
	f := opts.Factory
	if opts.now == nil {
		opts.now = time.Now
	}
	q := newWatchQueue()
	opts.Server.OnNotification = func(n client.Notification) {
		q.push(watchItem{at: opts.now(), n: n})
	}
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	w := &watcher{opts: opts, s: s, p: f.printer(), json: opts.Output.structured(), lists: map[string]*watchList{}}
	// Ctrl-C is how a watch ends, also while it is still setting up on a
	// server that answers: exit 130, with no error line.
	stopped := func(err error) error {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return &ExitCodeError{Code: ExitInterrupted}
		}
		return err
	}

	if err := applyLogLevel(ctx, f, s, opts.LogLevel); err != nil {
		return stopped(err)
	}
	// What the lists hold now, so that a change can be explained.
	var want client.SubscriptionFilter
	var lists []string
	for _, l := range watchListKinds() {
		if !s.HasCapability(l.kind) {
			continue
		}
		if _, _, _, err := l.fetch(ctx, s); err != nil {
			return stopped(fmt.Errorf("listing the %s of %s: %w", l.kind, s.Name(), err))
		}
		w.lists[l.kind] = l
		lists = append(lists, l.kind)
		wantListChanges(&want, l.kind)
	}
	want.ResourceSubscriptions = opts.Subscribe
	sub, err := s.Subscribe(ctx, want)
	if err != nil {
		return stopped(fmt.Errorf("subscribing to the notifications of %s: %w", s.Name(), err))
	}
	defer sub.Close()
	w.subscribed(sub, lists)

	var timeout <-chan time.Time
	if opts.Duration > 0 {
		t := time.NewTimer(opts.Duration)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case <-q.ready:
			if err := w.print(ctx, q.take()); err != nil {
				return err
			}
			continue
		default:
		}
		select {
		case <-q.ready:
			if err := w.print(ctx, q.take()); err != nil {
				return err
			}
		case <-timeout:
			return w.print(ctx, q.take())
		case <-ctx.Done():
			// Ctrl-C is how a watch ends: exit 130, with no error line.
			return &ExitCodeError{Code: ExitInterrupted}
		case <-sub.Done():
			return w.ended(ctx, q, sub.Err())
		case <-s.Done():
			// The subscription sees the end too; let it say why.
			<-sub.Done()
			return w.ended(ctx, q, sub.Err())
		}
	}
}

// subscribed reports what the watch is waiting for: on stderr as text, or
// as the first event with -o json. What the server would not agree to is
// warned about.
func (w *watcher) subscribed(sub *client.Subscription, lists []string) {
	got := sub.Filter()
	agreed := map[string]bool{"tools": got.ToolsListChanged, "resources": got.ResourcesListChanged, "prompts": got.PromptsListChanged}
	var kept []string
	for _, l := range lists {
		if agreed[l] {
			kept = append(kept, l)
		}
	}
	for _, uri := range w.opts.Subscribe {
		if !slices.Contains(got.ResourceSubscriptions, uri) {
			w.opts.Factory.Warner().Warn("subscribe "+uri, fmt.Sprintf("mcpctl: warning: the server does not offer updates of %s (it did not agree to the subscription)", uri))
		}
	}
	info := w.s.InitializeResult().ServerInfo
	server := strings.TrimSpace(info.Name + " " + info.Version)
	if w.json {
		_ = w.emit(subscribedEvent{eventHead: w.head(w.opts.now(), "subscribed"), Server: server, Era: w.s.Era(),
			Subscription: sub.ID(), Lists: orEmpty(kept), Resources: orEmpty(got.ResourceSubscriptions), LogLevel: w.s.LogLevel()})
		return
	}
	var what []string
	if len(kept) > 0 {
		what = append(what, "changes of "+strings.Join(kept, ", "))
	}
	if len(got.ResourceSubscriptions) > 0 {
		what = append(what, "updates of "+strings.Join(got.ResourceSubscriptions, ", "))
	}
	if lvl := w.s.LogLevel(); lvl != "" {
		what = append(what, "logs at "+lvl+" and above")
	}
	if len(what) == 0 {
		what = append(what, "notifications")
	}
	fmt.Fprintf(w.opts.Factory.IOStreams.ErrOut, "watching %s (%s era) for %s; Ctrl-C to stop\n",
		w.p.UntrustedErr(server), w.s.Era(), strings.Join(what, "; "))
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// emit prints one event as one line of compact JSON (NDJSON).
func (w *watcher) emit(v any) error {
	data, err := marshalJSON(v) // compact, with its newline
	if err != nil {
		return err
	}
	_, err = w.p.Out.Write(data)
	return err
}

func (w *watcher) head(at time.Time, event string) eventHead {
	return eventHead{Time: at.Format(time.RFC3339Nano), Event: event}
}

// print prints queued notifications in the order they arrived.
func (w *watcher) print(ctx context.Context, items []watchItem) error {
	for _, it := range items {
		if err := w.event(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// event prints one notification; a list change is explained by fetching
// the list again.
func (w *watcher) event(ctx context.Context, it watchItem) error {
	n := it.n
	out := w.p.Out
	at := it.at
	stamp := render.Dim(at.Format("15:04:05.000"), w.p.Color)
	switch {
	case n.Log != nil:
		if w.json {
			return w.emit(logEvent{eventHead: w.head(at, "log"), Level: n.Log.Level, Logger: n.Log.Logger, Data: n.Log.Data})
		}
		text := n.Log.Text()
		if n.Log.Logger != "" {
			text = n.Log.Logger + ": " + text
		}
		line := fmt.Sprintf("log %s %s", n.Log.Level, w.p.Untrusted(text))
		if n.Log.Level == "debug" {
			line = render.Dim(line, w.p.Color)
		}
		_, err := fmt.Fprintln(out, stamp+" "+line)
		return err
	case n.Progress != nil:
		pr := n.Progress
		if w.json {
			return w.emit(progressEvent{eventHead: w.head(at, "progress"), Token: pr.Token, Progress: pr.Progress, Total: pr.Total, Message: pr.Message})
		}
		line := "progress " + strconv.FormatFloat(pr.Progress, 'g', -1, 64)
		if pr.Total != nil {
			line += "/" + strconv.FormatFloat(*pr.Total, 'g', -1, 64)
		}
		if pr.Message != "" {
			line += " " + w.p.Untrusted(pr.Message)
		}
		_, err := fmt.Fprintln(out, stamp+" "+line)
		return err
	case n.ResourceUpdated != nil:
		if w.json {
			return w.emit(resourceUpdatedEvent{eventHead: w.head(at, "resource_updated"), URI: n.ResourceUpdated.URI})
		}
		_, err := fmt.Fprintln(out, stamp+" updated "+w.p.Untrusted(n.ResourceUpdated.URI))
		return err
	case n.ListChanged != "":
		return w.listChanged(ctx, at, n.ListChanged)
	}
	return nil // other notifications are not watch's to show
}

// listChanged fetches the list again and says what changed. A list that
// cannot be fetched is reported in the event, and the watch goes on.
func (w *watcher) listChanged(ctx context.Context, at time.Time, kind string) error {
	ev := listChangedEvent{eventHead: w.head(at, "list_changed"), List: kind, Added: []string{}, Removed: []string{}, Changed: []string{}}
	if l, ok := w.lists[kind]; ok {
		added, removed, changed, err := l.fetch(ctx, w.s)
		if err != nil {
			if ctx.Err() != nil {
				return &ExitCodeError{Code: ExitInterrupted}
			}
			ev.Error = "listing again: " + err.Error()
		} else {
			ev.Added, ev.Removed, ev.Changed = added, removed, changed
		}
	}
	if w.json {
		return w.emit(ev)
	}
	var parts []string
	for _, a := range ev.Added {
		parts = append(parts, "+"+w.p.Untrusted(a))
	}
	for _, r := range ev.Removed {
		parts = append(parts, "-"+w.p.Untrusted(r))
	}
	for _, c := range ev.Changed {
		parts = append(parts, "~"+w.p.Untrusted(c))
	}
	what := strings.Join(parts, " ")
	switch {
	case ev.Error != "":
		what = "(" + w.p.Untrusted(ev.Error) + ")"
	case len(parts) == 0 && w.lists[kind] == nil:
		what = "(not listed: the server did not declare it)"
	case len(parts) == 0:
		what = "(no difference)"
	}
	_, err := fmt.Fprintln(w.p.Out, render.Dim(at.Format("15:04:05.000"), w.p.Color)+" changed "+kind+": "+what)
	return err
}

// ended handles the end of the subscription: what arrived before it is
// printed first. The server ending it is a normal end (exit 0); a lost
// connection is an error.
func (w *watcher) ended(ctx context.Context, q *watchQueue, why error) error {
	if err := w.print(ctx, q.take()); err != nil {
		return err
	}
	var ended *client.SubscriptionEndedError
	if errors.As(why, &ended) && ended.Err != nil {
		return fmt.Errorf("watching %s: %w", w.s.Name(), ended.Err)
	}
	reason := "the server ended the subscription"
	if why != nil {
		reason = why.Error()
	}
	if w.json {
		return w.emit(endedEvent{eventHead: w.head(w.opts.now(), "ended"), Reason: reason})
	}
	fmt.Fprintln(w.opts.Factory.IOStreams.ErrOut, "mcpctl: "+w.p.UntrustedErr(reason))
	return nil
}

// wantListChanges adds the list changes of kind (tools, resources or
// prompts) to what a subscription asks for.
func wantListChanges(want *client.SubscriptionFilter, kind string) {
	switch kind {
	case "tools":
		want.ToolsListChanged = true
	case "resources":
		want.ResourcesListChanged = true
	case "prompts":
		want.PromptsListChanged = true
	}
}
