package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

var toolHeaders = []string{"NAME", "TITLE", "DESCRIPTION"}

var toolRows = [][]string{
	{"echo", "Echo", "Echoes the message back.\nSecond line."},
	{"add", "Add numbers", "Adds\ttwo numbers: a <b> & c"},
	{"longRunningOperation", "", "Demonstrates a long running operation with progress updates, which takes a while to finish"},
	{"日本語ツール", "絵文字 🎉", "説明文はとても長いのでターミナルの幅に収まらないかもしれません。切り詰められるべきです。"},
}

func TestTablePlain(t *testing.T) {
	tests := []struct {
		name string
		rows [][]string
		want string
	}{
		{
			name: "full values, tabs between fields, no header",
			rows: toolRows,
			want: "echo\tEcho\tEchoes the message back. Second line.\n" +
				"add\tAdd numbers\tAdds two numbers: a <b> & c\n" +
				"longRunningOperation\t\tDemonstrates a long running operation with progress updates, which takes a while to finish\n" +
				"日本語ツール\t絵文字 🎉\t説明文はとても長いのでターミナルの幅に収まらないかもしれません。切り詰められるべきです。\n",
		},
		{
			name: "CRLF and CR become one space each",
			rows: [][]string{{"a\r\nb", "c\rd"}},
			want: "a b\tc d\n",
		},
		{
			name: "ragged rows are written as given",
			rows: [][]string{{"one"}, {"two", "2", "extra"}},
			want: "one\ntwo\t2\textra\n",
		},
		{name: "empty list writes nothing", rows: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			p := &Printer{Out: &out, ErrOut: &errOut, Width: 20}
			if err := p.Table(toolHeaders, tt.rows, "No tools."); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if errOut.Len() != 0 {
				t.Errorf("stderr = %q, want nothing when piped", errOut.String())
			}
		})
	}
}

func TestTableTTYLayout(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true, Width: 200}
	rows := [][]string{
		{"echo", "Echo", "Echoes the message back.\nSecond line.\n"},
		{"add", "", "Adds\ttwo numbers \x1b[31mred\x1b[0m"},
		{"日本語", "🎉", "wide"},
	}
	if err := p.Table(toolHeaders, rows, "No tools."); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME    TITLE  DESCRIPTION\n" +
		"echo    Echo   Echoes the message back. Second line.\n" +
		"add            Adds two numbers ^[[31mred^[[0m\n" +
		"日本語  🎉     wide\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTableTTYFitsWidth(t *testing.T) {
	nameWidth := 0
	for _, r := range toolRows {
		nameWidth = max(nameWidth, lipgloss.Width(r[0]))
	}
	for _, color := range []bool{false, true} {
		for _, width := range []int{1, 5, 12, 20, 33, 40, 60, 80, 120} {
			var out bytes.Buffer
			p := &Printer{Out: &out, TTY: true, Color: color, Width: width}
			if err := p.Table(toolHeaders, toolRows, ""); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			// Names stay whole, so only a terminal narrower than the names
			// and the other columns' floors gets wider lines.
			limit := max(width, nameWidth+2*len(columnGap)+2*wrapFloor)
			for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if w := lipgloss.Width(line); w > limit {
					t.Errorf("color=%v width=%d: line is %d cells wide: %q", color, width, w, line)
				}
			}
			plain := ansi.Strip(got)
			for _, r := range toolRows {
				if !strings.Contains(plain, r[0]) {
					t.Errorf("color=%v width=%d: name %q was cut:\n%s", color, width, r[0], plain)
				}
			}
			if strings.Contains(plain, "…") {
				t.Errorf("color=%v width=%d: something was cut:\n%s", color, width, plain)
			}
			if hasEscape := strings.Contains(got, "\x1b"); hasEscape != color {
				t.Errorf("color=%v width=%d: output has escape sequences = %v:\n%q", color, width, hasEscape, got)
			}
		}
	}
}

func TestTableTTYWrapsInsteadOfCutting(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true, Width: 40}
	rows := [][]string{
		{"toggle-simulated-logging", "Toggles simulated logging on and off"},
		{"add", "short"},
	}
	if err := p.Table([]string{"NAME", "DESCRIPTION"}, rows, ""); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME                      DESCRIPTION\n" +
		"toggle-simulated-logging  Toggles\n" +
		"                          simulated\n" +
		"                          logging on and\n" +
		"                          off\n" +
		"add                       short\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestColumnsWholeAndShared(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true, Width: 50}
	cols := []Column{{Header: "SEV", Whole: true}, {Header: "RULE", Whole: true}, {Header: "MESSAGE"}}
	rows := [][]string{{"error", "tool-name-invalid", "the name has a space in it, which clients reject"}}
	if err := p.Columns(cols, rows, ""); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"SEV    RULE               MESSAGE\n" +
		"error  tool-name-invalid  the name has a space in\n" +
		"                          it, which clients reject\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTableTTYBoldHeader(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true, Color: true, Width: 80}
	if err := p.Table([]string{"NAME"}, [][]string{{"echo"}}, ""); err != nil {
		t.Fatal(err)
	}
	if want := "\x1b[1mNAME\x1b[0m\necho\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestTableTTYEmpty(t *testing.T) {
	var out, errOut bytes.Buffer
	p := &Printer{Out: &out, ErrOut: &errOut, TTY: true, Width: 80}
	if err := p.Table(toolHeaders, nil, "No tools."); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errOut.String() != "No tools.\n" {
		t.Errorf("stdout %q, stderr %q; want nothing and %q", out.String(), errOut.String(), "No tools.\n")
	}
}

func TestTableTTYNoWidthLimit(t *testing.T) {
	var out bytes.Buffer
	long := strings.Repeat("x", 500)
	p := &Printer{Out: &out, TTY: true}
	if err := p.Table([]string{"A", "B"}, [][]string{{"a", long}}, ""); err != nil {
		t.Fatal(err)
	}
	if want := "A  B\na  " + long + "\n"; out.String() != want {
		t.Errorf("Width 0 truncated the table: %q", out.String())
	}
}

func TestFitWidths(t *testing.T) {
	wrap3 := []bool{true, false, false}
	tests := []struct {
		name    string
		natural []int
		floors  []int
		whole   []bool
		avail   int
		want    []int
	}{
		{"fits", []int{4, 5, 10}, []int{4, 5, 10}, wrap3, 19, []int{4, 5, 10}},
		{"a short column is not widened past its contents", []int{4, 5, 30}, []int{4, 5, 12}, wrap3, 19, []int{4, 5, 12}},
		{"whole column is never narrowed, the description grows first", []int{24, 18, 60}, []int{24, 12, 12}, wrap3, 50, []int{24, 12, 14}},
		{"the description gets twice the share", []int{10, 40, 60}, []int{10, 12, 12}, wrap3, 50, []int{10, 14, 26}},
		{"a column needing little keeps little", []int{10, 13, 60}, []int{10, 12, 12}, wrap3, 50, []int{10, 13, 27}},
		{"wide enough: all natural", []int{10, 40, 60}, []int{10, 12, 12}, wrap3, 110, []int{10, 40, 60}},
		{"the rest goes to the description", []int{10, 40, 200}, []int{10, 12, 12}, wrap3, 196, []int{10, 40, 146}},
		{"below the floors the widest wrapping column gives", []int{20, 20, 30}, []int{20, 14, 16}, wrap3, 44, []int{20, 12, 12}},
		{"never below wrapFloor", []int{20, 20, 30}, []int{20, 12, 12}, wrap3, 24, []int{20, 12, 12}},
		{"nothing left", []int{3, 3}, []int{3, 3}, []bool{true, false}, 0, []int{3, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fitWidths(tt.natural, tt.floors, tt.whole, len(tt.natural)-1, tt.avail)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fitWidths(%v, %v, %d) (-want +got):\n%s", tt.natural, tt.floors, tt.avail, diff)
			}
		})
	}
}

func TestColumnsOptionalLeftOutWhenCramped(t *testing.T) {
	cols := []Column{{Header: "NAME", Whole: true}, {Header: "TITLE", Optional: true}, {Header: "DESCRIPTION"}}
	rows := [][]string{{"toggle-simulated-logging", "Turn logging on or off", "Toggles simulated, random-leveled logging on or off."}}
	for _, tt := range []struct {
		width     int
		wantTitle bool
	}{{60, false}, {120, true}} {
		var out bytes.Buffer
		p := &Printer{Out: &out, TTY: true, Width: tt.width}
		if err := p.Columns(cols, rows, ""); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "TITLE"); got != tt.wantTitle {
			t.Errorf("width %d: TITLE shown = %v, want %v:\n%s", tt.width, got, tt.wantTitle, out.String())
		}
		if !strings.Contains(out.String(), "toggle-simulated-logging") {
			t.Errorf("width %d: name cut:\n%s", tt.width, out.String())
		}
	}
}

func TestWrapWords(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"fits", 10, []string{"fits"}},
		{"a b c d e", 3, []string{"a b", "c d", "e"}},
		{"one supercalifragilistic word", 8, []string{"one", "supercal", "ifragili", "stic", "word"}},
		{"see ~/.config/Claude/claude_desktop_config.json", 16, []string{"see", "~/.config/", "Claude/claude_", "desktop_config.", "json"}},
		{"日本語の説明", 5, []string{"日本", "語の", "説明"}},
		{"日本", 1, []string{"日", "本"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, wrapWords(tt.s, tt.width)); diff != "" {
			t.Errorf("wrapWords(%q, %d) (-want +got):\n%s", tt.s, tt.width, diff)
		}
	}
}
