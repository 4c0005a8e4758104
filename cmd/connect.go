package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
)

// ConnectOptions are the options of `mcpctl connect`.
type ConnectOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
}

// NewCmdConnect builds `mcpctl connect`. runF replaces the run function in tests.
func NewCmdConnect(f *Factory, runF func(*ConnectOptions) error) *cobra.Command {
	opts := &ConnectOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "connect [flags] [-- server command...]",
		Short: "Handshake with a server and show what it is and what it can do",
		Long: `Perform the MCP handshake and show the server's name, title and version,
the negotiated protocol version, its capabilities and instructions, how many
tools, resources, resource templates and prompts it offers, and how long the
handshake took.

The Era row says which protocol era the session speaks and how that was
settled: "detected" (connect always asks the server with a server/discover
probe, and remembers the answer for later commands), "pinned" (--era, a
named server's era, or a --protocol-version of one era). -v says what the
probe saw.

-o json prints {"era": "legacy"|"modern", "eraDetection": {...},
"initialize": <the initialize or server/discover result>, "counts": {...},
"timingsMs": {...}}.`,
		Example: `  mcpctl connect --demo
  mcpctl connect -v --demo
  mcpctl connect -o json --demo
  mcpctl connect -- npx -y @modelcontextprotocol/server-everything`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) > 0 {
				return flagErrorf("connect takes no arguments before --, got %q", args)
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return connectRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	return cmd
}

// connectSummary is what connect prints with -o json.
type connectSummary struct {
	// Era is "legacy" (initialize) or "modern" (server/discover, whose
	// answer Initialize then holds in the same shape).
	Era string `json:"era"`
	// EraDetection says how the era was chosen: pinned, probed or
	// taken from the cache, and what settled it.
	EraDetection client.Detection         `json:"eraDetection"`
	Initialize   *client.InitializeResult `json:"initialize"`
	Counts       map[string]int           `json:"counts"`
	Timings      map[string]float64       `json:"timingsMs"`
}

func connectRun(ctx context.Context, opts *ConnectOptions) error {
	f := opts.Factory
	start := time.Now()
	// connect shows what the server says now, not what a cache
	// remembers.
	opts.Server.FreshEra = true
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	connected := time.Since(start)

	counts := map[string]int{}
	listStart := time.Now()
	for _, k := range client.ListMethods() {
		if !s.HasCapability(k.Capability) {
			continue
		}
		items, err := s.ListAll(ctx, k.Method, k.Key)
		if err != nil {
			return fmt.Errorf("counting %s of %s: %w", k.Key, s.Name(), err)
		}
		counts[k.Key] = len(items)
	}
	listing := time.Since(listStart)

	init := s.InitializeResult()
	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, connectSummary{
			Era:          s.Era(),
			EraDetection: s.Detection(),
			Initialize:   init,
			Counts:       counts,
			Timings: map[string]float64{
				"handshake": ms(s.HandshakeTime()),
				"connect":   ms(connected),
				"lists":     ms(listing),
			},
		})
	}
	info := init.ServerInfo
	fields := [][2]string{{"Server", info.Name}}
	if info.Title != "" {
		fields = append(fields, [2]string{"Title", info.Title})
	}
	fields = append(fields,
		[2]string{"Version", info.Version},
		[2]string{"Protocol", init.ProtocolVersion},
		[2]string{"Era", describeEra(s.Detection())},
		[2]string{"Capabilities", describeCapabilities(init.Capabilities)},
	)
	for _, k := range client.ListMethods() {
		if n, ok := counts[k.Key]; ok {
			// The label is the kind users type, capitalised: "Templates".
			fields = append(fields, [2]string{strings.ToUpper(k.Kind[:1]) + k.Kind[1:], strconv.Itoa(n)})
		}
	}
	fields = append(fields, [2]string{"Timings", fmt.Sprintf("handshake %s, connected in %s, lists %s", round(s.HandshakeTime()), round(connected), round(listing))})
	if err := p.Fields(fields); err != nil {
		return err
	}
	if init.Instructions != "" {
		fmt.Fprintln(p.Out)
		fmt.Fprintln(p.Out, p.Heading("Instructions"))
		fmt.Fprintln(p.Out, p.Wrap(p.Untrusted(strings.TrimRight(init.Instructions, "\n"))))
	}
	return nil
}

// describeEra says the era and how it was chosen: "modern (detected)",
// "legacy (pinned)", "modern (cached)"; -v tells what the probe saw.
func describeEra(d client.Detection) string {
	switch d.Source {
	case client.SourceProbe:
		return d.Era + " (detected)"
	case client.SourceCache:
		return d.Era + " (cached)"
	}
	return d.Era + " (pinned)"
}

// describeCapabilities lists capability names with their sub-flags, e.g.
// "prompts (listChanged), resources (subscribe, listChanged), tools".
func describeCapabilities(caps map[string]json.RawMessage) string {
	if len(caps) == 0 {
		return "none"
	}
	names := make([]string, 0, len(caps))
	for name := range caps {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		var sub map[string]json.RawMessage
		_ = json.Unmarshal(caps[name], &sub)
		var flags []string
		for k, v := range sub {
			if string(v) != "false" {
				flags = append(flags, k)
			}
		}
		sort.Strings(flags)
		if len(flags) > 0 {
			parts = append(parts, name+" ("+strings.Join(flags, ", ")+")")
		} else {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}
