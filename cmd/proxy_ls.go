package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/render"
)

// ProxyLsOptions are the options of `mcpctl proxy ls`.
type ProxyLsOptions struct {
	Output OutputOptions
	Limit  int
}

func newCmdProxyLs(f *Factory) *cobra.Command {
	opts := &ProxyLsOptions{}
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List running and recent proxy sessions",
		Long: `List the proxy sessions kept in mcpctl's state dir, newest first: whether
each still runs, the server, the host (its clientInfo), the protocol
revision, how many calls passed and what the checks flagged.`,
		Example: `  mcpctl proxy ls
  mcpctl proxy ls -o json --jq '.[0].id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Output.validate(); err != nil {
				return err
			}
			return runProxyLs(f, opts)
		},
	}
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "Show at most `N` sessions (0: all)")
	return cmd
}

// proxySession is one row of `proxy ls`.
type proxySession struct {
	proxy.SessionInfo
	Server  []string        `json:"server,omitempty"`
	Host    json.RawMessage `json:"host,omitempty"`
	Version string          `json:"protocol_version,omitempty"`
	Calls   int             `json:"calls"`
	Flags   map[string]int  `json:"flags"`
	Exit    *int            `json:"exit_code,omitempty"`
}

func runProxyLs(f *Factory, opts *ProxyLsOptions) error {
	store, err := f.proxyStore()
	if err != nil {
		return err
	}
	all, err := store.List()
	if err != nil {
		return fmt.Errorf("listing proxy sessions: %w", err)
	}
	if opts.Limit > 0 && len(all) > opts.Limit {
		all = all[:opts.Limit]
	}
	rows := make([]proxySession, 0, len(all))
	for _, si := range all {
		rows = append(rows, summarizeSession(si))
	}
	p := f.IOStreams.Printer()
	if opts.Output.structured() {
		return opts.Output.write(p, rows)
	}
	table := make([][]string, 0, len(rows))
	for _, r := range rows {
		state := "ended"
		if r.Running {
			state = "running"
		} else if r.Exit != nil {
			state = "exit " + strconv.Itoa(*r.Exit)
		}
		table = append(table, []string{r.ID, state, quoteWords(r.Server), hostName(r.Host), r.Version, strconv.Itoa(r.Calls), flagCounts(r.Flags)})
	}
	cols := []render.Column{{Header: "ID", Whole: true}, {Header: "STATE", Whole: true}, {Header: "SERVER"}, {Header: "HOST"}, {Header: "REVISION", Whole: true}, {Header: "CALLS", Whole: true}, {Header: "FLAGS"}}
	return p.Columns(cols, table, "No proxy sessions yet: put mcpctl proxy -- SERVER in a host's config, or run mcpctl list -- mcpctl proxy -- SERVER.")
}

// sessionFacts collects what the log's events say about a session.
type sessionFacts struct {
	proxy.Checks
	server []string
	exit   *int
}

func (s *sessionFacts) Event(e proxy.Event) {
	s.Checks.Event(e)
	d, _ := e.Detail.(map[string]any)
	switch e.Name {
	case "start":
		if words, ok := d["command"].([]any); ok {
			for _, w := range words {
				s.server = append(s.server, fmt.Sprint(w))
			}
		}
		if u, ok := d["url"].(string); ok {
			s.server = []string{u}
		}
	case "server-exit":
		if c, ok := d["code"].(float64); ok {
			code := int(c)
			s.exit = &code
		}
	}
}

// summarizeSession reads a session's log through the checks.
func summarizeSession(si proxy.SessionInfo) proxySession {
	row := proxySession{SessionInfo: si, Flags: map[string]int{}}
	file, err := os.Open(si.Path)
	if err != nil {
		row.Flags["unreadable"] = 1
		return row
	}
	defer file.Close()
	var facts sessionFacts
	last, err := proxy.ReadLog(file, si.Path, &facts)
	var cut *proxy.CutOffError
	switch {
	case errors.As(err, &cut):
		// Read up to its last entry, which its proxy did not finish.
		row.Flags["cut-off"] = 1
	case err != nil:
		row.Flags["unreadable"] = 1
	}
	if !si.Running {
		if last.IsZero() {
			last = time.Now()
		}
		facts.End(last)
	}
	sum := facts.Summary()
	row.Server, row.Exit, row.Version, row.Host = facts.server, facts.exit, sum.Version, sum.ClientInfo
	row.Calls = sum.CallCount
	for _, fl := range sum.Flags {
		row.Flags[fl.Kind]++
	}
	return row
}

// hostName shows a clientInfo as "name version".
func hostName(info json.RawMessage) string {
	var ci struct{ Name, Version string }
	if json.Unmarshal(info, &ci) != nil || ci.Name == "" {
		return "-"
	}
	return strings.TrimSpace(ci.Name + " " + ci.Version)
}

// flagCounts shows flag counts as "2 schema, 1 pending".
func flagCounts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range []string{proxy.FlagSchema, proxy.FlagPollution, proxy.FlagError, proxy.FlagPending, proxy.FlagUnknownID, proxy.FlagDuplicate, proxy.FlagTools, proxy.FlagMalformed, proxy.FlagDropped, "unreadable", "cut-off"} {
		if n := m[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// quoteWords shows a command line.
func quoteWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}

// ProxyPruneOptions are the options of `mcpctl proxy prune`.
type ProxyPruneOptions struct {
	Keep      int
	OlderThan time.Duration
}

func newCmdProxyPrune(f *Factory) *cobra.Command {
	opts := &ProxyPruneOptions{}
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Remove ended proxy sessions",
		Long: `Remove ended proxy sessions from mcpctl's state dir: all but the newest
--keep, and any last written longer ago than --older-than. Running
sessions are never removed.`,
		Example: `  mcpctl proxy prune --keep 10
  mcpctl proxy prune --keep 0 --older-than 168h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Checked before anything is removed: a negative --older-than
			// would reach into the future and remove every ended session.
			if opts.Keep < 0 {
				return flagErrorf("--keep must not be negative, got %d", opts.Keep)
			}
			if opts.OlderThan < 0 {
				return flagErrorf("--older-than must not be negative, got %s", opts.OlderThan)
			}
			store, err := f.proxyStore()
			if err != nil {
				return err
			}
			var before time.Time
			if opts.OlderThan > 0 {
				before = time.Now().Add(-opts.OlderThan)
			}
			removed, err := store.Prune(opts.Keep, before)
			for _, id := range removed {
				fmt.Fprintln(f.IOStreams.Out, id)
			}
			if err != nil {
				return fmt.Errorf("pruning proxy sessions: %w", err)
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "removed %d proxy sessions\n", len(removed))
			return nil
		},
	}
	cmd.Flags().IntVar(&opts.Keep, "keep", 0, "Keep the newest `N` ended sessions")
	cmd.Flags().DurationVar(&opts.OlderThan, "older-than", 0, "Also remove sessions last written longer ago than `DURATION` (e.g. 168h)")
	return cmd
}
