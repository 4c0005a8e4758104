package cmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// OutputOptions are the output flags shared by commands that print results.
type OutputOptions struct {
	Format string // "text" or "json"
	JSON   bool
}

func addOutputFlags(cmd *cobra.Command, o *OutputOptions) {
	cmd.Flags().StringVarP(&o.Format, "output", "o", "text", "Output `format`: text or json")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "Print the protocol result as JSON (same as -o json)")
}

func (o *OutputOptions) validate() error {
	if o.JSON {
		o.Format = "json"
	}
	switch o.Format {
	case "text", "json":
		return nil
	}
	return flagErrorf("invalid --output %q: expected text or json", o.Format)
}

func (o *OutputOptions) isJSON() bool { return o.Format == "json" }

// printer builds a render.Printer for the command's streams.
func (f *Factory) printer() *render.Printer { return f.IOStreams.Printer() }

// notificationPrinter shows server log messages and progress on stderr.
func (f *Factory) notificationPrinter() func(method string, params json.RawMessage) {
	ios := f.IOStreams
	return func(method string, params json.RawMessage) {
		switch method {
		case "notifications/message":
			var m struct {
				Level  string          `json:"level"`
				Logger string          `json:"logger"`
				Data   json.RawMessage `json:"data"`
			}
			if json.Unmarshal(params, &m) != nil {
				return
			}
			var text string
			if json.Unmarshal(m.Data, &text) != nil {
				text = string(m.Data)
			}
			prefix := "server log [" + m.Level + "]"
			if m.Logger != "" {
				prefix += " " + m.Logger
			}
			fmt.Fprintln(ios.ErrOut, render.Dim(prefix+": "+text, ios.ColorErrEnabled()))
		case "notifications/progress":
			if !ios.IsStderrTTY() {
				return
			}
			var p client.ProgressNotification
			if json.Unmarshal(params, &p) != nil {
				return
			}
			var b strings.Builder
			fmt.Fprintf(&b, "progress: %g", p.Progress)
			if p.Total != nil {
				fmt.Fprintf(&b, "/%g", *p.Total)
			}
			if p.Message != "" {
				b.WriteString(" " + p.Message)
			}
			// \r and clear-to-end keep the progress on one line.
			fmt.Fprintf(ios.ErrOut, "\r%s\x1b[K", b.String())
		}
	}
}
