package render

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles holds every style render uses, defined here and nowhere else.
//
// Colours are the 16 basic ANSI colours on purpose: the user's terminal theme
// maps them to readable shades on light and dark backgrounds alike, so there
// is no need for lipgloss.AdaptiveColor, which would query the terminal for
// its background colour (slow, and it can hang over some SSH sessions).
type styles struct {
	header     lipgloss.Style // table header cells
	heading    lipgloss.Style // section headings ("Instructions", "Tools")
	label      lipgloss.Style // Fields labels
	dim        lipgloss.Style // metadata: content markers, structuredContent label, server stderr
	role       lipgloss.Style // prompt message role headers
	jsonKey    lipgloss.Style // object keys in coloured JSON
	jsonString lipgloss.Style // string values in coloured JSON
	warning    lipgloss.Style // "warning:" prefix
	errorLabel lipgloss.Style // "error:" prefix
}

func newStyles(r *lipgloss.Renderer) styles {
	return styles{
		header:     r.NewStyle().Bold(true),
		heading:    r.NewStyle().Bold(true),
		label:      r.NewStyle().Bold(true),
		dim:        r.NewStyle().Faint(true),
		role:       r.NewStyle().Bold(true).Foreground(lipgloss.Color("5")),
		jsonKey:    r.NewStyle().Bold(true).Foreground(lipgloss.Color("4")),
		jsonString: r.NewStyle().Foreground(lipgloss.Color("2")),
		warning:    r.NewStyle().Bold(true).Foreground(lipgloss.Color("3")),
		errorLabel: r.NewStyle().Bold(true).Foreground(lipgloss.Color("1")),
	}
}

// newRenderer binds a lipgloss renderer to w. The colour decision was already
// made by the caller (TTY, NO_COLOR, CLICOLOR_FORCE, TERM=dumb), so the
// profile is set explicitly and lipgloss never inspects the environment or
// the terminal itself. The basic ANSI profile covers every colour in styles.
func newRenderer(w io.Writer, color bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}

// span is the pair of escape sequences a style puts around text. Styling a
// token by writing pre, token, post avoids running lipgloss's full layout
// machinery for every token of a large JSON document or stderr stream.
type span struct{ pre, post string }

func spanOf(s lipgloss.Style) span {
	const marker = "\x00"
	out := s.Render(marker)
	pre, post, ok := strings.Cut(out, marker)
	if !ok {
		return span{}
	}
	return span{pre: pre, post: post}
}
