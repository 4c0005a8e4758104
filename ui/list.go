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

// entries are the rows of items, each made by row.
func entries[T any](items []T, row func(T) entry) []entry {
	out := make([]entry, len(items))
	for i, it := range items {
		out[i] = row(it)
	}
	return out
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

// navKey moves the cursor of a list h rows high by one of the keys both
// views share (esc clears the filter), and reports whether key was one of
// them.
func (l *list) navKey(key string, h int) bool {
	switch key {
	case "down", "j":
		l.move(1, h)
	case "up", "k":
		l.move(-1, h)
	case "pgdown", "ctrl+f", " ":
		l.move(h, h)
	case "pgup", "ctrl+b":
		l.move(-h, h)
	case "home", "g":
		l.home(h)
	case "end", "G":
		l.end(h)
	case "esc":
		l.setFilter("")
	default:
		return false
	}
	return true
}

// editFilter gives the filter input the focus, starting from the list's
// filter.
func (l *list) editFilter(in *textinput.Model) {
	in.SetValue(l.filter)
	in.CursorEnd()
	in.Focus()
}

// splitTyped hands each key of a burst to key on its own: a terminal
// delivers keys typed quickly in one read, which bubbletea reports as one
// message. ok is false when k is a single key (or a paste).
func splitTyped(k tea.KeyMsg, key func(tea.KeyMsg) tea.Cmd) (cmd tea.Cmd, ok bool) {
	if k.Type != tea.KeyRunes || len(k.Runes) < 2 || k.Paste {
		return nil, false
	}
	cmds := make([]tea.Cmd, 0, len(k.Runes))
	for _, r := range k.Runes {
		cmds = append(cmds, key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
	}
	return tea.Batch(cmds...), true
}

// browse draws a list beside the details of its selected item: the list
// leftW cells wide, the details (detail of an item, width cells wide) in
// what is left of w, both h rows high. none is what an empty list shows.
func (l *list) browse(st *styles, w, h, leftW int, none string, detail func(i, width int) []string) []string {
	rightW := w - leftW - 3
	if len(l.items) == 0 {
		return []string{"", "  " + st.dim.Render(none)}
	}
	if len(l.shown) == 0 {
		return []string{"", "  " + st.dim.Render("nothing matches the filter")}
	}
	left := pad(l.view(st, leftW, h), leftW, h)
	var right []string
	if i := l.selected(); i >= 0 && rightW > 10 {
		right = pad(detail(i, rightW), rightW, h)
	}
	return sideBySide(left, right, leftW)
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

// view draws the text from its scroll position under its title, width
// cells wide.
func (t *textView) view(st *styles, width int) []string {
	return append([]string{st.heading.Render(fit(t.title, width))}, t.lines[min(t.scroll, len(t.lines)):]...)
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
