package cmd

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// printer builds a render.Printer for the command's streams.
// Invalid UTF-8 from the server is replaced in JSON output, and kept (or
// shown as \xNN on a terminal) in text output, each with one warning per
// run: the output alone would not tell.
func (f *Factory) printer() *render.Printer {
	p := f.IOStreams.Printer()
	st := f.state()
	p.OnInvalidUTF8 = func() {
		st.utf8Once.Do(func() {
			f.Warner().Warn("invalid utf-8", "mcpctl: warning: "+render.InvalidUTF8Warning)
		})
	}
	p.OnInvalidText = func() {
		st.textOnce.Do(func() {
			f.Warner().Warn("invalid utf-8 text", "mcpctl: warning: "+render.InvalidTextWarning(p.Terminal()))
		})
	}
	return p
}

// errWidth is the width error lines wrap at: the terminal's (COLUMNS when
// set) when stderr is one, else 0, which leaves them on one line.
func (s *IOStreams) errWidth() int {
	if !s.stderrTTY {
		return 0
	}
	if s.width > 0 {
		return s.width
	}
	if f, ok := s.ErrOut.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return defaultTerminalWidth
}

// commandHint writes an mcpctl command line for an error's hint as it is
// typed where the command runs: "mcpctl read --demo demo://readme" in a
// terminal, "read demo://readme" at the shell's prompt. server, the flags
// that choose a server in the example, is left out in the shell, which
// chose its server when it started.
func (f *Factory) commandHint(line, server string) string {
	if f.shared != nil {
		return line
	}
	name, rest, _ := strings.Cut(line, " ")
	parts := []string{"mcpctl", name}
	for _, p := range []string{server, rest} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// blobCacheDir is the folder binary content goes to on a terminal when no
// --save-dir is given: os.UserCacheDir()/mcpctl/blobs, read from the
// factory's environment (XDG_CACHE_HOME, else ~/.cache; the system's
// folder on macOS and Windows).
func (f *Factory) blobCacheDir() (string, error) {
	if d, ok := f.LookupEnv("XDG_CACHE_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpctl", "blobs"), nil
	}
	switch f.GOOS {
	case "darwin", "ios":
		if home := f.home(); home != "" {
			return filepath.Join(home, "Library", "Caches", "mcpctl", "blobs"), nil
		}
	case "windows", "plan9":
		d, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "mcpctl", "blobs"), nil
	default:
		if home := f.home(); home != "" {
			return filepath.Join(home, ".cache", "mcpctl", "blobs"), nil
		}
	}
	return "", errors.New("no home directory (HOME is not set) and no XDG_CACHE_HOME")
}

// contentOptions says where the binary content a command prints goes:
// into saveDir when given (--save-dir); on a terminal, into the bounded
// cache folder ([Factory.blobCacheDir]); piped, nowhere. done, called once
// the content is printed, says on stderr how many blocks were not saved
// and how to save them. With verbose, a copy of the content left out is
// noted on stderr.
func (f *Factory) contentOptions(saveDir string, verbose bool) (opts render.ContentOptions, done func()) {
	ios := f.IOStreams
	opts.SaveDir = saveDir
	if saveDir == "" && ios.IsStdoutTTY() {
		if dir, err := f.blobCacheDir(); err == nil {
			opts.CacheDir = dir
		} else if verbose {
			fmt.Fprintf(ios.ErrOut, "mcpctl: binary content is not saved: no cache folder: %v\n", err)
		}
	}
	unsaved := 0
	opts.Unsaved = func() { unsaved++ }
	if verbose {
		opts.Note = func(msg string) { fmt.Fprintln(ios.ErrOut, "mcpctl: "+msg) }
	}
	return opts, func() {
		switch {
		case unsaved == 1:
			fmt.Fprintln(ios.ErrOut, "mcpctl: 1 binary block was not saved: give --save-dir DIR to save it")
		case unsaved > 1:
			fmt.Fprintf(ios.ErrOut, "mcpctl: %d binary blocks were not saved: give --save-dir DIR to save them\n", unsaved)
		}
	}
}

// printToolResult writes a tool result as text: content and
// structuredContent each said once (see [render.Printer.ToolResult]),
// binary content where [Factory.contentOptions] puts it.
func (f *Factory) printToolResult(p *render.Printer, res *client.CallToolResult, saveDir string, verbose bool) error {
	opts, done := f.contentOptions(saveDir, verbose)
	_, err := p.ToolResult(res.Content, res.StructuredContent, opts)
	done()
	return err
}

// notificationPrinter shows server log messages and progress on stderr;
// the client has decoded them.
func (f *Factory) notificationPrinter() func(client.Notification) {
	ios := f.IOStreams
	red := f.Redactor()
	// Server text on a terminal is shown, not obeyed.
	untrusted := func(s string) string {
		s = red.String(s)
		if ios.IsStderrTTY() {
			s = render.Sanitize(s)
		}
		return s
	}
	return func(n client.Notification) {
		switch {
		case n.Log != nil:
			prefix := "server log [" + n.Log.Level + "]"
			if n.Log.Logger != "" {
				prefix += " " + n.Log.Logger
			}
			fmt.Fprintln(ios.ErrOut, render.Dim(untrusted(prefix+": "+n.Log.Text()), ios.ColorErrEnabled()))
		case n.Progress != nil:
			if !ios.IsStderrTTY() {
				return
			}
			p := n.Progress
			var b strings.Builder
			fmt.Fprintf(&b, "progress: %g", p.Progress)
			if p.Total != nil {
				fmt.Fprintf(&b, "/%g", *p.Total)
			}
			if p.Message != "" {
				b.WriteString(" " + untrusted(p.Message))
			}
			// \r and clear-to-end keep the progress on one line.
			fmt.Fprintf(ios.ErrOut, "\r%s\x1b[K", b.String())
		}
	}
}

// transportEvents returns the OnEvent hook of an HTTP transport: events go
// to the trace when there is one, and to stderr with -v.
func (f *Factory) transportEvents(tr *transport.Trace, verbose bool) func(event string, detail any) {
	if tr == nil && !verbose {
		return nil
	}
	ios := f.IOStreams
	red := f.Redactor()
	return func(event string, detail any) {
		if tr != nil {
			tr.Note(event, detail)
		}
		if verbose {
			line := "mcpctl: " + event
			if d := describeDetail(detail); d != "" {
				line += ": " + d
			}
			fmt.Fprintln(ios.ErrOut, red.String(line))
		}
	}
}

// describeDetail writes an event's detail for a person: a map as
// "key value" pairs in key order, anything else as fmt prints it.
func describeDetail(detail any) string {
	switch d := detail.(type) {
	case nil:
		return ""
	case map[string]any:
		parts := make([]string, 0, len(d))
		for _, k := range slices.Sorted(maps.Keys(d)) {
			parts = append(parts, fmt.Sprintf("%s %v", k, d[k]))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(detail)
}

// eventPrinter shows session events from the client (a re-initialized
// session) on stderr when verbose, and nothing otherwise.
func (f *Factory) eventPrinter(verbose bool) func(event, detail string) {
	if !verbose {
		return nil
	}
	ios := f.IOStreams
	red := f.Redactor()
	return func(event, detail string) {
		fmt.Fprintln(ios.ErrOut, red.String(fmt.Sprintf("mcpctl: %s: %s", event, detail)))
	}
}
