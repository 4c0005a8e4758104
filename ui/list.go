package ui

import (
	"strings"
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
