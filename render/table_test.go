package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
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
	for _, color := range []bool{false, true} {
		for _, width := range []int{1, 5, 12, 20, 33, 40, 60, 80, 120} {
			var out bytes.Buffer
			p := &Printer{Out: &out, TTY: true, Color: color, Width: width}
			if err := p.Table(toolHeaders, toolRows, ""); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != len(toolRows)+1 {
				t.Fatalf("color=%v width=%d: %d lines, want %d:\n%s", color, width, len(lines), len(toolRows)+1, out.String())
			}
			for _, line := range lines {
				if w := lipgloss.Width(line); w > width {
					t.Errorf("color=%v width=%d: line is %d cells wide: %q", color, width, w, line)
				}
			}
			if hasEscape := strings.Contains(out.String(), "\x1b"); hasEscape != color {
				t.Errorf("color=%v width=%d: output has escape sequences = %v:\n%q", color, width, hasEscape, out.String())
			}
		}
	}
}

func TestTableTTYTruncatesLastColumnFirst(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true, Width: 40}
	rows := [][]string{
		{"echo", "Echoes the message back to the caller, unchanged"},
		{"add", "short"},
	}
	if err := p.Table([]string{"NAME", "DESCRIPTION"}, rows, ""); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME  DESCRIPTION\n" +
		"echo  Echoes the message back to the ca…\n" +
		"add   short\n"
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
	tests := []struct {
		name   string
		widths []int
		avail  int
		want   []int
	}{
		{"fits", []int{4, 5, 10}, 19, []int{4, 5, 10}},
		{"last column shrinks", []int{4, 5, 30}, 19, []int{4, 5, 10}},
		{"last keeps its floor, widest other column gives", []int{20, 5, 30}, 25, []int{10, 5, 10}},
		{"short last column is not cut first", []int{30, 4}, 20, []int{16, 4}},
		{"everything down to floors, then below", []int{20, 20, 30}, 10, []int{3, 3, 4}},
		{"nothing left", []int{3, 3}, 0, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := append([]int(nil), tt.widths...)
			fitWidths(got, tt.avail)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fitWidths(%v, %d) (-want +got):\n%s", tt.widths, tt.avail, diff)
			}
		})
	}
}
