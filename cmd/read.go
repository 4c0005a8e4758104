package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
)

// ReadOptions are the options of `mcpctl read`.
type ReadOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	URI     string
	SaveDir string
}

// NewCmdRead builds `mcpctl read`. runF replaces the run function in tests.
func NewCmdRead(f *Factory, runF func(*ReadOptions) error) *cobra.Command {
	opts := &ReadOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "read <uri> [flags] [-- server command...]",
		Short: "Read a resource",
		Long: `Read a resource by URI (resources/read). Text contents are printed;
binary contents (blobs) are saved to files under --save-dir and their paths
printed. A URI from a resource template is read the same way, with the
template's variables filled in. A server that did not declare the
"resources" capability is not asked.`,
		Example: `  mcpctl read --demo demo://readme
  mcpctl read --demo demo://greeting/Ada
  mcpctl read --demo demo://logo.png --save-dir ./out
  mcpctl read -o json --demo demo://readme`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 1 {
				return flagErrorf("read takes exactly one URI, e.g. %s", f.commandHint("read demo://readme", "--demo"))
			}
			opts.URI = args[0]
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return readRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().StringVar(&opts.SaveDir, "save-dir", "", "Folder for binary contents; files there are never replaced (default: on a terminal, a cache folder kept to the newest 100 files; piped, none)")
	return cmd
}

func readRun(ctx context.Context, opts *ReadOptions) error {
	f := opts.Factory
	// The capability decides whether there are resources to read, as for
	// list: the handshake's result is needed, even in the modern era.
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if !s.HasCapability("resources") {
		return fmt.Errorf("%s offers no resources: it did not declare the \"resources\" capability in initialize", s.Name())
	}
	res, err := s.ReadResource(ctx, opts.URI)
	if err != nil {
		return fmt.Errorf("reading %q from %s: %w", opts.URI, s.Name(), err)
	}
	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, res.Raw)
	}
	// Each item of contents renders like an embedded resource block.
	blocks := make([]client.Content, len(res.Contents))
	for i := range res.Contents {
		blocks[i] = client.Content{Type: "resource", Resource: &res.Contents[i]}
	}
	copts, done := f.contentOptions(opts.SaveDir, opts.Server.Verbose)
	copts.Bare = len(blocks) == 1
	_, err = p.Content(blocks, copts)
	done()
	return err
}
