package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/surface"
)

// SnapshotOptions are the options of `mcpctl snapshot`.
type SnapshotOptions struct {
	Factory *Factory
	Server  ServerOptions
	// File is where the snapshot is written (--file); "" is stdout.
	File string
}

// NewCmdSnapshot builds `mcpctl snapshot`. runF replaces the run function
// in tests.
func NewCmdSnapshot(f *Factory, runF func(*SnapshotOptions) error) *cobra.Command {
	opts := &SnapshotOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "snapshot [--file FILE] [flags] [-- server command...]",
		Short: "Write a stable JSON snapshot of a server's surface",
		Long: `Write a snapshot of what a server is and offers: server info, protocol
revision and era, capabilities, and every tool (name, title, description,
inputSchema, outputSchema, annotations, execution), resource, resource
template and prompt, each with the sha256 of its canonical JSON.

The document is stable: items sorted by name or URI, keys in order, no
timestamps, so the same server gives the same bytes on every run. Commit
it, and compare a later version of the server against it with mcpctl diff.

snapshot and diff declare one fixed set of client capabilities (roots,
sampling and form elicitation, answered without asking anyone), on a
terminal or not, recorded as clientCapabilities.

The snapshot is always JSON; it goes to stdout, or to --file FILE.`,
		Example: `  mcpctl snapshot --demo
  mcpctl snapshot --file surface.json -- python3 server.py
  mcpctl diff surface.json -- python3 server.py`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if args = setServerArgs(cmd, args, &opts.Server); len(args) > 0 {
				return flagErrorf("snapshot takes no arguments, got %q (a stdio server goes after --)", args)
			}
			if runF != nil {
				return runF(opts)
			}
			return snapshotRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	cmd.Flags().StringVar(&opts.File, "file", "", "Write the snapshot to `FILE` instead of stdout")
	return cmd
}

func snapshotRun(ctx context.Context, opts *SnapshotOptions) error {
	snap, err := takeSnapshot(ctx, opts.Factory, &opts.Server)
	if err != nil {
		return err
	}
	data, err := snap.Marshal()
	if err != nil {
		return err
	}
	if opts.File == "" {
		_, err = opts.Factory.IOStreams.Out.Write(data)
		return err
	}
	if err := os.WriteFile(opts.File, data, 0o644); err != nil {
		return fmt.Errorf("writing the snapshot: %w", err)
	}
	return nil
}

// takeSnapshot connects to the server o names and takes the snapshot of
// its surface, listing every list its capabilities announce.
func takeSnapshot(ctx context.Context, f *Factory, o *ServerOptions) (*surface.Snapshot, error) {
	o.SurfaceFeatures = true
	s, err := f.Connect(ctx, o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	init := s.InitializeResult()
	src := surface.Source{
		Server: surface.Server{
			Name: init.ServerInfo.Name, Title: init.ServerInfo.Title, Version: init.ServerInfo.Version,
			Description: init.ServerInfo.Description, Instructions: init.Instructions,
		},
		ProtocolVersion: init.ProtocolVersion,
		Era:             s.Era(),
		Capabilities:    init.Capabilities,
		// What the server saw: it may adapt its lists to them.
		ClientCapabilities: surfaceCapabilities(),
	}
	lists := map[string]*[]json.RawMessage{
		"tools": &src.Tools, "resources": &src.Resources, "templates": &src.ResourceTemplates, "prompts": &src.Prompts,
	}
	for _, k := range client.ListMethods() {
		if !s.HasCapability(k.Capability) {
			continue
		}
		items, err := s.ListAll(ctx, k.Method, k.Key)
		if err != nil {
			return nil, fmt.Errorf("listing the %s of %s for the snapshot: %w", k.Kind, s.Name(), err)
		}
		*lists[k.Kind] = items
	}
	snap, err := surface.Take(src)
	if err != nil {
		return nil, fmt.Errorf("the surface of %s: %w", s.Name(), err)
	}
	return snap, nil
}
