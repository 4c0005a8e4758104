package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/render"
)

// View draws the screen: a title bar, the tabs, the body and a status
// line, exactly the terminal's height.
func (m *SessionModel) View() string {
	w, h := m.width, m.height
	body := m.bodyHeight()
	var content []string
	switch {
	case !m.found:
		content = []string{"", "  Looking for proxy session " + oneLine(m.opts.Ref) + "…"}
	case m.mode == modeText || m.mode == modeHelp:
		content = m.text.view(m.st, w)
	case m.pane == spaneTools:
		content = m.toolsTable(w, body)
	default:
		content = m.browse(w, body)
	}
	return screen(m.st, w, h, body, m.titleText(), m.tabs(w), content, m.statusText())
}

func (m *SessionModel) titleText() string {
	if !m.found {
		return "mcpctl ui · proxy session"
	}
	state := "ended"
	if m.si.Running && !m.ended {
		state = "running"
	}
	s := "mcpctl ui · proxy session " + m.si.ID + " (" + state + ")"
	if m.server != "" {
		s += " · " + m.server
	}
	if m.version != "" {
		s += " · " + m.version
	}
	return s
}

func (m *SessionModel) tabs(width int) string {
	if s := m.tabBar(true); cellWidth(s) <= width {
		return s
	}
	return fit(m.tabBar(false), width)
}

func (m *SessionModel) tabBar(full bool) string {
	parts := make([]string, 0, spaneCount)
	for p := range spaneCount {
		label := spaneNames[p]
		if full {
			label = fmt.Sprintf("%d %s", p+1, label)
		}
		if full || p == m.pane {
			label += fmt.Sprintf(" %d", m.count(p))
		}
		if p == m.pane {
			parts = append(parts, m.st.activeTab.Render("["+label+"]"))
		} else {
			parts = append(parts, m.st.tab.Render(" "+label+" "))
		}
	}
	return strings.Join(parts, "")
}

// count is the number a tab shows: everything seen, not only what is
// kept in memory.
func (m *SessionModel) count(p spane) int {
	switch p {
	case spaneCalls:
		return m.callTotal
	case spaneFrames:
		return m.frameTotal
	case spaneFlags:
		return m.flagTotal
	case spaneTools:
		return len(m.stats)
	}
	return len(m.held)
}

func (m *SessionModel) statusText() string {
	switch {
	case m.mode == modeFilter:
		return m.filter.View()
	case m.denying != "":
		return m.reason.View()
	case m.status != "":
		return m.status
	case m.mode == modeText || m.mode == modeHelp:
		return "↑/↓ scroll · esc back · q quit"
	case !m.found:
		return "q quit"
	}
	l := &m.lists[m.pane]
	s := fmt.Sprintf("%d frames · %d calls · %d pending · %d flags", m.frameTotal, m.callTotal, len(m.pending), m.flagTotal)
	if m.endErr != nil {
		s = "reading the log: " + oneLine(m.endErr.Error())
	}
	switch m.pane {
	case spaneApprovals:
		s = "a approve · d deny (asks a reason)"
	case spaneFrames:
		if m.page != nil || m.frameTotal > len(m.frames) {
			s += " · [ ] older/newer from the log"
		}
	}
	if l.filter != "" {
		s = fmt.Sprintf("filter %q: %d of %d · ", l.filter, len(l.shown), len(l.items)) + s
	}
	return s + " · ? help · q quit"
}

// browse draws a list pane: the list on the left, the selected item's
// details on the right.
func (m *SessionModel) browse(w, h int) []string {
	none := "(none)"
	if m.pane == spaneApprovals && m.opts.Approvals == nil {
		none = "(no approvals queue)"
	}
	return m.lists[m.pane].browse(m.st, w, h, max(16, min(48, w/2)), none, m.details)
}

// details are the fields of item i of the current pane, width cells wide.
func (m *SessionModel) details(i, width int) []string {
	var lines []string
	field := func(name, value string) {
		if value != "" {
			lines = append(lines, fmt.Sprintf("%-10s %s", name, oneLine(value)))
		}
	}
	switch m.pane {
	case spaneCalls:
		c := m.calls[i]
		field("method", c.Method)
		field("tool", c.Tool)
		field("id", c.ID)
		field("direction", c.Dir)
		field("start", c.Start.In(m.opts.Location).Format("15:04:05.000"))
		if c.Pending {
			field("status", "pending")
		} else {
			field("latency", c.Latency.Round(time.Microsecond).String())
			switch {
			case c.Error != "":
				field("status", fmt.Sprintf("error %d", c.ErrorCode))
				field("error", c.Error)
			case c.IsError:
				field("status", "isError: true")
			default:
				field("status", "ok")
			}
		}
	case spaneFrames:
		frames, _ := m.shownFrames()
		f := frames[i]
		return strings.Split(render.WrapText(render.Sanitize(string(f.data)), width), "\n")
	case spaneFlags:
		fl := m.flags[i]
		field("kind", fl.Kind)
		field("time", fl.Time.In(m.opts.Location).Format("15:04:05.000"))
		field("direction", fl.Dir)
		field("method", fl.Method)
		field("id", fl.ID)
		lines = append(lines, "")
		lines = append(lines, strings.Split(render.WrapText(oneLine(fl.Msg), width), "\n")...)
		return lines
	case spaneApprovals:
		e := m.held[i]
		field("id", e.ID)
		field("tool", e.Tool)
		field("server", e.Server)
		field("host", e.Host.String())
		field("rule", e.Rule)
		field("waiting", render.Age(e.Age(m.opts.Now())))
		lines = append(lines, "", "arguments")
		lines = append(lines, strings.Split(render.WrapText(render.Sanitize(string(e.Arguments)), width), "\n")...)
		return lines
	}
	return lines
}

// toolsTable draws the per-tool counts and latency percentiles.
func (m *SessionModel) toolsTable(w, h int) []string {
	l := &m.lists[spaneTools]
	if len(l.items) == 0 {
		return []string{"", "  " + m.st.dim.Render("(no calls answered yet)")}
	}
	nameW := 12
	for _, it := range l.items {
		nameW = max(nameW, min(40, cellWidth(it.name)))
	}
	row := func(name, calls, errs, p50, p95 string) string {
		pad := nameW - cellWidth(name)
		if pad < 0 {
			name, pad = fit(name, nameW), 0
		}
		return fmt.Sprintf("  %s%s  %6s  %6s  %10s  %10s", name, strings.Repeat(" ", pad), calls, errs, p50, p95)
	}
	lines := []string{m.st.heading.Render(row("TOOL/METHOD", "CALLS", "ERRORS", "P50", "P95"))}
	l.scroll(h - 1)
	for r := l.offset; r < len(l.shown) && len(lines) < h; r++ {
		name := l.items[l.shown[r]].name
		s := m.stats[name]
		line := row(name, fmt.Sprint(s.calls), fmt.Sprint(s.errors), s.percentile(50).Round(time.Microsecond).String(), s.percentile(95).Round(time.Microsecond).String())
		if r == l.cursor {
			line = m.st.cursor.Render(">" + line[1:])
		}
		lines = append(lines, line)
	}
	return lines
}

// key handles a key press.
func (m *SessionModel) key(k tea.KeyMsg) tea.Cmd {
	if cmd, ok := splitTyped(k, m.key); ok {
		return cmd
	}
	if k.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	m.status = ""
	if m.denying != "" {
		return m.reasonKey(k)
	}
	switch m.mode {
	case modeFilter:
		return m.filterKey(k)
	case modeText, modeHelp:
		return m.textKey(k)
	}
	if !m.found {
		if k.String() == "q" {
			return tea.Quit
		}
		return nil
	}
	h := m.bodyHeight()
	if m.pane == spaneTools {
		h--
	}
	l := &m.lists[m.pane]
	if l.navKey(k.String(), h) {
		return nil
	}
	switch k.String() {
	case "q":
		return tea.Quit
	case "?":
		m.mode = modeHelp
		m.text = textView{title: "Keys", lines: sessionHelpLines(), back: modeBrowse}
	case "tab", "right", "l":
		m.pane = (m.pane + 1) % spaneCount
	case "shift+tab", "left", "h":
		m.pane = (m.pane + spaneCount - 1) % spaneCount
	case "1", "2", "3", "4", "5":
		m.pane = spane(k.String()[0] - '1')
	case "/":
		m.mode = modeFilter
		l.editFilter(&m.filter)
	case "enter":
		m.open()
	case "[":
		if m.pane == spaneFrames {
			return m.older()
		}
	case "]":
		if m.pane == spaneFrames && m.page != nil {
			return m.newer()
		}
	case "L":
		if m.pane == spaneFrames && m.page != nil {
			m.live()
		}
	case "a", "d":
		i := l.selected()
		if m.pane != spaneApprovals || i < 0 || m.opts.Approvals == nil {
			return nil
		}
		if k.String() == "a" {
			return m.decide(m.held[i].ID, true, "")
		}
		m.denying = m.held[i].ID
		m.reason.SetValue("")
		m.reason.Focus()
	}
	return nil
}

// older shows the page of frames before those shown, read from the log.
func (m *SessionModel) older() tea.Cmd {
	_, first := m.shownFrames()
	if first == 0 {
		m.status = "these are the session's first frames"
		return nil
	}
	return m.loadPage(max(0, first-m.opts.MaxFrames))
}

// newer shows the page after the one shown, or the newest frames.
func (m *SessionModel) newer() tea.Cmd {
	next := m.page.from + len(m.page.frames)
	if next >= m.frameTotal-len(m.frames) {
		m.live()
		return nil
	}
	return m.loadPage(next)
}

// open shows the selected item whole: a frame's JSON, a call's or a
// flag's fields, a held call's arguments.
func (m *SessionModel) open() {
	i := m.lists[m.pane].selected()
	if i < 0 || m.pane == spaneTools {
		return
	}
	var lines []string
	title := m.lists[m.pane].items[i].name
	if m.pane == spaneFrames {
		frames, _ := m.shownFrames()
		f := frames[i]
		var ind bytes.Buffer
		if json.Indent(&ind, f.data, "", "  ") != nil {
			ind.Reset()
			ind.Write(f.data)
		}
		lines = strings.Split(render.Sanitize(ind.String()), "\n")
		if int64(len(f.data)) < f.size {
			lines = append(lines, "", fmt.Sprintf("(the first %d of %d bytes; the session log has the whole frame: %s)", len(f.data), f.size, m.si.Path))
		}
	} else {
		lines = m.details(i, m.width)
	}
	m.text = textView{title: title, lines: lines, back: modeBrowse}
	m.mode = modeText
}

func (m *SessionModel) filterKey(k tea.KeyMsg) tea.Cmd {
	done, cmd := m.lists[m.pane].filterKey(&m.filter, k)
	if done {
		m.mode = modeBrowse
	}
	return cmd
}

// reasonKey edits the reason of a deny: enter denies, esc gives up.
func (m *SessionModel) reasonKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.denying = ""
		m.reason.Blur()
		m.status = "not denied"
		return nil
	case "enter":
		id, reason := m.denying, strings.TrimSpace(m.reason.Value())
		m.denying = ""
		m.reason.Blur()
		return m.decide(id, false, reason)
	}
	var cmd tea.Cmd
	m.reason, cmd = m.reason.Update(k)
	return cmd
}

func (m *SessionModel) textKey(k tea.KeyMsg) tea.Cmd {
	t := &m.text
	if t.scrollKey(k.String(), m.bodyHeight()) {
		return nil
	}
	switch k.String() {
	case "q":
		if m.mode == modeHelp {
			m.mode = modeBrowse
			return nil
		}
		return tea.Quit
	case "esc", "?", "backspace", "enter":
		m.mode = modeBrowse
	}
	return nil
}

func sessionHelpLines() []string {
	return slices.Clone([]string{
		"Moving",
		"  tab / shift+tab, ←/→, h/l   next / previous pane (1–5 jump to one)",
		"  ↑/↓, j/k                    move in a list or scroll a text",
		"  pgup/pgdn, g/G              page, first, last",
		"  /                           filter the list (enter keeps it, esc clears)",
		"Acting",
		"  enter                       frame: its JSON; call, flag, held call: its fields",
		"  [ / ]                       frames: the older / newer page, read back",
		"                              from the session log; L the newest again",
		"  a                           approvals: approve the held call",
		"  d                           approvals: deny it, with a reason for the host",
		"Leaving",
		"  esc back, ? this help, q or ctrl+c quit",
	})
}
