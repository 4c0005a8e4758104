package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/export"
	"github.com/mcpctl/mcpctl/proxy"
)

// otlpFlushTime bounds how long the proxy's exit waits for the spans
// still queued to reach the collector.
const otlpFlushTime = 2 * time.Second

// addProxyOTLPFlags adds --otlp-endpoint and --otlp-header.
func addProxyOTLPFlags(cmd *cobra.Command, opts *ProxyOptions) {
	fs := cmd.Flags()
	fs.StringVar(&opts.OTLPEndpoint, "otlp-endpoint", "", "Stream spans to the OTLP/HTTP collector at `URL`")
	fs.StringArrayVar(&opts.OTLPHeaders, "otlp-header", nil, "Send header `H` ('Name: value') too (repeatable)")
}

// startOTLP starts the span sender --otlp-endpoint asks for; stop sends
// what is queued, within otlpFlushTime, and says what was sent.
func (o *ProxyOptions) startOTLP(f *Factory) (stop func(), err error) {
	if o.OTLPEndpoint == "" {
		if len(o.OTLPHeaders) > 0 {
			return nil, flagErrorf("--otlp-header needs --otlp-endpoint")
		}
		return func() {}, nil
	}
	s, err := export.NewSender(export.SenderOptions{
		Endpoint: o.OTLPEndpoint, Headers: o.OTLPHeaders,
		Info: export.Info{Name: "mcpctl", Version: buildVersion().Version}, Warn: f.IOStreams.ErrOut,
	})
	if err != nil {
		return nil, flagErrorf("--otlp-endpoint: %v", err)
	}
	o.otlp = s
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), otlpFlushTime)
		defer cancel()
		s.Close(ctx)
	}, nil
}

// otlpObserver is the observer of one session's checks: the checks
// themselves, or the stream that drives them and sends their calls as
// spans. end ends the stream after the checks' End.
func (o *ProxyOptions) otlpObserver(f *Factory, checks *proxy.Checks, log io.Writer, paths []proxy.RedactPath) (obs proxy.Observer, end func()) {
	if o.otlp == nil {
		return checks, func() {}
	}
	st := o.otlp.Stream(checks, otlpSessionName(o, log), f.Redactor(), paths)
	return st, st.End
}

// otlpSessionName names a session in its spans as `mcpctl export` names
// it, so that the spans streamed and those exported later are the same.
func otlpSessionName(o *ProxyOptions, log io.Writer) string {
	switch {
	case log == nil:
		return fmt.Sprintf("pid %d %s", os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
	case o.Log != "":
		return o.Log
	}
	if s, ok := log.(*sessionSink); ok {
		return "session " + s.sf.ID
	}
	return "proxy"
}
