package cmd

import (
	"context"
	"os"

	"github.com/mcpctl/mcpctl/ui"
)

// checkUISession refuses a server selection beside --session, which shows
// a proxy session's log, not a server.
func checkUISession(opts *UIOptions) error {
	o := opts.Server
	if o.Demo || o.URL != "" || o.Server != "" || len(o.Command) > 0 {
		return flagErrorf("--session shows a proxy session's log, not a server: give it without -s, --url, --demo or a command")
	}
	return nil
}

// uiSessionRun shows a proxy session (--session), with the approvals
// queue `mcpctl proxy approve` and `deny` decide.
func uiSessionRun(ctx context.Context, opts *UIOptions) error {
	f := opts.Factory
	ios := f.IOStreams
	store, err := f.sessionStore(opts.Session)
	if err != nil {
		return err
	}
	in, inFile := ios.In.(*os.File)
	if !ios.IsStdinTTY() || !ios.IsStdoutTTY() || !inFile {
		return &ExitCodeError{Code: ExitUsage, Msg: "mcpctl ui needs a terminal; without one use mcpctl watch --session " + opts.Session}
	}
	approvals, err := f.approvalStore()
	if err != nil {
		return err
	}
	return ui.RunSession(ctx, ui.SessionOptions{
		Store:     store,
		Ref:       opts.Session,
		Approvals: &approvals,
		By:        f.osUser(),
		Color:     ios.ColorEnabled(),
		Redact:    f.Redactor().String,
		In:        in,
		Out:       ios.Out,
	})
}
