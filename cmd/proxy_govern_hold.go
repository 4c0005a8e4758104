package cmd

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/proxy"
)

// ProxyHoldOptions are the governance flags of approvals and pinned
// tools (docs/proxy.md, Governance).
type ProxyHoldOptions struct {
	// ApprovalTimeout is how long a held call waits for a person before
	// it is denied (--approval-timeout).
	ApprovalTimeout time.Duration
	// Pin is what a changed tool definition does: warn, strict or off.
	Pin string
}

// addProxyHoldFlags registers the flags of o on cmd; addProxyGovernFlags
// puts them in the governance help topic.
func addProxyHoldFlags(cmd *cobra.Command, o *ProxyHoldOptions) {
	fs := cmd.Flags()
	fs.DurationVar(&o.ApprovalTimeout, "approval-timeout", proxy.DefaultApprovalTimeout, "Deny a call held for approval after `DURATION` without an answer")
	fs.StringVar(&o.Pin, "pin", string(proxy.PinWarn), "`MODE` for a tool changed since it was pinned: warn, strict (hide it until mcpctl proxy accept) or off")
}

// proxyApprover is the approver of the calls a policy holds: the approval
// queue in the state dir, and the host's user when the host can be asked.
func (f *Factory) proxyApprover(o *ProxyHoldOptions) (proxy.Approver, error) {
	if o.ApprovalTimeout <= 0 {
		return nil, flagErrorf("invalid --approval-timeout %s: give a duration above zero, as 60s or 5m", o.ApprovalTimeout)
	}
	store, err := f.approvalStore()
	if err != nil {
		return nil, err
	}
	return &proxy.QueueApprover{Store: store, Timeout: o.ApprovalTimeout}, nil
}

// proxyPins is the pinning of the stdio server's tools, nil with --pin off.
func (f *Factory) proxyPins(o *ProxyHoldOptions, serverArgs []string) (*proxy.PinGuard, error) {
	mode := proxy.PinMode(o.Pin)
	switch mode {
	case proxy.PinOff:
		return nil, nil
	case proxy.PinWarn, proxy.PinStrict:
	default:
		return nil, flagErrorf("invalid --pin %q: expected %s, %s or %s", o.Pin, proxy.PinWarn, proxy.PinStrict, proxy.PinOff)
	}
	store, err := f.pinStore()
	if err != nil {
		return nil, err
	}
	return &proxy.PinGuard{Store: store, Server: pinServerName(serverArgs, ""), Mode: mode}, nil
}
