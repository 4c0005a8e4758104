package cmd

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/pin"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/textguard"
)

// pinStore is the state dir's folder of tool pins.
func (f *Factory) pinStore() (pin.Store, error) {
	dir, err := f.stateDir()
	if err != nil {
		return pin.Store{}, err
	}
	return pin.Store{Dir: filepath.Join(dir, "pins")}, nil
}

// pinServerName is how the proxy names a server for its pins, as proxy
// ls shows it: the stdio server's command line, or the URL.
func pinServerName(command []string, url string) string {
	if url != "" {
		return url
	}
	return quoteWords(command)
}

// ProxyPinsOptions are the options of `mcpctl proxy pins`.
type ProxyPinsOptions struct {
	Output OutputOptions
	// Server is a server's description or pin key; "" lists all.
	Server string
}

func newCmdProxyPins(f *Factory) *cobra.Command {
	opts := &ProxyPinsOptions{}
	cmd := &cobra.Command{
		Use:   "pins [SERVER]",
		Short: "List the tool definitions the proxy pinned, and which changed",
		Long: `List the tools pinned in mcpctl's state dir. The proxy pins each tool's
definition (name, title, description, schemas, annotations) the first
time a server shows it; a later change is flagged, and under --pin strict
the tool is hidden until a person accepts it with mcpctl proxy accept.

STATE is pinned, changed (shown otherwise than pinned, not accepted) or
missing (left out of the server's last listing; the pin stays). SERVER is
the server as proxy ls shows it (its command line or URL) or its KEY.`,
		Example: `  mcpctl proxy pins
  mcpctl proxy pins 'npx -y @modelcontextprotocol/server-everything'  # needs: a server the proxy has seen
  mcpctl proxy pins -o json --jq '.[].tools[] | select(.state == "changed") | .name'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if len(args) == 1 {
				opts.Server = args[0]
			}
			return runProxyPins(f, opts)
		},
	}
	addOutputFlags(cmd, &opts.Output)
	return cmd
}

// pinnedServer is one server of `proxy pins -o json`.
type pinnedServer struct {
	Key    string       `json:"key"`
	Server string       `json:"server"`
	Tools  []pinnedTool `json:"tools"`
}

// pinnedTool is one tool of a pinnedServer.
type pinnedTool struct {
	Name         string     `json:"name"`
	State        string     `json:"state"`
	SHA256       string     `json:"sha256"`
	PinnedAt     time.Time  `json:"pinned_at"`
	SeenSHA256   string     `json:"seen_sha256,omitempty"`
	SeenAt       *time.Time `json:"seen_at,omitempty"`
	MissingSince *time.Time `json:"missing_since,omitempty"`
}

func runProxyPins(f *Factory, opts *ProxyPinsOptions) error {
	store, err := f.pinStore()
	if err != nil {
		return err
	}
	var servers []*pin.Server
	if opts.Server != "" {
		srv, err := store.Find(opts.Server)
		if err != nil {
			return err
		}
		servers = []*pin.Server{srv}
	} else if servers, err = store.List(); err != nil {
		return fmt.Errorf("listing tool pins: %w", err)
	}
	rows := make([]pinnedServer, 0, len(servers))
	for _, srv := range servers {
		row := pinnedServer{Key: srv.ShortKey(), Server: srv.Server, Tools: []pinnedTool{}}
		for _, name := range slices.Sorted(maps.Keys(srv.Tools)) {
			t := srv.Tools[name]
			pt := pinnedTool{Name: name, State: t.State(), SHA256: t.SHA256, PinnedAt: t.PinnedAt, MissingSince: t.MissingSince}
			if t.Seen != nil {
				pt.SeenSHA256, pt.SeenAt = t.Seen.SHA256, &t.Seen.At
			}
			row.Tools = append(row.Tools, pt)
		}
		rows = append(rows, row)
	}
	p := f.IOStreams.Printer()
	if opts.Output.structured() {
		return opts.Output.write(p, rows)
	}
	var table [][]string
	for _, r := range rows {
		for _, t := range r.Tools {
			// Tool names come from servers: hidden characters in them are
			// shown, piped or not, as they are what a pin is there to catch.
			table = append(table, []string{r.Key, r.Server, textguard.Safe(t.Name), t.State, t.PinnedAt.Local().Format(time.DateTime)})
		}
	}
	cols := []render.Column{{Header: "KEY", Whole: true}, {Header: "SERVER"}, {Header: "TOOL"}, {Header: "STATE", Whole: true}, {Header: "PINNED", Whole: true}}
	return p.Columns(cols, table, "No tools pinned yet: the proxy pins a server's tools the first time a host lists them.")
}

// ProxyAcceptOptions are the options of `mcpctl proxy accept`.
type ProxyAcceptOptions struct {
	Server string
	Tool   string
}

func newCmdProxyAccept(f *Factory) *cobra.Command {
	opts := &ProxyAcceptOptions{}
	cmd := &cobra.Command{
		Use:   "accept SERVER TOOL",
		Short: "Accept a changed tool definition: show the diff and pin it",
		Long: `Show how a tool's definition changed since it was pinned, as a unified
diff of its canonical JSON (hidden characters written as \u{...}), and
pin the definition the server showed last. Under --pin strict the proxy
hid the tool until now; it is listed and callable again.

The server need not be running: the changed definition was kept when the
proxy saw it. SERVER is the server as mcpctl proxy pins shows it (its
command line or URL) or its KEY.`,
		Example: `  mcpctl proxy pins
  mcpctl proxy accept 'npx -y @modelcontextprotocol/server-everything' echo  # needs: a tool the proxy saw change
  mcpctl proxy accept 44fbe50c2094 echo  # needs: a tool the proxy saw change`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Server, opts.Tool = args[0], args[1]
			return runProxyAccept(f, opts)
		},
	}
	return cmd
}

func runProxyAccept(f *Factory, opts *ProxyAcceptOptions) error {
	store, err := f.pinStore()
	if err != nil {
		return err
	}
	srv, err := store.Find(opts.Server)
	if err != nil {
		return err
	}
	diff, err := store.Accept(srv.Server, opts.Tool)
	var unchanged *pin.UnchangedError
	if errors.As(err, &unchanged) {
		fmt.Fprintf(f.IOStreams.ErrOut, "%s: nothing to accept, the server shows %s as it is pinned\n", srv.Server, textguard.Safe(opts.Tool))
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IOStreams.Out, diff)
	fmt.Fprintf(f.IOStreams.ErrOut, "%s: %s is pinned as shown above\n", srv.Server, textguard.Safe(opts.Tool))
	return nil
}
