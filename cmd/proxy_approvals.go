package cmd

import (
	"errors"
	"fmt"
	"os/user"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/approval"
	"github.com/mcpctl/mcpctl/render"
)

// approvalStore is the state dir's queue of calls held for approval,
// shared by every proxy of the user and these commands.
func (f *Factory) approvalStore() (approval.Store, error) {
	dir, err := f.stateDir()
	if err != nil {
		return approval.Store{}, err
	}
	return approval.Store{Dir: filepath.Join(dir, "approvals")}, nil
}

// osUser names who approves from a terminal: the OS user, as the audit
// records it.
func (f *Factory) osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	for _, name := range []string{"USER", "LOGNAME", "USERNAME"} {
		if v, ok := f.LookupEnv(name); ok && v != "" {
			return v
		}
	}
	return "unknown user"
}

// ProxyApprovalsOptions are the options of `mcpctl proxy approvals`.
type ProxyApprovalsOptions struct {
	Output OutputOptions
	// All includes the calls already decided or abandoned.
	All bool
}

func newCmdProxyApprovals(f *Factory) *cobra.Command {
	opts := &ProxyApprovalsOptions{}
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List the calls proxies hold for a person's approval",
		Long: `List the tool calls that proxies on this machine hold until a person
approves them (tools the policy marks requires_approval, or whose
annotations say destructive): the ID to approve or deny, the server, the
tool, its arguments (sensitive ones masked), the host and how long the
call has waited. A call no one decides is denied after the proxy's
--approval-timeout.`,
		Example: `  mcpctl proxy approvals
  mcpctl proxy approvals -o json --jq '.[].id'
  mcpctl proxy approve a3f9c2  # needs: a call a proxy holds`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Output.validate(); err != nil {
				return err
			}
			return runProxyApprovals(f, opts)
		},
	}
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().BoolVar(&opts.All, "all", false, "Also list the calls decided or abandoned in the last hour")
	return cmd
}

// maxArgumentsCell bounds the arguments shown in the table; -o json has
// them whole.
const maxArgumentsCell = 60

func runProxyApprovals(f *Factory, opts *ProxyApprovalsOptions) error {
	store, err := f.approvalStore()
	if err != nil {
		return err
	}
	all, err := store.List()
	if err != nil {
		return fmt.Errorf("listing held calls: %w", err)
	}
	rows := make([]approval.Entry, 0, len(all))
	for _, e := range all {
		if opts.All || e.State == approval.Pending {
			rows = append(rows, e)
		}
	}
	p := f.IOStreams.Printer()
	if opts.Output.structured() {
		return opts.Output.write(p, rows)
	}
	now := time.Now()
	table := make([][]string, 0, len(rows))
	for _, e := range rows {
		row := []string{e.ID, e.Server, e.Tool, cut(string(e.Arguments), maxArgumentsCell), e.Host.String(), render.Age(e.Age(now))}
		if opts.All {
			row = append(row, stateText(e))
		}
		table = append(table, row)
	}
	cols := []render.Column{{Header: "ID", Whole: true}, {Header: "SERVER"}, {Header: "TOOL", Whole: true}, {Header: "ARGUMENTS"}, {Header: "HOST"}, {Header: "AGE", Whole: true}}
	if opts.All {
		cols = append(cols, render.Column{Header: "STATE"})
	}
	return p.Columns(cols, table, "No calls are waiting for approval.")
}

// stateText shows where a call stands: "pending", "approved by alice".
func stateText(e approval.Entry) string {
	if e.Verdict == nil {
		return string(e.State)
	}
	return string(e.State) + " by " + e.Verdict.By
}

// cut shortens s to at most n characters, ending with "…" when it did.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ProxyDecideOptions are the options of `mcpctl proxy approve` and
// `mcpctl proxy deny`.
type ProxyDecideOptions struct {
	ID     string
	Reason string
}

func newCmdProxyApprove(f *Factory) *cobra.Command {
	opts := &ProxyDecideOptions{}
	return &cobra.Command{
		Use:   "approve ID",
		Short: "Release a call a proxy holds for approval",
		Long: `Release a held call (see mcpctl proxy approvals): the proxy sends it
on to the server, and the audit records that your OS user approved it.`,
		Example: `  mcpctl proxy approve a3f9c2  # needs: a call a proxy holds`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return runProxyDecide(f, opts, true)
		},
	}
}

func newCmdProxyDeny(f *Factory) *cobra.Command {
	opts := &ProxyDecideOptions{}
	cmd := &cobra.Command{
		Use:   "deny ID [--reason TEXT]",
		Short: "Refuse a call a proxy holds for approval",
		Long: `Refuse a held call (see mcpctl proxy approvals): it never reaches the
server, and the host is told why; the audit records your OS user.`,
		Example: `  mcpctl proxy deny a3f9c2 --reason "not on production"  # needs: a call a proxy holds`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return runProxyDecide(f, opts, false)
		},
	}
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "Tell the host why, in a `sentence` (default: \"denied by USER\")")
	return cmd
}

func runProxyDecide(f *Factory, opts *ProxyDecideOptions, approve bool) error {
	store, err := f.approvalStore()
	if err != nil {
		return err
	}
	by := f.osUser()
	var e approval.Entry
	if approve {
		e, err = store.Approve(opts.ID, by)
	} else {
		e, err = store.Deny(opts.ID, by, opts.Reason)
	}
	// An ID that names no call waiting for a decision is a bad argument,
	// as an unknown tool is.
	if errors.As(err, new(*approval.NotFoundError)) || errors.As(err, new(*approval.FinishedError)) {
		return &FlagError{Err: err}
	}
	if err != nil {
		return err
	}
	word := "denied"
	if approve {
		word = "approved"
	}
	fmt.Fprintf(f.IOStreams.Out, "%s %s: %s on %s\n", word, e.ID, e.Tool, strings.TrimSpace(e.Server))
	return nil
}
