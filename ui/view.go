package ui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/render"
)

// View draws the screen: a title bar, the panes' tabs, the body and a
// status line, exactly the terminal's height.
func (m *Model) View() string {
	w, h := m.width, m.height
	body := m.bodyHeight()
	var content []string
	switch {
	case m.connecting:
		content = []string{"", "  Connecting to " + oneLine(m.opts.Name) + "…"}
	case len(m.samples) > 0:
		content = m.samples[0].view(m.st, w)
		content = append(content, "", m.st.dim.Render("enter answers · ctrl+d declines"))
	case len(m.elicits) > 0:
		content = m.elicits[0].viewIn(m.st, w, body-2)
		content = append(content, "", m.st.dim.Render("enter accepts · ctrl+d declines · esc cancels"))
	case m.mode == modeForm:
		content = m.form.viewIn(m.st, w, body)
	case m.mode == modeArgForm:
		content = m.argForm.view(m.st, w)
	case m.mode == modeText || m.mode == modeHelp:
		content = m.text.view(m.st, w)
	case m.pane == paneServer:
		content = m.serverLines(w)
		m.serverScroll = min(m.serverScroll, max(0, len(content)-body))
		content = content[m.serverScroll:]
	default:
		content = m.browse(w, body)
	}
	return screen(m.st, w, h, body, m.titleText(), m.tabs(w), content, m.statusText())
}

func (m *Model) titleText() string {
	if m.init == nil {
		return "mcpctl ui"
	}
	info := m.init.ServerInfo
	s := "mcpctl ui · " + oneLine(info.Name)
	if info.Version != "" {
		s += " " + oneLine(info.Version)
	}
	return s + " · " + oneLine(m.init.ProtocolVersion) + " (" + m.era + ")"
}

// tabs is the bar of panes: numbered and counted when the width allows,
// else the names alone, the current one's count kept.
func (m *Model) tabs(width int) string {
	if s := m.tabBar(true, false); cellWidth(s) <= width {
		return s
	}
	if s := m.tabBar(false, false); cellWidth(s) <= width {
		return s
	}
	return fit(m.tabBar(false, true), width)
}

// tabBar is the bar of panes, full (numbered and counted) or not, tight
// (one space between names) or not.
func (m *Model) tabBar(full, tight bool) string {
	parts := make([]string, 0, paneCount)
	for p := range paneCount {
		label := paneNames[p]
		if full {
			label = fmt.Sprintf("%d %s", p+1, label)
		}
		switch p {
		case paneServer:
		default:
			if full || p == m.pane {
				label += fmt.Sprintf(" %d", len(m.lists[p].items))
			}
		}
		if p == m.pane {
			parts = append(parts, m.st.activeTab.Render("["+label+"]"))
		} else {
			if tight {
				label = " " + label
			} else {
				label = " " + label + " "
			}
			parts = append(parts, m.st.tab.Render(label))
		}
	}
	return strings.Join(parts, "")
}

func (m *Model) statusText() string {
	switch {
	case m.busy != "":
		return m.busy
	case m.status != "":
		return m.status
	case m.mode == modeFilter:
		return m.filter.View()
	case len(m.samples) > 0:
		return "sampling request: type an answer or @FILE · tab field · enter send · ctrl+d decline"
	case len(m.elicits) > 0:
		return "elicitation request: fill in the form"
	case m.rootsEdit != nil:
		return m.rootsEdit.input.View()
	case m.mode == modeForm:
		return "enter send · tab/↑/↓ field · ←/→ choice · esc back"
	case m.mode == modeArgForm:
		return "enter send · ↓/↑ completion, tab takes it · tab field · esc back"
	case m.mode == modeText && m.text.result != nil:
		return "r raw JSON · s save blocks · y print command line on exit · esc back"
	case m.mode == modeText && m.text.content != nil:
		return "r raw JSON · s save blocks · ↑/↓ scroll · esc back"
	case m.mode == modeText || m.mode == modeHelp:
		return "↑/↓ scroll · esc back · q quit"
	case m.connecting:
		return "q quit"
	}
	l := &m.lists[m.pane]
	s := "/ filter · enter open · tab pane · ? help · q quit"
	if m.dropped > 0 && (m.pane == paneEvents || m.pane == paneFrames) {
		s = fmt.Sprintf("%d events dropped: the server sent faster than the screen took them · ", m.dropped) + s
	}
	switch m.pane {
	case paneHistory:
		s = "enter result · r re-run · e edit · y print command line · q quit"
	case paneTasks:
		s = "c cancel · u update · enter details · tab pane · q quit"
	case paneRoots:
		s = "a add a folder · d remove · tab pane · q quit"
		if m.rootsList() == nil {
			s = "the session declares no roots · tab pane · q quit"
		}
	case paneResources:
		s = "enter read · / filter · tab pane · ? help · q quit"
	case panePrompts, paneTemplates:
		s = "enter form · / filter · tab pane · ? help · q quit"
	}
	if l.filter != "" {
		s = fmt.Sprintf("filter %q: %d of %d · esc clears · ", l.filter, len(l.shown), len(l.items)) + s
	}
	return s
}

// browse draws a list pane: the list on the left, the selected item's
// description on the right.
func (m *Model) browse(w, h int) []string {
	detail := func(i, width int) []string { return m.describe(m.pane, i, width) }
	return m.lists[m.pane].browse(m.st, w, h, max(16, min(40, w*2/5)), "(none)", detail)
}

// describe is item i of pane p as `mcpctl describe` shows it, width cells
// wide.
func (m *Model) describe(p pane, i, width int) []string {
	var b bytes.Buffer
	pr := &render.Printer{Out: &b, ErrOut: &b, TTY: true, Color: m.opts.Color, Width: width}
	var err error
	switch p {
	case paneTools:
		err = pr.DescribeTool(&m.tools[i])
	case paneResources:
		err = pr.DescribeResource(&m.resources[i])
	case paneTemplates:
		err = pr.DescribeTemplate(&m.templates[i])
	case panePrompts:
		err = pr.DescribePrompt(&m.prompts[i])
	case paneFrames:
		f := m.frames[i]
		b.WriteString(render.Sanitize(string(f.raw)))
		if f.event != "" {
			b.WriteString(f.event)
		}
		return strings.Split(render.WrapText(b.String(), width), "\n")
	case paneEvents:
		return strings.Split(render.WrapText(m.events[i], width), "\n")
	case paneTasks:
		return m.describeTask(i, width)
	case paneRoots:
		it := m.lists[paneRoots].items[i]
		return strings.Split(render.WrapText(it.name+"\n"+it.desc, width), "\n")
	case paneHistory:
		c := &m.history[i]
		lines := []string{m.commandLine(c), ""}
		lines = append(lines, callSummary(*c))
		return strings.Split(render.WrapText(strings.Join(lines, "\n"), width), "\n")
	}
	if err != nil {
		b.WriteString(err.Error())
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// serverLines is the server pane: name, version, era and revision,
// capabilities, instructions.
func (m *Model) serverLines(w int) []string {
	if m.init == nil {
		return nil
	}
	info := m.init.ServerInfo
	lines := []string{
		m.st.heading.Render("Server"),
		"  name       " + oneLine(info.Name),
		"  version    " + oneLine(info.Version),
		"  revision   " + oneLine(m.init.ProtocolVersion),
		"  era        " + oneLine(m.era),
		"",
		m.st.heading.Render("Capabilities"),
	}
	caps := make([]string, 0, len(m.init.Capabilities))
	for k, v := range m.init.Capabilities {
		s := oneLine(k)
		if t := strings.TrimSpace(string(v)); t != "" && t != "{}" {
			s += " " + oneLine(t)
		}
		caps = append(caps, "  "+s)
	}
	slices.Sort(caps)
	lines = append(lines, caps...)
	if m.init.Instructions != "" {
		lines = append(lines, "", m.st.heading.Render("Instructions"))
		for _, l := range strings.Split(render.WrapText(render.Sanitize(m.init.Instructions), w-2), "\n") {
			lines = append(lines, "  "+l)
		}
	}
	return lines
}
