// Package ui is `mcpctl ui`, a full-screen terminal inspector of one MCP
// server, built on bubbletea: the server's description, its tools,
// resources, templates and prompts in filterable lists, a call form
// generated from a tool's inputSchema, results as `mcpctl call` prints
// them, the notifications and protocol frames of the session, and forms for
// the server's elicitation requests.
//
// The program adds no protocol code: every request goes through the
// [session.Session] the command opened, its pipeline included; frames come
// from the session's trace, notifications and elicitation requests from
// the client's hooks, through a [Feed]. The screen is drawn by [Model], a
// plain bubbletea model that tests drive with key messages.
package ui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/session"
)

// Options configure the program.
type Options struct {
	// Name describes the server while it connects ("the demo server").
	Name string
	// Connect opens the session: the command's server selection, with its
	// pipeline, trace and hooks going to Feed.
	Connect func(ctx context.Context) (*session.Session, error)
	// Feed carries the session's frames, notifications, stderr and
	// elicitation requests to the screen.
	Feed *Feed
	// Color allows colour and other escape sequences in the screen's text.
	Color bool
	// CallCommand spells a call as the `mcpctl call` command line that
	// repeats it, words shell-quoted; nil shows the arguments only.
	CallCommand func(tool string, args []string) string
	// SaveDir receives the images, audio and blobs the user saves from a
	// result (s), as call's --save-dir; when empty, CacheDir, a folder
	// mcpctl keeps bounded, does. With neither, nothing is saved.
	SaveDir, CacheDir string
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
}

// Result is what the program leaves for the command once the screen is
// restored.
type Result struct {
	// Printed are the command lines the user asked to print ("copy as
	// command line"), in order.
	Printed []string
}

// Run runs the program until the user leaves it or ctx ends. The terminal
// is restored on every way out, a panic included (bubbletea restores it
// before reporting the panic as an error). A session that cannot be
// opened is the error returned.
func Run(ctx context.Context, opts Options) (Result, error) {
	m := New(ctx, opts)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithAltScreen(), tea.WithInput(opts.In), tea.WithOutput(opts.Out))
	final, err := p.Run()
	fm, _ := final.(*Model)
	if fm == nil {
		fm = m
	}
	fm.closeSession()
	res := Result{Printed: fm.printed}
	if errors.Is(err, tea.ErrProgramPanic) {
		return res, fmt.Errorf("ui: internal error (the terminal was restored): %w", err)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return res, ctx.Err()
	}
	if err != nil {
		return res, err
	}
	return res, fm.connErr
}
