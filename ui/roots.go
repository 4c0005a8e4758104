package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
)

// The roots pane: the folders the session exposes to the server
// (roots/list), which the user adds and removes; each change is announced
// with notifications/roots/list_changed, as the shell's root command does.

// rootsEdit is the line where a folder to add is typed.
type rootsEdit struct{ input textinput.Model }

// rootsChangedMsg is the announcement of a change sent, or its error.
type rootsChangedMsg struct{ err error }

// showRoots fills the pane from the session's roots.
func (m *Model) showRoots() {
	var items []entry
	if r := m.rootsList(); r != nil {
		for _, root := range r.List() {
			items = append(items, newEntry(root.URI, root.Name))
		}
	}
	cursor := m.lists[paneRoots].cursor
	m.lists[paneRoots] = newList(items)
	m.lists[paneRoots].cursor = max(0, min(cursor, len(items)-1))
}

func (m *Model) rootsList() *client.Roots {
	if m.sess == nil {
		return nil
	}
	return m.sess.Roots()
}

// rootsKey handles the roots pane's own keys: a adds a folder, d removes
// the selected root.
func (m *Model) rootsKey(key string) (tea.Cmd, bool) {
	roots := m.rootsList()
	switch key {
	case "a":
		if roots == nil {
			m.status = "the session declares no roots"
			return nil, true
		}
		in := newInput(m.st, "")
		in.Prompt = "add root folder: "
		in.Focus()
		m.rootsEdit = &rootsEdit{input: in}
		return nil, true
	case "d", "delete", "x":
		i := m.lists[paneRoots].selected()
		if roots == nil || i < 0 {
			return nil, true
		}
		list := roots.List()
		gone := list[i]
		roots.Set(append(list[:i:i], list[i+1:]...))
		m.showRoots()
		m.status = "removed root " + oneLine(gone.URI)
		return m.announceRoots(), true
	}
	return nil, false
}

// rootsEditKey handles a key while a folder is typed: enter adds it.
func (m *Model) rootsEditKey(k tea.KeyMsg) tea.Cmd {
	e := m.rootsEdit
	switch k.String() {
	case "esc":
		m.rootsEdit = nil
		return nil
	case "enter":
		m.rootsEdit = nil
		root, err := client.RootFromDir(e.input.Value())
		if err != nil {
			m.status = "not added: " + oneLine(err.Error())
			return nil
		}
		roots := m.rootsList()
		roots.Set(append(roots.List(), root))
		m.showRoots()
		m.lists[paneRoots].end(m.bodyHeight())
		m.status = "added root " + oneLine(root.URI)
		return m.announceRoots()
	}
	var cmd tea.Cmd
	e.input, cmd = e.input.Update(k)
	return cmd
}

// announceRoots sends notifications/roots/list_changed.
func (m *Model) announceRoots() tea.Cmd {
	ctx, s := m.ctx, m.sess
	return func() tea.Msg { return rootsChangedMsg{err: s.NotifyRootsChanged(ctx)} }
}

func (m *Model) rootsChanged(msg rootsChangedMsg) {
	if msg.err != nil {
		m.addEvent(time.Now(), "roots/list_changed not sent: "+msg.err.Error())
		return
	}
	m.addEvent(time.Now(), "roots changed: notifications/roots/list_changed sent")
}
