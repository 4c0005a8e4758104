package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/approval"
	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/watch"
)

// SessionOptions configure [RunSession], the ui of a proxy session.
type SessionOptions struct {
	// Store is where the proxies keep their sessions.
	Store proxy.Store
	// Ref names the session: "latest", an id, or a unique prefix of one.
	Ref string
	// Approvals is the queue of held calls the keys a and d decide, as
	// `mcpctl proxy approve` and `deny` do; nil shows no approvals.
	Approvals *approval.Store
	// By names who decides, as the audit records it (the OS user).
	By string
	// Color allows colour and other escape sequences in the screen's text.
	Color bool
	// Interval is how often a running session's log is looked at again
	// once read to its end, and the approvals queue; zero means 250ms.
	Interval time.Duration
	// MaxFrames is how many of the newest frames are kept in memory (zero:
	// 5000); older ones are paged from the log with [ and ].
	MaxFrames int
	// Redact hides secrets in flag messages; nil leaves them.
	Redact func(string) string
	// Location is the time zone times are shown in; nil is the local one.
	Location *time.Location
	// Now is the clock of the approvals' ages; nil is time.Now.
	Now func() time.Time
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
}

// RunSession runs the ui of a proxy session until the user leaves it or
// ctx ends; the terminal is restored on every way out, as [Run] restores
// it. A session that cannot be found is the error returned.
func RunSession(ctx context.Context, opts SessionOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := NewSession(ctx, opts)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithAltScreen(), tea.WithInput(opts.In), tea.WithOutput(opts.Out))
	final, err := p.Run()
	fm, _ := final.(*SessionModel)
	if fm == nil {
		fm = m
	}
	if errors.Is(err, tea.ErrProgramPanic) {
		return fmt.Errorf("ui: internal error (the terminal was restored): %w", err)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	return fm.findErr
}

// spane is one of the session screen's tabs.
type spane int

const (
	spaneCalls spane = iota
	spaneFrames
	spaneFlags
	spaneTools
	spaneApprovals
	spaneCount
)

var spaneNames = [spaneCount]string{"Calls", "Frames", "Flags", "Tools", "Approvals"}

// Bounds on what the session screen keeps besides the frames.
const (
	maxSessionCalls = 5000
	maxSessionFlags = 2000
	// maxLatencies is how many of a tool's newest latencies its
	// percentiles are taken over.
	maxLatencies = 4096
	// maxFrameBytes is how much of a frame is kept for its JSON view; the
	// log has it whole.
	maxFrameBytes = 16 << 10
)

// SessionModel is the state of the proxy session screen; Update and View
// are those of bubbletea.
type SessionModel struct {
	opts SessionOptions
	ctx  context.Context
	st   *styles
	feed *sessionFeed

	width, height int

	si      proxy.SessionInfo
	found   bool
	findErr error
	ended   bool
	endErr  error
	server  string // serverInfo name and version
	version string

	pane   spane
	mode   mode
	lists  [spaneCount]list
	filter textinput.Model
	reason textinput.Model
	// denying is the held call whose deny reason is being typed.
	denying string
	text    textView
	status  string

	frames     []sframe // the newest frames
	frameTotal int      // frames read so far
	// page, when set, are older frames read back from the log.
	page *framePage

	calls     []proxy.Call
	callSeq   []int // each kept call's number
	callTotal int
	pending   map[string]int // request key → call number, while unanswered

	stats map[string]*toolStats

	flags     []proxy.Flag
	flagTotal int
	kinds     map[string]int

	held []approval.Entry
}

// sframe is one frame as the screen keeps it.
type sframe struct {
	at     time.Time
	dir    proxy.Direction
	method string
	id     string
	size   int64
	data   []byte // the first maxFrameBytes
}

// framePage is a page of older frames, numbered from from.
type framePage struct {
	from   int
	frames []sframe
	err    error
}

// toolStats are a tool's (or a method's) calls.
type toolStats struct {
	calls, errors int
	latencies     []time.Duration // the newest maxLatencies
	next          int
}

func (t *toolStats) add(c proxy.Call) {
	t.calls++
	if c.Error != "" || c.IsError {
		t.errors++
	}
	if len(t.latencies) < maxLatencies {
		t.latencies = append(t.latencies, c.Latency)
		return
	}
	t.latencies[t.next] = c.Latency
	t.next = (t.next + 1) % maxLatencies
}

// percentile is the nearest-rank percentile p (0–100) of the latencies.
func (t *toolStats) percentile(p int) time.Duration {
	if len(t.latencies) == 0 {
		return 0
	}
	s := slices.Clone(t.latencies)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(len(s)-1, i))]
}

// NewSession returns the model of the screen opts describes.
func NewSession(ctx context.Context, opts SessionOptions) *SessionModel {
	if opts.Interval <= 0 {
		opts.Interval = 250 * time.Millisecond
	}
	if opts.MaxFrames <= 0 {
		opts.MaxFrames = 5000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	st := newStyles(opts.Color)
	m := &SessionModel{opts: opts, ctx: ctx, st: st, feed: newSessionFeed(), width: 80, height: 24,
		pending: map[string]int{}, stats: map[string]*toolStats{}, kinds: map[string]int{}}
	m.filter = newInput(st, "")
	m.filter.Prompt = "/"
	m.reason = newInput(st, "")
	m.reason.Prompt = "reason: "
	for i := range m.lists {
		m.lists[i] = newList(nil)
	}
	return m
}

// Init starts reading the session and the approvals queue.
func (m *SessionModel) Init() tea.Cmd {
	return tea.Batch(m.find(), m.feed.wait(m.ctx), m.pollApprovals(0))
}

// foundMsg is the session found (or not).
type foundMsg struct {
	si  proxy.SessionInfo
	err error
}

// Messages from the goroutine that reads the log.
type (
	sessFrameMsg struct{ f sframe }
	sessCallMsg  struct{ c proxy.Call }
	sessFlagMsg  struct{ fl proxy.Flag }
	sessEndMsg   struct{ err error }
	waitingMsg   struct{}
)

func (m *SessionModel) find() tea.Cmd {
	ctx, o, feed := m.ctx, m.opts, m.feed
	return func() tea.Msg {
		si, err := watch.FindSession(ctx, o.Store, o.Ref, o.Interval, func() { feed.push(ctx, waitingMsg{}) })
		return foundMsg{si: si, err: err}
	}
}

// follow reads the session's log on a goroutine of its own, through the
// proxy's own checks, handing what it finds to the feed.
func (m *SessionModel) follow() {
	ctx, o, feed, si := m.ctx, m.opts, m.feed, m.si
	go func() {
		checks := &proxy.Checks{
			OnCall: func(c proxy.Call) { feed.push(ctx, sessCallMsg{c: c}) },
			OnFlag: func(fl proxy.Flag) { feed.push(ctx, sessFlagMsg{fl: fl}) },
		}
		obs := proxy.Observers{frameSink(func(f proxy.Frame) { feed.push(ctx, sessFrameMsg{f: keepFrame(f)}) }), checks}
		last, err := watch.FollowSession(ctx, o.Store, si, o.Interval, obs)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			checks.End(last)
		}
		feed.push(ctx, sessEndMsg{err: err})
	}()
}

// frameSink is an observer of frames alone.
type frameSink func(proxy.Frame)

func (s frameSink) Frame(f proxy.Frame) { s(f) }
func (s frameSink) Event(proxy.Event)   {}

// keepFrame is f as the screen keeps it: its envelope read, its data cut
// to maxFrameBytes.
func keepFrame(f proxy.Frame) sframe {
	sf := sframe{at: f.Time, dir: f.Dir, size: f.Size}
	data := f.Data
	if len(data) > maxFrameBytes {
		data = data[:maxFrameBytes]
	}
	sf.data = slices.Clone(data)
	for msg := range proxy.Messages(f.Data) {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(msg, &env) == nil {
			sf.method = env.Method
			if len(env.ID) > 0 && string(env.ID) != "null" {
				sf.id = requestKey(env.ID)
			}
		}
		break
	}
	return sf
}

// requestKey is an id as [proxy.Checks] matches requests and answers by:
// numbers and plain strings as written, anything else canonical.
func requestKey(raw json.RawMessage) string {
	if !strings.ContainsAny(string(raw), "\\ .eE\t\n\r") {
		return string(raw)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// approvalsMsg is the approvals queue as last read.
type approvalsMsg struct {
	held []approval.Entry
	err  error
}

// pollApprovals reads the approvals queue after d, and again after each
// read.
func (m *SessionModel) pollApprovals(d time.Duration) tea.Cmd {
	if m.opts.Approvals == nil {
		return nil
	}
	store := *m.opts.Approvals
	read := func() tea.Msg {
		all, err := store.List()
		held := make([]approval.Entry, 0, len(all))
		for _, e := range all {
			if e.State == approval.Pending {
				held = append(held, e)
			}
		}
		return approvalsMsg{held: held, err: err}
	}
	if d == 0 {
		return read
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return pollMsg{} })
}

// pollMsg is the time to read the approvals queue again.
type pollMsg struct{}

// decidedMsg is the outcome of an approve or a deny.
type decidedMsg struct {
	word string
	e    approval.Entry
	err  error
}

func (m *SessionModel) decide(id string, approve bool, reason string) tea.Cmd {
	store, by := *m.opts.Approvals, m.opts.By
	return func() tea.Msg {
		if approve {
			e, err := store.Approve(id, by)
			return decidedMsg{word: "approved", e: e, err: err}
		}
		e, err := store.Deny(id, by, reason)
		return decidedMsg{word: "denied", e: e, err: err}
	}
}

// pageMsg is a page of older frames read back from the log.
type pageMsg struct{ p framePage }

// loadPage reads frames [from, from+MaxFrames) back from the session's
// log: memory holds the newest frames only, the log has them all.
func (m *SessionModel) loadPage(from int) tea.Cmd {
	path, id, n := m.si.Path, m.si.ID, m.opts.MaxFrames
	return func() tea.Msg {
		p := framePage{from: from}
		file, err := os.Open(path)
		if err != nil {
			p.err = err
			return pageMsg{p: p}
		}
		defer file.Close()
		i := 0
		_, err = proxy.ReadLog(file, "proxy session "+id, frameSink(func(f proxy.Frame) {
			if i >= from && i < from+n {
				p.frames = append(p.frames, keepFrame(f))
			}
			i++
		}))
		p.err = err
		return pageMsg{p: p}
	}
}

// Update handles one message.
func (m *SessionModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
	case foundMsg:
		if msg.err != nil {
			m.findErr = msg.err
			return m, tea.Quit
		}
		m.si, m.found = msg.si, true
		m.follow()
	case sessionBatch:
		for _, e := range msg {
			m.take(e)
		}
		return m, m.feed.wait(m.ctx)
	case pollMsg:
		return m, m.pollApprovals(0)
	case approvalsMsg:
		m.setHeld(msg)
		return m, m.pollApprovals(m.opts.Interval)
	case decidedMsg:
		if msg.err != nil {
			m.status = oneLine(msg.err.Error())
		} else {
			m.status = msg.word + " " + msg.e.ID + ": " + oneLine(msg.e.Tool)
		}
		return m, m.pollApprovals(0)
	case pageMsg:
		if msg.p.err != nil {
			m.status = "reading older frames: " + oneLine(msg.p.err.Error())
			return m, nil
		}
		m.showPage(&msg.p)
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// take takes one message of the log's reader.
func (m *SessionModel) take(e tea.Msg) {
	switch e := e.(type) {
	case waitingMsg:
		m.status = "waiting for a proxy session to start (in " + m.opts.Store.Dir + ")"
	case sessFrameMsg:
		m.addFrame(e.f)
	case sessCallMsg:
		m.answered(e.c)
	case sessFlagMsg:
		m.addFlag(e.fl)
	case sessEndMsg:
		m.ended, m.endErr = true, e.err
		m.si.Running = false
	}
}

func (m *SessionModel) addFrame(f sframe) {
	m.frameTotal++
	if f.method != "" && f.id != "" {
		c := proxy.Call{ID: f.id, Method: f.method, Dir: f.dir.String(), Start: f.at, Pending: true}
		if f.method == "tools/call" {
			c.Tool = toolName(f.data)
		}
		m.pending[c.Dir+" "+c.ID] = m.callTotal
		m.addCall(c)
	}
	if f.method == "initialize" || f.method == "" {
		m.serverOf(f)
	}
	m.frames = append(m.frames, f)
	l := &m.lists[spaneFrames]
	if m.page == nil {
		l.items = append(l.items, m.frameEntry(f))
		l.appendShown()
	}
	if len(m.frames) > m.opts.MaxFrames {
		cut := max(1, m.opts.MaxFrames/10)
		m.frames = m.frames[cut:]
		if m.page == nil {
			l.items = l.items[cut:]
			l.apply()
		}
	}
}

// serverOf notes the server's name and the revision from an answer to
// initialize (or the first answer that has them).
func (m *SessionModel) serverOf(f sframe) {
	if m.server != "" || f.dir != proxy.ServerToHost {
		return
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	if json.Unmarshal(f.data, &r) != nil || r.Result.ServerInfo.Name == "" {
		return
	}
	m.server = strings.TrimSpace(oneLine(r.Result.ServerInfo.Name + " " + r.Result.ServerInfo.Version))
	m.version = oneLine(r.Result.ProtocolVersion)
}

func toolName(data []byte) string {
	var r struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal(data, &r)
	return r.Params.Name
}

func (m *SessionModel) addCall(c proxy.Call) {
	m.calls = append(m.calls, c)
	m.callSeq = append(m.callSeq, m.callTotal)
	m.callTotal++
	l := &m.lists[spaneCalls]
	l.items = append(l.items, m.callEntry(c))
	l.appendShown()
	if len(m.calls) > maxSessionCalls {
		cut := maxSessionCalls / 10
		m.calls, m.callSeq = m.calls[cut:], m.callSeq[cut:]
		l.items = l.items[cut:]
		l.apply()
	}
}

// answered updates a call once the checks saw its answer.
func (m *SessionModel) answered(c proxy.Call) {
	key := c.Dir + " " + c.ID
	seq, ok := m.pending[key]
	delete(m.pending, key)
	s := m.stats[statsKey(c)]
	if s == nil {
		s = &toolStats{}
		m.stats[statsKey(c)] = s
	}
	s.add(c)
	m.refreshTools()
	if !ok || len(m.callSeq) == 0 {
		return
	}
	i := seq - m.callSeq[0]
	if i < 0 || i >= len(m.calls) {
		return
	}
	m.calls[i] = c
	m.lists[spaneCalls].items[i] = m.callEntry(c)
}

// statsKey is what a call is counted under: its tool, or its method.
func statsKey(c proxy.Call) string {
	if c.Tool != "" {
		return c.Tool
	}
	return c.Method
}

func (m *SessionModel) addFlag(fl proxy.Flag) {
	if m.opts.Redact != nil {
		fl.Msg = m.opts.Redact(fl.Msg)
	}
	m.flagTotal++
	m.kinds[fl.Kind]++
	m.flags = append(m.flags, fl)
	l := &m.lists[spaneFlags]
	l.items = append(l.items, newEntry(fl.Kind, fl.Msg))
	l.appendShown()
	if len(m.flags) > maxSessionFlags {
		cut := maxSessionFlags / 10
		m.flags = m.flags[cut:]
		l.items = l.items[cut:]
		l.apply()
	}
}

// refreshTools redraws the per-tool table's rows, sorted by name.
func (m *SessionModel) refreshTools() {
	names := make([]string, 0, len(m.stats))
	for name := range m.stats {
		names = append(names, name)
	}
	slices.Sort(names)
	l := &m.lists[spaneTools]
	cursor := l.cursor
	items := make([]entry, len(names))
	for i, name := range names {
		items[i] = newEntry(name, "")
	}
	l.items = items
	filter := l.filter
	l.setFilter(filter)
	l.cursor = min(cursor, max(0, len(l.shown)-1))
}

func (m *SessionModel) setHeld(msg approvalsMsg) {
	if msg.err != nil {
		m.status = "reading held calls: " + oneLine(msg.err.Error())
		return
	}
	var held []approval.Entry
	for _, e := range msg.held {
		// The calls of this session, and those no session claims.
		if !m.found || e.SessionID == "" || e.SessionID == m.si.ID {
			held = append(held, e)
		}
	}
	same := len(held) == len(m.held)
	for i := 0; same && i < len(held); i++ {
		same = held[i].ID == m.held[i].ID
	}
	m.held = held
	l := &m.lists[spaneApprovals]
	cursor := l.cursor
	items := make([]entry, len(held))
	for i, e := range held {
		items[i] = newEntry(e.ID+" "+e.Tool, oneLine(e.Server)+" · "+e.Host.String())
	}
	l.items = items
	l.setFilter(l.filter)
	if same {
		l.cursor = min(cursor, max(0, len(l.shown)-1))
	}
}

func (m *SessionModel) showPage(p *framePage) {
	m.page = p
	l := &m.lists[spaneFrames]
	l.items = entries(p.frames, m.frameEntry)
	l.setFilter(l.filter)
	m.status = fmt.Sprintf("frames %d–%d of %d, read from the log · ] newer · L live", p.from+1, p.from+len(p.frames), m.frameTotal)
}

// live leaves a page of older frames for the newest ones.
func (m *SessionModel) live() {
	m.page = nil
	l := &m.lists[spaneFrames]
	l.items = entries(m.frames, m.frameEntry)
	l.setFilter(l.filter)
	l.end(m.bodyHeight())
}

// shownFrames are the frames the frames pane lists, and the number of
// the first.
func (m *SessionModel) shownFrames() ([]sframe, int) {
	if m.page != nil {
		return m.page.frames, m.page.from
	}
	return m.frames, m.frameTotal - len(m.frames)
}

func (m *SessionModel) frameEntry(f sframe) entry {
	arrow := "→"
	if f.dir == proxy.ServerToHost {
		arrow = "←"
	}
	name := frameName(arrow, f.method, f.id)
	desc := []string{f.at.In(m.opts.Location).Format("15:04:05.000")}
	if f.id != "" {
		desc = append(desc, "id "+f.id)
	}
	desc = append(desc, fmt.Sprintf("%d B", f.size))
	return newEntry(name, strings.Join(desc, "  "))
}

func (m *SessionModel) callEntry(c proxy.Call) entry {
	name := c.Method
	if c.Tool != "" {
		name += " " + c.Tool
	}
	return newEntry(name, c.Start.In(m.opts.Location).Format("15:04:05.000")+"  "+callStatus(c))
}

// callStatus says how a call ended: its latency and "ok", an error, or
// that it is pending.
func callStatus(c proxy.Call) string {
	switch {
	case c.Pending:
		return "pending"
	case c.Error != "":
		return fmt.Sprintf("%s  error %d: %s", c.Latency.Round(time.Microsecond), c.ErrorCode, c.Error)
	case c.IsError:
		return c.Latency.Round(time.Microsecond).String() + "  isError"
	}
	return c.Latency.Round(time.Microsecond).String() + "  ok"
}

// bodyHeight is the number of rows between the tab bar and the status line.
func (m *SessionModel) bodyHeight() int { return max(1, m.height-3) }

// sessionBatch is what the reader handed on since the screen last took.
type sessionBatch []tea.Msg

// maxSessionBatch bounds what waits for the screen: the reader waits for
// room then, so that memory stays bounded however large the log. Only the
// log is read, so waiting slows no proxy.
const maxSessionBatch = 1024

// sessionFeed carries the log reader's findings to the screen.
type sessionFeed struct {
	mu      sync.Mutex
	pending []tea.Msg
	wake    chan struct{}
	room    chan struct{}
}

func newSessionFeed() *sessionFeed {
	return &sessionFeed{wake: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// push queues msg, waiting for room while the queue is full, or drops it
// once ctx is done.
func (f *sessionFeed) push(ctx context.Context, msg tea.Msg) {
	for {
		f.mu.Lock()
		if len(f.pending) < maxSessionBatch {
			f.pending = append(f.pending, msg)
			f.mu.Unlock()
			select {
			case f.wake <- struct{}{}:
			default:
			}
			return
		}
		f.mu.Unlock()
		select {
		case <-f.room:
		case <-ctx.Done():
			return
		}
	}
}

// wait is the command that takes what is queued.
func (f *sessionFeed) wait(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		for {
			f.mu.Lock()
			if len(f.pending) > 0 {
				b := sessionBatch(f.pending)
				f.pending = nil
				f.mu.Unlock()
				select {
				case f.room <- struct{}{}:
				default:
				}
				return b
			}
			f.mu.Unlock()
			select {
			case <-f.wake:
			case <-ctx.Done():
				return nil
			}
		}
	}
}
