package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/shell"
	"github.com/mcpctl/mcpctl/transport"
)

// pane is one of the screen's tabs.
type pane int

const (
	paneTools pane = iota
	paneResources
	paneTemplates
	panePrompts
	paneServer
	paneEvents
	paneFrames
	paneHistory
	paneTasks
	paneRoots
	paneCount
)

var paneNames = [paneCount]string{"Tools", "Resources", "Templates", "Prompts", "Server", "Events", "Frames", "History", "Tasks", "Roots"}

// mode is what the keys act on.
type mode int

const (
	modeBrowse mode = iota
	modeFilter
	modeForm
	modeText // a full-screen text: a result, a frame's JSON, a description
	modeHelp
	modeArgForm // a prompt's or a template's form
)

// Bounds on what the panes keep.
const (
	maxFrames = 10000
	maxEvents = 2000
)

// callProgressToken is the progress token of the program's calls.
const callProgressToken = "mcpctl-ui"

// Model is the program's state; Update and View are those of bubbletea.
type Model struct {
	opts Options
	ctx  context.Context
	st   *styles

	width, height int

	sess       *session.Session
	connecting bool
	connErr    error
	init       *client.InitializeResult
	version    string
	era        string

	tools     []client.Tool
	resources []client.Resource
	templates []client.ResourceTemplate
	prompts   []client.Prompt
	schemas   schema.Cache

	lists [paneCount]list
	pane  pane
	mode  mode

	filter textinput.Model

	form    *form // the call form, while modeForm
	argForm *argForm
	elicits []*form
	samples []*sampleForm
	tasks   []client.Task
	// rootsEdit is the folder being typed to add to the roots.
	rootsEdit *rootsEdit
	text      textView
	// serverScroll is the first line of the server pane on screen.
	serverScroll int
	busy         string // a request in flight
	status       string

	frames  []frame
	pending map[string]time.Time // request time by direction+id
	events  []string
	history []call
	printed []string
	dropped int
}

// frame is one message of the protocol pane.
type frame struct {
	at      time.Time
	dir     string
	method  string
	id      string
	latency time.Duration
	raw     json.RawMessage
	event   string
}

// call is one call of the history.
type call struct {
	tool   string
	words  []string
	result *client.CallToolResult
	err    error
	took   time.Duration
}

// textView is a full-screen text with a scroll position.
type textView struct {
	title  string
	lines  []string
	scroll int
	// result, when set, is the call shown: r switches to its raw JSON.
	result *call
	// content, when set, is the prompt or resource shown: r switches to
	// its raw JSON too.
	content *shown
	raw     bool
	back    mode
}

// New returns the model of a program that connects with opts.
func New(ctx context.Context, opts Options) *Model {
	st := newStyles(opts.Color)
	m := &Model{opts: opts, ctx: ctx, st: st, width: 80, height: 24, connecting: true, pending: map[string]time.Time{}}
	m.filter = newInput(st, "")
	m.filter.Prompt = "/"
	for i := range m.lists {
		m.lists[i] = newList(nil)
	}
	return m
}

// Init starts connecting and listening to the feed.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.connect(), m.listen())
}

func (m *Model) listen() tea.Cmd {
	if m.opts.Feed == nil {
		return nil
	}
	return m.opts.Feed.wait(m.ctx)
}

// connectedMsg is the session opened and its lists fetched.
type connectedMsg struct {
	sess      *session.Session
	tools     []client.Tool
	resources []client.Resource
	templates []client.ResourceTemplate
	prompts   []client.Prompt
	err       error
}

func (m *Model) connect() tea.Cmd {
	ctx, connect := m.ctx, m.opts.Connect
	return func() tea.Msg {
		s, err := connect(ctx)
		if err != nil {
			return connectedMsg{err: err}
		}
		// The lists go out together: against a server in another process
		// the first frame then waits for the slowest list, not their sum.
		msg := connectedMsg{sess: s}
		var (
			wg   sync.WaitGroup
			errs [4]error
		)
		fetch := func(i int, capability string, get func() error) {
			if !s.HasCapability(capability) {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = get()
			}()
		}
		fetch(0, "tools", func() (err error) { msg.tools, err = s.ListTools(ctx); return })
		fetch(1, "resources", func() (err error) { msg.resources, err = s.ListResources(ctx); return })
		fetch(2, "resources", func() (err error) { msg.templates, err = s.ListResourceTemplates(ctx); return })
		fetch(3, "prompts", func() (err error) { msg.prompts, err = s.ListPrompts(ctx); return })
		wg.Wait()
		err = errors.Join(errs[:]...)
		msg.err = err
		return msg
	}
}

// callMsg is a call's outcome.
type callMsg struct{ c call }

// callTool calls t through the session's pipeline; a tool whose
// taskSupport is "required" runs as a task, as `mcpctl call` runs it, its
// status going to the events pane.
func (m *Model) callTool(t *client.Tool, args map[string]any, words []string) tea.Cmd {
	ctx, s, feed := m.ctx, m.sess, m.opts.Feed
	name := t.Name
	return func() tea.Msg {
		start := time.Now()
		co := client.CallOptions{ProgressToken: callProgressToken}
		var (
			res *client.CallToolResult
			err error
		)
		asTask, err := s.PlanTask(t, client.TaskAuto)
		switch {
		case err != nil:
		case asTask:
			var data []byte
			if data, err = client.MarshalArguments(args); err == nil {
				res, err = s.CallToolTask(ctx, name, data, co, client.TaskOptions{OnStatus: func(tk client.Task) {
					if feed != nil {
						line := "task " + tk.TaskID + ": " + tk.Status
						if tk.StatusMessage != "" {
							line += ": " + tk.StatusMessage
						}
						feed.push(eventMsg{text: line, at: time.Now()})
						feed.push(taskSeenMsg{task: tk})
					}
				}})
			}
		default:
			res, err = s.CallTool(ctx, name, args, co)
		}
		return callMsg{c: call{tool: name, words: words, result: res, err: err, took: time.Since(start)}}
	}
}

func (m *Model) closeSession() {
	if m.sess != nil {
		_ = m.sess.Close()
		m.sess = nil
	}
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		if m.mode == modeText {
			m.refreshText()
		}
		return m, nil
	case connectedMsg:
		return m, m.connected(msg)
	case callMsg:
		m.called(msg.c)
		return m, nil
	case shownMsg:
		m.showShown(msg.s)
		return m, nil
	case completedMsg:
		m.completed(msg)
		return m, nil
	case tasksMsg:
		m.setTasks(msg.tasks)
		return m, nil
	case cancelledMsg:
		return m, m.cancelled(msg)
	case rootsChangedMsg:
		m.rootsChanged(msg)
		return m, nil
	case feedMsg:
		m.dropped += msg.dropped
		for _, e := range msg.msgs {
			m.feed(e)
		}
		return m, m.listen()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) connected(msg connectedMsg) tea.Cmd {
	m.connecting = false
	if msg.sess != nil {
		m.sess = msg.sess
		m.init = msg.sess.InitializeResult()
		m.era = msg.sess.Era()
	}
	if msg.err != nil {
		m.connErr = msg.err
		return tea.Quit
	}
	m.tools, m.resources, m.templates, m.prompts = msg.tools, msg.resources, msg.templates, msg.prompts
	m.lists[paneTools] = newList(entries(m.tools, func(t client.Tool) entry { return newEntry(t.Name, t.Description) }))
	m.lists[paneResources] = newList(entries(m.resources, func(r client.Resource) entry { return newEntry(r.URI, r.Name) }))
	m.lists[paneTemplates] = newList(entries(m.templates, func(t client.ResourceTemplate) entry { return newEntry(t.URITemplate, t.Name) }))
	m.lists[panePrompts] = newList(entries(m.prompts, func(p client.Prompt) entry { return newEntry(p.Name, p.Description) }))
	m.showRoots()
	return nil
}

func newEntry(name, desc string) entry {
	name, desc = oneLine(name), oneLine(desc)
	return entry{name: name, desc: desc, key: strings.ToLower(name + "\x00" + desc)}
}

// feed takes one event of the session.
func (m *Model) feed(e tea.Msg) {
	switch e := e.(type) {
	case frameMsg:
		m.addFrame(e)
	case noteMsg:
		m.addEvent(e.at, noteText(e.n))
	case stderrMsg:
		m.addEvent(e.at, "stderr: "+e.text)
	case eventMsg:
		m.addEvent(e.at, e.text)
	case elicitMsg:
		m.elicits = append(m.elicits, elicitForm(m.st, e))
	case sampleMsg:
		m.samples = append(m.samples, newSampleForm(m.st, e, m.opts.Color, m.width-2))
	case taskSeenMsg:
		m.taskSeen(e.task)
	}
}

func noteText(n client.Notification) string {
	switch {
	case n.Log != nil:
		s := "log [" + n.Log.Level + "]"
		if n.Log.Logger != "" {
			s += " " + n.Log.Logger
		}
		return s + ": " + n.Log.Text()
	case n.Progress != nil:
		s := fmt.Sprintf("progress %g", n.Progress.Progress)
		if n.Progress.Total != nil {
			s += fmt.Sprintf("/%g", *n.Progress.Total)
		}
		if n.Progress.Message != "" {
			s += " " + n.Progress.Message
		}
		return s
	case n.ListChanged != "":
		return n.ListChanged + " list changed"
	}
	return n.Method + " " + string(n.Params)
}

func (m *Model) addEvent(at time.Time, text string) {
	text = oneLine(text)
	m.events = append(m.events, text)
	l := &m.lists[paneEvents]
	l.items = append(l.items, newEntry(at.Format("15:04:05"), text))
	if len(m.events) > maxEvents {
		m.events = m.events[maxEvents/10:]
		l.items = l.items[maxEvents/10:]
		l.apply()
		return
	}
	l.appendShown()
}

func (m *Model) addFrame(e frameMsg) {
	f := frame{at: e.at, dir: e.entry.Direction, raw: e.entry.Message, event: e.entry.Event}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if len(f.raw) > 0 && json.Unmarshal(f.raw, &msg) == nil {
		f.method, f.id = msg.Method, string(msg.ID)
		if f.id != "" {
			if f.method != "" {
				m.pending[f.dir+f.id] = f.at
			} else {
				// A response answers the request that went the other way.
				other := transport.DirectionSend
				if f.dir == transport.DirectionSend {
					other = transport.DirectionRecv
				}
				if t, ok := m.pending[other+f.id]; ok {
					f.latency = f.at.Sub(t)
					delete(m.pending, other+f.id)
				}
			}
		}
	}
	m.frames = append(m.frames, f)
	l := &m.lists[paneFrames]
	l.items = append(l.items, frameEntry(f))
	if len(m.frames) > maxFrames {
		m.frames = m.frames[maxFrames/10:]
		l.items = l.items[maxFrames/10:]
		l.apply()
		return
	}
	l.appendShown()
}

// frameName names a frame in the frames pane by its direction and its
// method, or as a response when it has only an id.
func frameName(arrow, method, id string) string {
	switch {
	case method != "":
		return arrow + " " + method
	case id != "":
		return arrow + " response"
	}
	return arrow + " ?"
}

func frameEntry(f frame) entry {
	arrow := map[string]string{transport.DirectionSend: "→", transport.DirectionRecv: "←"}[f.dir]
	if arrow == "" {
		return newEntry("· "+f.event, "")
	}
	name := frameName(arrow, f.method, f.id)
	var desc []string
	if f.id != "" {
		desc = append(desc, "id "+f.id)
	}
	if f.latency > 0 {
		desc = append(desc, f.latency.Round(time.Microsecond).String())
	}
	return newEntry(name, strings.Join(desc, "  "))
}

// appendShown shows the last item added if it matches the filter.
func (l *list) appendShown() {
	i := len(l.items) - 1
	if l.filter == "" || strings.Contains(l.items[i].key, strings.ToLower(l.filter)) {
		l.shown = append(l.shown, i)
	}
}

func (m *Model) called(c call) {
	m.busy = ""
	m.history = append(m.history, c)
	m.lists[paneHistory].items = append(m.lists[paneHistory].items, newEntry(c.tool+" "+strings.Join(c.words, " "), callSummary(c)))
	m.lists[paneHistory].appendShown()
	m.showCall(&m.history[len(m.history)-1], m.mode)
}

func callSummary(c call) string {
	switch {
	case c.err != nil && c.result == nil:
		return "error"
	case c.result != nil && c.result.IsError:
		return "isError"
	}
	return "ok " + c.took.Round(time.Millisecond).String()
}

// showCall shows a call's result full-screen.
func (m *Model) showCall(c *call, back mode) {
	if back == modeText {
		back = modeBrowse
	}
	m.text = textView{title: "Result of " + oneLine(c.tool), result: c, back: back}
	m.mode = modeText
	m.refreshText()
}

// refreshText lays out the text view for the current width.
func (m *Model) refreshText() {
	if s := m.text.content; s != nil {
		m.text.lines = m.shownLines(s, m.text.raw)
		return
	}
	c := m.text.result
	if c == nil {
		return
	}
	var b bytes.Buffer
	if c.err != nil {
		fmt.Fprintln(&b, m.st.err.Render("error: "+oneLine(errText(c.err))))
	}
	if c.result != nil {
		if m.text.raw {
			var ind bytes.Buffer
			if json.Indent(&ind, c.result.Raw, "", "  ") != nil {
				ind.Write(c.result.Raw)
			}
			b.WriteString(render.Sanitize(ind.String()))
		} else {
			if c.result.IsError {
				fmt.Fprintln(&b, m.st.err.Render("the tool reported an error (isError: true)"))
			}
			p := &render.Printer{Out: &b, ErrOut: &b, TTY: true, Color: m.opts.Color, Width: m.width}
			if _, err := p.ToolResult(c.result.Content, c.result.StructuredContent, render.ContentOptions{}); err != nil {
				fmt.Fprintln(&b, m.st.err.Render(oneLine(err.Error())))
			}
		}
	}
	m.text.lines = strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// errText is an error as the user reads it: a schema or signature
// violation of the pipeline says what it is.
func errText(err error) string {
	var outErr *session.OutputError
	if errors.As(err, &outErr) {
		return "the result breaks the tool's outputSchema: " + err.Error()
	}
	return err.Error()
}

// commandLine is the `mcpctl call` command line of a call.
func (m *Model) commandLine(c *call) string {
	if m.opts.CallCommand != nil {
		return m.opts.CallCommand(c.tool, c.words)
	}
	words := []string{"mcpctl", "call", shell.Quote(c.tool)}
	for _, w := range c.words {
		words = append(words, shell.Quote(w))
	}
	return strings.Join(words, " ")
}

// bodyHeight is the number of rows between the tab bar and the status line.
func (m *Model) bodyHeight() int { return max(1, m.height-3) }

// key handles a key press.
func (m *Model) key(k tea.KeyMsg) (cmd tea.Cmd) {
	if burst, ok := splitTyped(k, m.key); ok {
		return burst
	}
	if k.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	// A status line answers the key before; the next one clears it.
	m.status = ""
	if len(m.samples) > 0 {
		return m.sampleKey(k)
	}
	if len(m.elicits) > 0 {
		return m.elicitKey(k)
	}
	if m.rootsEdit != nil {
		return m.rootsEditKey(k)
	}
	switch m.mode {
	case modeArgForm:
		return m.argFormKey(k)
	case modeFilter:
		return m.filterKey(k)
	case modeForm:
		return m.formKey(k)
	case modeText, modeHelp:
		return m.textKey(k)
	}
	if m.connecting {
		if k.String() == "q" {
			return tea.Quit
		}
		return nil
	}
	h := m.bodyHeight()
	l := &m.lists[m.pane]
	if m.pane == paneServer {
		// The server pane is a text: the list keys scroll it.
		switch k.String() {
		case "down", "j":
			m.serverScroll++
		case "up", "k":
			m.serverScroll = max(0, m.serverScroll-1)
		case "home", "g":
			m.serverScroll = 0
		}
	}
	switch m.pane {
	case paneTasks:
		if cmd, ok := m.tasksKey(k.String()); ok {
			return cmd
		}
	case paneRoots:
		if cmd, ok := m.rootsKey(k.String()); ok {
			return cmd
		}
	}
	was := m.pane
	defer func() {
		if m.pane == paneTasks && was != paneTasks {
			cmd = tea.Batch(cmd, m.refreshTasks())
		}
	}()
	if l.navKey(k.String(), h) {
		return nil
	}
	switch k.String() {
	case "q":
		return tea.Quit
	case "?":
		m.mode = modeHelp
		m.text = textView{title: "Keys", lines: helpLines(), back: modeBrowse}
	case "tab", "right", "l":
		m.pane = (m.pane + 1) % paneCount
	case "shift+tab", "left", "h":
		m.pane = (m.pane + paneCount - 1) % paneCount
	case "1", "2", "3", "4", "5", "6", "7", "8", "9":
		m.pane = pane(k.String()[0] - '1')
	case "0":
		m.pane = paneRoots
	case "/":
		if m.pane != paneServer {
			m.mode = modeFilter
			l.editFilter(&m.filter)
		}
	case "enter":
		return m.open()
	case "y":
		if i := l.selected(); m.pane == paneHistory && i >= 0 {
			line := m.commandLine(&m.history[i])
			m.printed = append(m.printed, line)
			m.status = "printed on exit: " + line
		}
	case "r":
		if i := l.selected(); m.pane == paneHistory && i >= 0 {
			c := m.history[i]
			if t := m.tool(c.tool); t != nil {
				f := m.newForm(t, c.words)
				return m.send(f)
			}
		}
	case "e":
		if i := l.selected(); m.pane == paneHistory && i >= 0 {
			c := m.history[i]
			if t := m.tool(c.tool); t != nil {
				m.form, m.mode = m.newForm(t, c.words), modeForm
			}
		}
	}
	return nil
}

func (m *Model) tool(name string) *client.Tool {
	for i := range m.tools {
		if m.tools[i].Name == name {
			return &m.tools[i]
		}
	}
	return nil
}

func (m *Model) newForm(t *client.Tool, prefill []string) *form {
	var sch *schema.Schema
	var err error
	if len(t.InputSchema) > 0 {
		sch, err = m.schemas.Compile(t.InputSchema)
	}
	return toolForm(m.st, t, sch, err, prefill)
}

// open acts on the selected item: a tool's call form, a frame's JSON, an
// event's whole text, a call's result, an item's description.
func (m *Model) open() tea.Cmd {
	i := m.lists[m.pane].selected()
	if i < 0 {
		return nil
	}
	switch m.pane {
	case paneTools:
		m.form, m.mode = m.newForm(&m.tools[i], nil), modeForm
	case paneResources:
		m.argForm = nil
		return m.readResource(m.resources[i].URI)
	case panePrompts:
		m.argForm, m.mode = promptForm(m.st, &m.prompts[i]), modeArgForm
		return m.complete(m.argForm)
	case paneTemplates:
		m.argForm, m.mode = templateForm(m.st, &m.templates[i]), modeArgForm
		return m.complete(m.argForm)
	case paneTasks:
		m.text = textView{title: "Task " + m.lists[m.pane].items[i].name, lines: m.describeTask(i, m.width), back: modeBrowse}
		m.mode = modeText
	case paneRoots:
		return nil
	case paneFrames:
		f := m.frames[i]
		var ind bytes.Buffer
		if json.Indent(&ind, f.raw, "", "  ") != nil {
			ind.Write(f.raw)
		}
		m.text = textView{title: "Frame " + frameEntry(f).name, lines: strings.Split(render.Sanitize(ind.String()), "\n"), back: modeBrowse}
		m.mode = modeText
	case paneEvents:
		m.text = textView{title: "Event", lines: strings.Split(render.WrapText(m.events[i], m.width), "\n"), back: modeBrowse}
		m.mode = modeText
	case paneHistory:
		m.showCall(&m.history[i], modeBrowse)
	default:
		m.text = textView{title: m.lists[m.pane].items[i].name, lines: m.describe(m.pane, i, m.width), back: modeBrowse}
		m.mode = modeText
	}
	return nil
}

func (m *Model) filterKey(k tea.KeyMsg) tea.Cmd {
	done, cmd := m.lists[m.pane].filterKey(&m.filter, k)
	if done {
		m.mode = modeBrowse
	}
	return cmd
}

func (m *Model) formKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.mode, m.form = modeBrowse, nil
		return nil
	case "enter", "ctrl+s":
		return m.send(m.form)
	}
	cmd, _ := m.form.update(k)
	return cmd
}

// send sends the form's call, unless its arguments break the schema.
func (m *Model) send(f *form) tea.Cmd {
	if len(f.problem) > 0 {
		m.status = fmt.Sprintf("not sent: %d problem(s) with the arguments", len(f.problem))
		m.form, m.mode = f, modeForm
		return nil
	}
	if m.busy != "" {
		m.status = "a call is in flight"
		return nil
	}
	m.busy = "calling " + oneLine(f.tool.Name) + "…"
	m.status = ""
	return m.callTool(f.tool, f.args, append([]string(nil), f.words...))
}

func (m *Model) textKey(k tea.KeyMsg) tea.Cmd {
	t := &m.text
	if t.scrollKey(k.String(), m.bodyHeight()) {
		return nil
	}
	switch k.String() {
	case "q":
		if m.mode == modeHelp {
			m.mode = t.back
			return nil
		}
		return tea.Quit
	case "esc", "?", "backspace":
		m.mode = t.back
		if m.mode == modeText || (m.mode == modeForm && m.form == nil) || (m.mode == modeArgForm && m.argForm == nil) {
			m.mode = modeBrowse
		}
	case "s":
		m.saveBlocks()
	case "r":
		if t.result != nil || t.content != nil {
			t.raw = !t.raw
			t.scroll = 0
			m.refreshText()
		}
	case "y":
		if t.result != nil {
			line := m.commandLine(t.result)
			m.printed = append(m.printed, line)
			m.status = "printed on exit: " + line
		}
	}
	return nil
}

func (m *Model) elicitKey(k tea.KeyMsg) tea.Cmd {
	f := m.elicits[0]
	answer := func(r client.ElicitResult) {
		f.elicit.reply <- r
		m.elicits = m.elicits[1:]
		m.addEvent(time.Now(), "elicitation answered: "+r.Action)
	}
	switch k.String() {
	case "esc":
		answer(client.ElicitResult{Action: "cancel"})
	case "ctrl+d":
		answer(client.ElicitResult{Action: "decline"})
	case "enter", "ctrl+s":
		if len(f.problem) > 0 {
			m.status = fmt.Sprintf("not sent: %d problem(s) in the form", len(f.problem))
			return nil
		}
		answer(client.ElicitResult{Action: "accept", Content: f.content})
	default:
		cmd, _ := f.update(k)
		return cmd
	}
	return nil
}

func helpLines() []string {
	return []string{
		"Moving",
		"  tab / shift+tab, ←/→, h/l   next / previous pane (1–8 jump to one)",
		"  ↑/↓, j/k                    move in a list or scroll a text",
		"  pgup/pgdn, g/G              page, first, last",
		"  /                           filter the list (enter keeps it, esc clears)",
		"Acting",
		"  enter                       tool: its call form; frame: its JSON;",
		"                              history: the result; others: the description",
		"  in a form                   tab/↑/↓ field, ←/→ choice, esc back,",
		"                              enter sends (not while anything is invalid)",
		"  r                           result: raw JSON on/off; history: re-run the call",
		"  s                           result: save its images, audio and blobs",
		"  e                           history: edit the call in its form",
		"  y                           result or history: print its mcpctl call",
		"                              command line when the ui ends",
		"  prompt/template form        ↓/↑ a completion, tab takes it; enter gets",
		"                              the prompt or reads the resource",
		"  tasks (9)                   c cancel the task, u update, enter details",
		"  roots (0)                   a add a folder, d remove the root",
		"Elicitation forms",
		"  enter accepts, ctrl+d declines, esc cancels",
		"Sampling requests",
		"  type an answer or @FILE, enter sends, ctrl+d or esc declines",
		"Leaving",
		"  esc back, ? this help, q or ctrl+c quit",
	}
}
