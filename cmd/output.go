package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
	"golang.org/x/term"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// OutputOptions are the output flags shared by commands that print results:
// -o text|json|yaml, --json and --jq. Commands print their data through
// [OutputOptions.write] when [OutputOptions.structured] says so.
type OutputOptions struct {
	Format string // "text", "json" or "yaml"
	JSON   bool
	// JQ is a jq expression applied to the JSON output (--jq).
	JQ string
	// ExitStatus (--exit-status) fails the run with exit 1 when the last
	// output of JQ is false or null, or when there is none, as jq -e does
	// (jq exits 4 for no output, but 4 is mcpctl's isError code).
	ExitStatus bool
}

// addOutputFlags registers the output flags on cmd; `mcpctl help output`
// documents them.
func addOutputFlags(cmd *cobra.Command, o *OutputOptions) {
	inTopic(cmd, topicOutput, func() { registerOutputFlags(cmd, o) })
}

// registerOutputFlags is [addOutputFlags] without the help topic.
func registerOutputFlags(cmd *cobra.Command, o *OutputOptions) {
	cmd.Flags().StringVarP(&o.Format, "output", "o", "text", "Output `format`: text, json or yaml")
	markSetting(cmd, "output")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "Print the protocol result as JSON (same as -o json)")
	cmd.Flags().StringVar(&o.JQ, "jq", "", "Filter the JSON output with the jq `expression` (implies -o json; strings are printed raw)")
	// No -e shorthand as in jq: -e is the stdio server's environment.
	cmd.Flags().BoolVar(&o.ExitStatus, "exit-status", false, "With --jq: exit 1 when the last output is false or null, or when there is none (as jq -e)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]cobra.Completion{"text", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("jq", cobra.NoFileCompletions)
}

// checkOutputFlags refuses output flags that contradict each other on the
// command line (--json -o yaml, --jq with -o text) rather than let one
// silently win. It runs before the settings fill -o in: an -o from
// MCPCTL_OUTPUT or the config file gives way to --json and --jq.
func checkOutputFlags(fs *pflag.FlagSet) error {
	if !fs.Changed("output") {
		return nil
	}
	format := fs.Lookup("output").Value.String()
	switch {
	case fs.Changed("json") && format != "json":
		return flagErrorf("--json and -o %s ask for different output: give one of them", format)
	case fs.Changed("jq") && format == "text":
		return flagErrorf("--jq filters JSON output, but -o text asks for text: drop -o text (or use -o yaml to print the result as YAML)")
	}
	return nil
}

func (o *OutputOptions) validate() error {
	if o.JSON {
		o.Format = "json"
	}
	switch o.Format {
	case "text", "json", "yaml":
	default:
		return flagErrorf("invalid --output %q: expected text, json or yaml", o.Format)
	}
	if o.ExitStatus && o.JQ == "" {
		return flagErrorf("--exit-status tests the output of --jq: give a --jq expression, e.g. --jq '.isError | not' --exit-status")
	}
	if o.JQ != "" {
		if o.Format == "text" {
			o.Format = "json"
		}
		if _, err := compileJQ(o.JQ); err != nil {
			return err
		}
	}
	return nil
}

// structured reports whether the command prints data (JSON or YAML) rather
// than text.
func (o *OutputOptions) structured() bool { return o.Format == "json" || o.Format == "yaml" }

// write prints v, a value for encoding/json or a json.RawMessage kept as
// the server sent it, in the chosen format, through the jq filter if any.
func (o *OutputOptions) write(p *render.Printer, v any) error {
	if o.JQ == "" && o.Format != "yaml" {
		return p.JSON(v)
	}
	data, err := marshalJSON(v)
	if err != nil {
		return err
	}
	if o.JQ == "" {
		return writeYAML(p.Out, data)
	}
	code, err := compileJQ(o.JQ)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // big integers stay exact
	var input any
	if err := dec.Decode(&input); err != nil {
		return fmt.Errorf("decoding the output for --jq: %w", err)
	}
	iter := code.Run(input)
	var last any
	outputs := 0
	for {
		res, ok := iter.Next()
		if !ok {
			return o.exitStatus(outputs, last)
		}
		if _, isErr := res.(error); !isErr {
			last = res
			outputs++
		}
		switch res := res.(type) {
		case error:
			var halt *gojq.HaltError
			if errors.As(res, &halt) && halt.Value() == nil {
				return nil
			}
			return &FlagError{Err: fmt.Errorf("--jq %s: %w", o.JQ, res)}
		case string:
			// Like gh, strings are printed raw: --jq '.tools[].name' gives
			// one name per line.
			if _, err := fmt.Fprintln(p.Out, res); err != nil {
				return err
			}
			continue
		}
		out, err := gojq.Marshal(res)
		if err != nil {
			return fmt.Errorf("--jq %s: %w", o.JQ, err)
		}
		if o.Format == "yaml" {
			err = writeYAML(p.Out, out)
		} else {
			err = p.JSON(json.RawMessage(out))
		}
		if err != nil {
			return err
		}
	}
}

// exitStatus is the outcome of --exit-status for a jq run that printed
// outputs values, the last being last: an [ExitCodeError] with exit 1 and
// no message (the output said it) when that is false or null or there was
// nothing.
func (o *OutputOptions) exitStatus(outputs int, last any) error {
	if !o.ExitStatus {
		return nil
	}
	if outputs == 0 || last == nil || last == false {
		return &ExitCodeError{Code: ExitError}
	}
	return nil
}

// compileJQ parses and compiles a jq expression; a bad one is a usage
// error naming the problem.
func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		var perr *gojq.ParseError
		if errors.As(err, &perr) {
			return nil, flagErrorf("invalid --jq expression %q: %v (at byte %d)", expr, err, perr.Offset)
		}
		return nil, flagErrorf("invalid --jq expression %q: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, flagErrorf("invalid --jq expression %q: %v", expr, err)
	}
	return code, nil
}

// marshalJSON encodes v as render.Printer.JSON does: raw messages as they
// are, no HTML escaping.
func marshalJSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if len(bytes.TrimSpace(raw)) == 0 {
			return []byte("null"), nil
		}
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// writeYAML prints JSON data as YAML, keeping the order of object keys:
// the JSON is read token by token into a yaml.Node tree rather than into
// maps.
func writeYAML(w io.Writer, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	node, err := yamlNode(dec)
	if err != nil {
		return fmt.Errorf("converting the output to YAML: %w", err)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return err
	}
	return enc.Close()
}

// yamlNode reads one JSON value from dec.
func yamlNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if tok == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for dec.More() {
			if n.Kind == yaml.MappingNode {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key.(string)})
			}
			child, err := yamlNode(dec)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, child)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle // {} and []
		}
		return n, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: tok}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(tok.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: tok.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(tok)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

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
