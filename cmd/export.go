package cmd

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/export"
)

// ExportOptions are the options of `mcpctl export`.
type ExportOptions struct {
	// Session is a proxy session's id (or "latest"), a log file, or "-".
	Session string
	// Format is json, har, otlp or html.
	Format string
	// Output is the file written; "" or "-" is stdout.
	Output string
}

// NewCmdExport builds `mcpctl export [SESSION|FILE|-]`.
func NewCmdExport(f *Factory) *cobra.Command {
	opts := &ExportOptions{}
	cmd := &cobra.Command{
		Use:   "export [SESSION|FILE|-] -f {json|har|otlp|html} [-o FILE]",
		Short: "Export a captured session as JSON, HAR, OpenTelemetry traces or an HTML page",
		Long: `Export a captured session: a proxy session (its id, a prefix of it, or
latest, the default), a session log, trace or recording file, or - for
stdin. The session is read through the proxy's checks, which pair every
request with its answer; the export has a record per call.

  json   the calls (method, tool, id, start, latency, error) with their
         request and response messages, and the checks' flags
  har    HAR 1.2, an entry per call: the request as a POST body, the
         answer as the response, the latency as the wait
  otlp   OTLP/JSON traces (what a collector's /v1/traces takes), a span
         per call; a request whose params._meta.traceparent names a trace
         joins it
  html   one self-contained page to open in a browser: calls, flags, a
         search box, each message as collapsible JSON; it loads nothing
         from the network

Secrets stay as the session log has them: redacted by the proxy.`,
		Example: `  mcpctl call get-sum a=2 b=3 -- mcpctl proxy -- npx -y @modelcontextprotocol/server-everything
  mcpctl export -f html -o session.html
  mcpctl export latest -f har -o session.har
  mcpctl export -f otlp | curl -sS -H 'Content-Type: application/json' --data-binary @- http://127.0.0.1:4318/v1/traces  # needs: an OpenTelemetry collector
  mcpctl export -f json -o session.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Session = args[0]
			}
			if !slices.Contains(export.Formats(), opts.Format) {
				return flagErrorf("-f %s: not a format; one of %s", opts.Format, strings.Join(export.Formats(), ", "))
			}
			return runExport(f, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Format, "format", "f", "json", "Write `FORMAT`: "+strings.Join(export.Formats(), ", "))
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "Write to `FILE` instead of stdout")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(export.Formats(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runExport(f *Factory, opts *ExportOptions) error {
	name, r, closeFn, err := openCheckInput(f, opts.Session)
	if err != nil {
		return err
	}
	s, err := export.Read(r, name, false)
	closeFn()
	if err := r.result(f, name, "export", err); err != nil {
		return err
	}
	info := export.Info{Name: "mcpctl", Version: buildVersion().Version}
	if opts.Output == "" || opts.Output == "-" {
		w := bufio.NewWriter(f.IOStreams.Out)
		if err := export.Write(w, opts.Format, s, info); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := os.MkdirAll(filepath.Dir(opts.Output), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", opts.Output, err)
	}
	err = writeReportFile(opts.Output, false, func(file *os.File) error {
		w := bufio.NewWriter(file)
		if err := export.Write(w, opts.Format, s, info); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", opts.Output, err)
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "wrote %d calls of %s to %s\n", len(s.Calls), name, opts.Output)
	return nil
}
