// Package watch prints a server's notifications as they arrive: logs,
// progress, resource updates, and list changes explained by listing the
// list again (+added -removed ~changed). It is the engine of `mcpctl watch`
// and the notification printer of `mcpctl shell`.
//
// A watch talks to its server through [Session], whose methods are those
// of [*client.Client] of the same names, so a client or any session that
// wraps one will do. Notifications reach a watch through a [Queue] that
// the session's notification callback pushes to.
package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// Session is what a watch needs of a connected session. The methods have
// the names and signatures of [*client.Client]'s.
type Session interface {
	HasCapability(name string) bool
	ListAll(ctx context.Context, method, key string) ([]json.RawMessage, error)
	Subscribe(ctx context.Context, want client.SubscriptionFilter) (*client.Subscription, error)
	InitializeResult() *client.InitializeResult
	Era() string
	LogLevel() string
	Done() <-chan struct{}
}

// ErrInterrupted is what a watch returns when its context was cancelled:
// the user stopped it (Ctrl-C), which is how a watch ends.
var ErrInterrupted = errors.New("watch interrupted")

// Options say what a watch prints and where.
type Options struct {
	// Server names the server in messages.
	Server string
	// Printer prints the events on its Out; what is watched and why the
	// watch ended go to its ErrOut.
	Printer *render.Printer
	// JSON prints one JSON object per event and line (NDJSON) instead of
	// text.
	JSON bool
	// Now is the clock of the events the watch makes itself (subscribed,
	// ended); nil means time.Now.
	Now func() time.Time
	// Warn prints a warning of a kind; nil discards it.
	Warn func(kind, msg string)
	// Subscribe are the URIs of the resources whose updates [Run] asks for.
	Subscribe []string
	// Duration ends [Run] after this long; zero means when ctx is done.
	Duration time.Duration
	// Quiet leaves out, in text, a list change that changed nothing
	// (servers announce changes at start that are none). JSON events
	// are all kept: a script may count them.
	Quiet bool
}

// Watcher prints the events of one watch. Its methods are for one
// goroutine at a time.
type Watcher struct {
	s     Session
	opts  Options
	lists map[string]*list
}

// New returns a watcher of s that follows no list yet (see
// [Watcher.Follow]).
func New(s Session, opts Options) *Watcher {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Printer == nil {
		opts.Printer = &render.Printer{}
	}
	return &Watcher{s: s, opts: opts, lists: map[string]*list{}}
}

// Follow lists the list of kind (one of [ListKinds]) so that its changes
// can be explained. A list not followed is reported as changed without
// saying how.
func (w *Watcher) Follow(ctx context.Context, kind string) error {
	l, ok := newList(kind)
	if !ok {
		return fmt.Errorf("watch: no list kind %q", kind)
	}
	if _, _, _, err := l.fetch(ctx, w.s); err != nil {
		return err
	}
	w.lists[kind] = l
	return nil
}

// Follows reports whether the list kind is followed.
func (w *Watcher) Follows(kind string) bool { return w.lists[kind] != nil }

// Following reports whether any list is followed.
func (w *Watcher) Following() bool { return len(w.lists) > 0 }

// Run watches s until ctx is done ([ErrInterrupted]), opts.Duration has
// passed or the server ends the subscription (nil), or the connection is
// lost (an error). It follows every list the server offers and asks for
// their changes and the updates of opts.Subscribe; q is the queue the
// session's notifications are pushed to.
func Run(ctx context.Context, s Session, q *Queue, opts Options) error {
	w := New(s, opts)
	stopped := func(err error) error {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return ErrInterrupted
		}
		return err
	}
	// What the lists hold now, so that a change can be explained.
	var want client.SubscriptionFilter
	var lists []string
	for _, kind := range ListKinds() {
		if !s.HasCapability(kind) {
			continue
		}
		if err := w.Follow(ctx, kind); err != nil {
			return stopped(fmt.Errorf("listing the %s of %s: %w", kind, w.opts.Server, err))
		}
		lists = append(lists, kind)
		WantListChanges(&want, kind)
	}
	want.ResourceSubscriptions = w.opts.Subscribe
	sub, err := s.Subscribe(ctx, want)
	if err != nil {
		return stopped(fmt.Errorf("subscribing to the notifications of %s: %w", w.opts.Server, err))
	}
	defer sub.Close()
	w.subscribed(sub, lists)

	var timeout <-chan time.Time
	if w.opts.Duration > 0 {
		t := time.NewTimer(w.opts.Duration)
		defer t.Stop()
		timeout = t.C
	}
	for {
		// What has arrived is printed before the end is looked at.
		select {
		case <-q.Ready():
			if err := w.Print(ctx, q.Take()); err != nil {
				return err
			}
			continue
		default:
		}
		select {
		case <-q.Ready():
			if err := w.Print(ctx, q.Take()); err != nil {
				return err
			}
		case <-timeout:
			return w.Print(ctx, q.Take())
		case <-ctx.Done():
			return ErrInterrupted
		case <-sub.Done():
			return w.ended(ctx, q, sub.Err())
		case <-s.Done():
			// The subscription sees the end too; let it say why.
			<-sub.Done()
			return w.ended(ctx, q, sub.Err())
		}
	}
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

// errOut is where status lines go.
func (w *Watcher) errOut() io.Writer {
	if w.opts.Printer.ErrOut == nil {
		return io.Discard
	}
	return w.opts.Printer.ErrOut
}

func (w *Watcher) warn(kind, msg string) {
	if w.opts.Warn != nil {
		w.opts.Warn(kind, msg)
	}
}

// subscribed reports what the watch is waiting for: on ErrOut as text, or
// as the first event with JSON. What the server would not agree to is
// warned about.
func (w *Watcher) subscribed(sub *client.Subscription, lists []string) {
	p := w.opts.Printer
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
			w.warn("subscribe "+uri, fmt.Sprintf("mcpctl: warning: the server does not offer updates of %s (it did not agree to the subscription)", uri))
		}
	}
	info := w.s.InitializeResult().ServerInfo
	server := strings.TrimSpace(info.Name + " " + info.Version)
	if w.opts.JSON {
		_ = w.emit(subscribedEvent{eventHead: head(w.opts.Now(), "subscribed"), Server: server, Era: w.s.Era(),
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
	fmt.Fprintf(w.errOut(), "watching %s (%s era) for %s; Ctrl-C to stop\n",
		p.UntrustedErr(server), w.s.Era(), strings.Join(what, "; "))
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// emit prints one event as one line of compact JSON (NDJSON), without
// HTML escaping, as mcpctl prints JSON.
func (w *Watcher) emit(v any) error {
	out := w.opts.Printer.Out
	if out == nil {
		out = io.Discard
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("printing an event: %w", err)
	}
	return nil
}

func head(at time.Time, event string) eventHead {
	return eventHead{Time: at.Format(time.RFC3339Nano), Event: event}
}

// Print prints notifications in the order they arrived. A list change is
// explained by listing the list again, with ctx; if ctx is done by then,
// Print returns [ErrInterrupted].
func (w *Watcher) Print(ctx context.Context, items []Item) error {
	for _, it := range items {
		if err := w.event(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// println writes a line of text to the printer's Out.
func (w *Watcher) println(line string) error {
	out := w.opts.Printer.Out
	if out == nil {
		return nil
	}
	_, err := fmt.Fprintln(out, line)
	return err
}

// event prints one notification; other notifications than logs,
// progress, updates and list changes are not a watch's to show.
func (w *Watcher) event(ctx context.Context, it Item) error {
	p := w.opts.Printer
	n := it.N
	at := it.At
	stamp := render.Dim(at.Format("15:04:05.000"), p.Color)
	switch {
	case n.Log != nil:
		if w.opts.JSON {
			return w.emit(logEvent{eventHead: head(at, "log"), Level: n.Log.Level, Logger: n.Log.Logger, Data: n.Log.Data})
		}
		text := n.Log.Text()
		if n.Log.Logger != "" {
			text = n.Log.Logger + ": " + text
		}
		line := fmt.Sprintf("log %s %s", n.Log.Level, p.Untrusted(text))
		if n.Log.Level == "debug" {
			line = render.Dim(line, p.Color)
		}
		return w.println(stamp + " " + line)
	case n.Progress != nil:
		pr := n.Progress
		if w.opts.JSON {
			return w.emit(progressEvent{eventHead: head(at, "progress"), Token: pr.Token, Progress: pr.Progress, Total: pr.Total, Message: pr.Message})
		}
		line := "progress " + strconv.FormatFloat(pr.Progress, 'g', -1, 64)
		if pr.Total != nil {
			line += "/" + strconv.FormatFloat(*pr.Total, 'g', -1, 64)
		}
		if pr.Message != "" {
			line += " " + p.Untrusted(pr.Message)
		}
		return w.println(stamp + " " + line)
	case n.ResourceUpdated != nil:
		if w.opts.JSON {
			return w.emit(resourceUpdatedEvent{eventHead: head(at, "resource_updated"), URI: n.ResourceUpdated.URI})
		}
		return w.println(stamp + " updated " + p.Untrusted(n.ResourceUpdated.URI))
	case n.ListChanged != "":
		return w.listChanged(ctx, at, n.ListChanged)
	}
	return nil
}

// listChanged lists the list again and says what changed. A list that
// cannot be listed is reported in the event, and the watch goes on.
func (w *Watcher) listChanged(ctx context.Context, at time.Time, kind string) error {
	p := w.opts.Printer
	ev := listChangedEvent{eventHead: head(at, "list_changed"), List: kind, Added: []string{}, Removed: []string{}, Changed: []string{}}
	if l, ok := w.lists[kind]; ok {
		added, removed, changed, err := l.fetch(ctx, w.s)
		if err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			ev.Error = "listing again: " + err.Error()
		} else {
			ev.Added, ev.Removed, ev.Changed = added, removed, changed
		}
	}
	if w.opts.JSON {
		return w.emit(ev)
	}
	var parts []string
	for _, a := range ev.Added {
		parts = append(parts, "+"+p.Untrusted(a))
	}
	for _, r := range ev.Removed {
		parts = append(parts, "-"+p.Untrusted(r))
	}
	for _, c := range ev.Changed {
		parts = append(parts, "~"+p.Untrusted(c))
	}
	what := strings.Join(parts, " ")
	switch {
	case ev.Error != "":
		what = "(" + p.Untrusted(ev.Error) + ")"
	case len(parts) == 0 && w.lists[kind] == nil:
		what = "(not listed: the server did not declare it)"
	case len(parts) == 0 && w.opts.Quiet:
		return nil
	case len(parts) == 0:
		what = "(no difference)"
	}
	return w.println(render.Dim(at.Format("15:04:05.000"), p.Color) + " changed " + kind + ": " + what)
}

// ended handles the end of the subscription: what arrived before it is
// printed first. The server ending it is a normal end (nil); a lost
// connection is an error.
func (w *Watcher) ended(ctx context.Context, q *Queue, why error) error {
	if err := w.Print(ctx, q.Take()); err != nil {
		return err
	}
	var ended *client.SubscriptionEndedError
	if errors.As(why, &ended) && ended.Err != nil {
		return fmt.Errorf("watching %s: %w", w.opts.Server, ended.Err)
	}
	reason := "the server ended the subscription"
	if why != nil {
		reason = why.Error()
	}
	if w.opts.JSON {
		return w.emit(endedEvent{eventHead: head(w.opts.Now(), "ended"), Reason: reason})
	}
	fmt.Fprintln(w.errOut(), "mcpctl: "+w.opts.Printer.UntrustedErr(reason))
	return nil
}
