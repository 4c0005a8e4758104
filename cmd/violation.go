package cmd

import (
	"fmt"

	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// violationKind groups protocol violations in the Warner's summary line.
const violationKind = "protocol violation"

// protocolViolation is how a protocol violation reads on stderr.
func protocolViolation(detail string) string { return "mcpctl: protocol violation: " + detail }

// violationReporter is a transport's OnViolation: the one place that words
// what the transport reports as data. Each violation is a warning on w; a
// stdio server's stdout line also goes to noise when it is set, described
// without the "(ignored)" the warning has (validate's lint reports it as a
// finding, where nothing is ignored). observe, when set, receives every
// kind that breaks the protocol (not a message skipped for its size),
// described as noise is.
func violationReporter(w *render.Warner, noise, observe func(string)) func(transport.Violation) {
	return func(v transport.Violation) {
		switch v.Kind {
		case transport.ViolationStdoutLine:
			w.Warn(violationKind, protocolViolation(fmt.Sprintf("server wrote a line to stdout that is not JSON-RPC (ignored): %q", v.Line)))
			msg := fmt.Sprintf("server wrote a line to stdout that is not JSON-RPC: %q", v.Line)
			if noise != nil {
				noise(msg)
			}
			if observe != nil {
				observe(msg)
			}
		case transport.ViolationTooLarge:
			w.Warn(violationKind, "mcpctl: warning: "+v.Detail)
		default:
			w.Warn(violationKind, protocolViolation(v.Detail))
			if observe != nil {
				observe(v.Detail)
			}
		}
	}
}
