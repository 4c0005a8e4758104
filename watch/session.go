package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/render"
)

// ProxySessionOptions say which proxy session [ProxySession] follows and how it
// prints it.
type ProxySessionOptions struct {
	// Store is where the proxies keep their sessions.
	Store proxy.Store
	// Ref names the session: "latest", an id, or a unique prefix of one.
	Ref string
	// Printer prints calls and flags on Out, what is watched on ErrOut.
	Printer *render.Printer
	// JSON prints one JSON object per call and flag (NDJSON).
	JSON bool
	// Interval is how often the log is looked at again once read to its
	// end; zero means 100ms.
	Interval time.Duration
	// Redact hides secrets in flag messages; nil leaves them.
	Redact func(string) string
}

// ProxySession follows a proxy session's log as the proxy writes it and prints
// each call once answered and each flag as the proxy's checks raise it,
// until the proxy releases the log's lock (the session ended) or ctx is
// done ([ErrInterrupted]). An ended session is printed and it
// returns. With Ref "latest" and no session yet, it waits for one to
// start. It only reads the log: a slow or stopped watcher never slows the
// proxy.
func ProxySession(ctx context.Context, o ProxySessionOptions) error {
	if o.Interval <= 0 {
		o.Interval = 100 * time.Millisecond
	}
	si, err := findSession(ctx, o)
	if err != nil {
		return err
	}
	state := "ended"
	if si.Running {
		state = "running"
	}
	fmt.Fprintf(o.Printer.ErrOut, "watching proxy session %s (%s)\n", si.ID, state)

	checks := &proxy.Checks{OnCall: o.printCall, OnFlag: o.printFlag}
	last, err := FollowSession(ctx, o.Store, si, o.Interval, checks)
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	// A proxy killed mid-write leaves its last entry cut off: what it
	// wrote before is the session, shown and summed up as any other.
	var cut *proxy.CutOffError
	if errors.As(err, &cut) {
		fmt.Fprintln(o.Printer.ErrOut, render.Warning(cut.Error(), o.Printer.ErrColor))
		err = nil
	}
	if err != nil {
		return err
	}
	checks.End(last)
	sum := checks.Summary()
	fmt.Fprintf(o.Printer.ErrOut, "proxy session %s ended: %d calls, %d flags\n", si.ID, sum.CallCount, len(sum.Flags)+sum.FlagsLost)
	return nil
}

// findSession finds the session o names, waiting for one to start when it
// names the latest and there is none yet.
func findSession(ctx context.Context, o ProxySessionOptions) (proxy.SessionInfo, error) {
	return FindSession(ctx, o.Store, o.Ref, o.Interval, func() {
		fmt.Fprintf(o.Printer.ErrOut, "waiting for a proxy session to start (in %s)\n", o.Store.Dir)
	})
}

// FindSession finds the proxy session ref names in store ("latest", an id
// or a unique prefix of one). When ref names the latest and there is none
// yet, it calls waiting once and looks again every interval until one
// starts or ctx is done ([ErrInterrupted]).
func FindSession(ctx context.Context, store proxy.Store, ref string, interval time.Duration, waiting func()) (proxy.SessionInfo, error) {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	said := false
	for {
		all, err := store.List()
		if err != nil {
			return proxy.SessionInfo{}, fmt.Errorf("listing proxy sessions: %w", err)
		}
		if len(all) > 0 || (ref != "" && ref != "latest") {
			return store.Find(ref)
		}
		if !said && waiting != nil {
			waiting()
		}
		said = true
		if err := pause(ctx, interval); err != nil {
			return proxy.SessionInfo{}, ErrInterrupted
		}
	}
}

// FollowSession reads the log of session si into obs, frame by frame, as
// the proxy writes it: at the log's end it looks again every interval
// while the proxy still holds the log, and returns once the proxy let go
// and the rest was read (an ended session is read whole at once), or when
// ctx is done (then with ctx's error). It returns the time of the last
// entry, for [proxy.Checks.End]. It only reads the log: a slow reader
// never slows the proxy.
func FollowSession(ctx context.Context, store proxy.Store, si proxy.SessionInfo, interval time.Duration, obs proxy.Observer) (time.Time, error) {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	file, err := os.Open(si.Path)
	if err != nil {
		return time.Time{}, fmt.Errorf("opening proxy session %s: %w", si.ID, err)
	}
	defer file.Close()
	f := &follower{ctx: ctx, r: file, interval: interval, running: func() bool {
		now, err := store.Find(si.ID)
		return err == nil && now.Running
	}}
	last, err := proxy.ReadLog(f, "proxy session "+si.ID, obs)
	if ctx.Err() != nil {
		return last, ctx.Err()
	}
	return last, err
}

// pause waits d or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// follower reads a log that is still being written: at its end it looks
// again every interval while running says the writer holds the log, and
// reports the end only after one last read once the writer let go (all its
// writes were made before it did).
type follower struct {
	ctx      context.Context
	r        io.Reader
	interval time.Duration
	running  func() bool
	done     bool
}

func (f *follower) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		if n > 0 || (err != nil && !errors.Is(err, io.EOF)) {
			return n, err
		}
		if f.done {
			return 0, io.EOF
		}
		if !f.running() {
			f.done = true
			continue
		}
		if err := pause(f.ctx, f.interval); err != nil {
			return 0, err
		}
	}
}

// callEvent and flagEvent are the lines of -o json.
type callEvent struct {
	Time  time.Time `json:"time"`
	Event string    `json:"event"`
	proxy.Call
}

type flagEvent struct {
	Event string `json:"event"`
	proxy.Flag
}

func (o ProxySessionOptions) printCall(c proxy.Call) {
	if o.JSON {
		o.printJSON(callEvent{Time: c.Start.Add(c.Latency), Event: "call", Call: c})
		return
	}
	status := "ok"
	switch {
	case c.Error != "":
		status = fmt.Sprintf("error %d: %s", c.ErrorCode, o.redact(c.Error))
	case c.IsError:
		status = "error: isError"
	}
	what := c.Method
	if c.Tool != "" {
		what += " " + c.Tool
	}
	fmt.Fprintf(o.Printer.Out, "%s  %s  %s  %s\n", c.Start.Local().Format("15:04:05.000"), what, c.Latency.Round(time.Microsecond), status)
}

func (o ProxySessionOptions) printFlag(fl proxy.Flag) {
	fl.Msg = o.redact(fl.Msg)
	if o.JSON {
		o.printJSON(flagEvent{Event: "flag", Flag: fl})
		return
	}
	fmt.Fprintf(o.Printer.Out, "%s  flag %s  %s\n", fl.Time.Local().Format("15:04:05.000"), fl.Kind, strings.ReplaceAll(fl.Msg, "\n", " "))
}

func (o ProxySessionOptions) printJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	o.Printer.Out.Write(append(b, '\n'))
}

func (o ProxySessionOptions) redact(s string) string {
	if o.Redact == nil {
		return s
	}
	return o.Redact(s)
}
