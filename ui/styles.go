package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/mcpctl/mcpctl/render"
)

// styles are the program's named styles, bound to a renderer whose colour
// profile the command chose (NO_COLOR, --color): without colour they add
// nothing, so the screen is plain text.
type styles struct {
	title, tab, activeTab, dim, cursor, err, ok, key, heading lipgloss.Style
}

func newStyles(color bool) *styles {
	r := lipgloss.NewRenderer(nil)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return &styles{
		title:     r.NewStyle().Bold(true),
		tab:       r.NewStyle().Faint(true),
		activeTab: r.NewStyle().Bold(true).Underline(true),
		dim:       r.NewStyle().Faint(true),
		cursor:    r.NewStyle().Reverse(true),
		err:       r.NewStyle().Foreground(lipgloss.Color("1")),
		ok:        r.NewStyle().Foreground(lipgloss.Color("2")),
		key:       r.NewStyle().Bold(true),
		heading:   r.NewStyle().Bold(true),
	}
}

// fit cuts s to width cells, marking the cut.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// cellWidth is how many cells s takes on screen.
func cellWidth(s string) int { return ansi.StringWidth(s) }

// oneLine is server text for one row: sanitised as everywhere else on a
// terminal, its line breaks and tabs made spaces.
func oneLine(s string) string {
	s = render.Sanitize(s)
	if strings.ContainsAny(s, "\n\r\t") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}

// screen lays out a whole screen w cells wide and h rows high: the title
// bar, the tabs, content in body rows and the status line.
func screen(st *styles, w, h, body int, title, tabs string, content []string, status string) string {
	lines := make([]string, 0, h)
	lines = append(lines, fit(st.title.Render(title), w), tabs)
	lines = append(lines, pad(content, w, body)...)
	lines = append(lines, fit(status, w))
	return strings.Join(lines, "\n")
}

// pad makes lines exactly height long and each cut to width.
func pad(lines []string, width, height int) []string {
	out := make([]string, 0, height)
	for _, l := range lines {
		if len(out) == height {
			break
		}
		out = append(out, fit(l, width))
	}
	for len(out) < height {
		out = append(out, "")
	}
	return out
}

// sideBySide joins two columns of equal height, the left one padded to
// width cells, separated by a bar.
func sideBySide(left, right []string, width int) []string {
	out := make([]string, len(left))
	for i := range left {
		l := left[i]
		if w := cellWidth(l); w < width {
			l += strings.Repeat(" ", width-w)
		}
		r := ""
		if i < len(right) {
			r = right[i]
		}
		out[i] = l + " │ " + r
	}
	return out
}
