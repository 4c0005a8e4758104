package render_test

import (
	"fmt"
	"os"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// When Out is not a terminal, a table is tab-separated full values without
// a header, ready for cut and awk.
func ExamplePrinter_Table() {
	p := &render.Printer{Out: os.Stdout, ErrOut: os.Stderr}
	_ = p.Table(
		[]string{"NAME", "DESCRIPTION"},
		[][]string{
			{"echo", "Echoes back\nthe input"},
			{"add", "Adds two numbers"},
		},
		"No tools.",
	)
	// Output:
	// echo	Echoes back the input
	// add	Adds two numbers
}

// On a terminal the same table gets a header and fits the width.
func ExamplePrinter_Table_terminal() {
	p := &render.Printer{Out: os.Stdout, ErrOut: os.Stderr, TTY: true, Width: 30}
	_ = p.Table(
		[]string{"NAME", "DESCRIPTION"},
		[][]string{
			{"echo", "Echoes back\nthe input"},
			{"add", "Adds two numbers together, exactly"},
		},
		"No tools.",
	)
	// Output:
	// NAME  DESCRIPTION
	// echo  Echoes back the input
	// add   Adds two numbers
	//       together, exactly
}

func ExamplePrinter_Fields() {
	p := &render.Printer{Out: os.Stdout}
	_ = p.Fields([][2]string{
		{"Server", "demo 1.0.0"},
		{"Protocol", "2025-11-25"},
	})
	// Output:
	// Server:   demo 1.0.0
	// Protocol: 2025-11-25
}

func ExamplePrinter_Content() {
	p := &render.Printer{Out: os.Stdout}
	_, _ = p.Content([]client.Content{
		{Type: "text", Text: "Hello"},
		{Type: "resource_link", URI: "file:///notes.md", Name: "notes.md", MIMEType: "text/markdown"},
	}, render.ContentOptions{})
	// Output:
	// Hello
	// [resource link] file:///notes.md (notes.md, text/markdown)
}

// Escape sequences in what a server sends are shown, not obeyed: this one
// would write to the clipboard, this one would hide "rm" behind "ls".
func ExampleSanitize() {
	fmt.Println(render.Sanitize("copy \x1b]52;c;ZXZpbA==\x07 done"))
	fmt.Println(render.Sanitize("rm -rf ~\rls   "))
	// Output:
	// copy ^[]52;c;ZXZpbA==^G done
	// rm -rf ~^Mls
}

// A flood of identical warnings prints a few and a count.
func ExampleWarner() {
	w := &render.Warner{Out: os.Stdout, Limit: 2}
	for i := range 1000 {
		w.Warn("closed", fmt.Sprintf("mcpctl: protocol violation: answer %d: connection closed", i))
	}
	w.Flush()
	// Output:
	// mcpctl: protocol violation: answer 0: connection closed
	// mcpctl: protocol violation: answer 1: connection closed
	// mcpctl: … and 998 more like this (closed)
}
