package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// entry is one row of a list: what is shown, and what the filter matches.
type entry struct {
	name string
	desc string
	key  string // name and description, lower-cased, for the filter
}

// list is a filterable, scrollable list. Only the rows on screen are
// drawn, so its cost per frame does not grow with its length.
type list struct {
	items  []entry
	filter string
	shown  []int // indexes of items matching the filter
	cursor int   // index into shown
	offset int   // first row of shown on screen
}

func newList(items []entry) list {
	l := list{items: items}
	l.apply()
	return l
}

// setFilter filters the list by a case-insensitive substring of the name
// or description.
func (l *list) setFilter(f string) {
	l.filter = f
	l.apply()
}

func (l *list) apply() {
	f := strings.ToLower(l.filter)
	l.shown = l.shown[:0]
	for i := range l.items {
		if f == "" || strings.Contains(l.items[i].key, f) {
			l.shown = append(l.shown, i)
		}
	}
	l.cursor, l.offset = 0, 0
}

// selected is the index of the item under the cursor, -1 when none.
func (l *list) selected() int {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return -1
	}
	return l.shown[l.cursor]
}

// move moves the cursor by delta rows, keeping it on screen (height rows).
func (l *list) move(delta, height int) {
	l.cursor = max(0, min(len(l.shown)-1, l.cursor+delta))
	l.scroll(height)
}

// home and end jump to the first and last rows.
func (l *list) home(height int) { l.cursor = 0; l.scroll(height) }
func (l *list) end(height int)  { l.cursor = len(l.shown) - 1; l.scroll(height) }

func (l *list) scroll(height int) {
	if l.cursor < 0 {
		l.cursor = 0
	}
	if height < 1 {
		height = 1
	}
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+height {
		l.offset = l.cursor - height + 1
	}
}

// view draws height rows width cells wide, the cursor's marked.
func (l *list) view(st *styles, width, height int) []string {
	l.scroll(height)
	rows := make([]string, 0, height)
	for r := l.offset; r < len(l.shown) && len(rows) < height; r++ {
		it := l.items[l.shown[r]]
		text := it.name
		if it.desc != "" {
			text += "  " + st.dim.Render(fit(it.desc, max(0, width-2-cellWidth(it.name)-2)))
		}
		line := fit("  "+text, width)
		if r == l.cursor {
			line = st.cursor.Render(fit("> "+it.name, width))
			if it.desc != "" && cellWidth(it.name)+4 < width {
				line = st.cursor.Render("> "+it.name) + "  " + st.dim.Render(fit(it.desc, width-4-cellWidth(it.name)))
			}
		}
		rows = append(rows, line)
	}
	return rows
}

// filterKey applies a key typed while the filter input has the focus, the
// same in both views: enter and the arrows keep the filter, esc clears it;
// any other key edits it and the list follows. done reports that the
// input gave up the focus.
func (l *list) filterKey(in *textinput.Model, k tea.KeyMsg) (done bool, cmd tea.Cmd) {
	switch k.String() {
	case "enter", "down", "up":
		in.Blur()
		return true, nil
	case "esc":
		in.Blur()
		l.setFilter("")
		return true, nil
	}
	*in, cmd = in.Update(k)
	if v := in.Value(); v != l.filter {
		l.setFilter(v)
	}
	return false, cmd
}

// scrollKey moves a text of height h rows by one of the scrolling keys
// both views share, and reports whether key was one of them.
func (t *textView) scrollKey(key string, h int) bool {
	last := max(0, len(t.lines)-h)
	switch key {
	case "down", "j":
		t.scroll = min(last, t.scroll+1)
	case "up", "k":
		t.scroll = max(0, t.scroll-1)
	case "pgdown", " ", "ctrl+f":
		t.scroll = min(last, t.scroll+h)
	case "pgup", "ctrl+b":
		t.scroll = max(0, t.scroll-h)
	case "home", "g":
		t.scroll = 0
	case "end", "G":
		t.scroll = last
	default:
		return false
	}
	return true
}
