package cmd

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/config"
)

// ServersShowOptions are the options of `mcpctl servers show`.
type ServersShowOptions struct {
	Factory *Factory
	Output  OutputOptions
	Name    string
}

func newCmdServersShow(f *Factory) *cobra.Command {
	opts := &ServersShowOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "show <name> [flags]",
		Short: "Show the definition -s NAME uses, secrets masked",
		Long: `Show the definition of a named server that -s NAME uses: where it comes
from, its transport, command line, folder, URL and timeout, and the names
of its environment variables and headers. It is shown as written in its
file, ${…} references unexpanded, and never shows a secret: every
environment and header value is printed as ****, and a URL's user
information and query values are masked. Definitions of the same name that
it shadows are listed last.`,
		Example: `  mcpctl servers show everything
  mcpctl servers show everything -o json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: f.completeServerArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if err := opts.Output.validate(); err != nil {
				return err
			}
			return serversShowRun(opts)
		},
	}
	addOutputFlags(cmd, &opts.Output)
	return cmd
}

// serverDetail is the -o json form of servers show.
type serverDetail struct {
	Name    string            `json:"name"`
	Origin  string            `json:"origin"`
	File    string            `json:"file"`
	Kind    string            `json:"kind"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Timeout string            `json:"timeout,omitempty"`
	Era     string            `json:"era,omitempty"`
	// OAuth holds the server's OAuth settings; its secrets are env: or
	// file: references (config refuses literal ones), never the values.
	OAuth     *config.Auth `json:"oauth,omitempty"`
	Inputs    []string     `json:"inputs,omitempty"`
	Shadowing []serverRef  `json:"shadows,omitempty"`
}

type serverRef struct {
	Origin string `json:"origin"`
	File   string `json:"file"`
}

// masked returns m with every value replaced by the mask.
func masked(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = config.Mask
	}
	return out
}

func serversShowRun(opts *ServersShowOptions) error {
	f := opts.Factory
	cat, err := f.Catalog()
	if err != nil {
		return err
	}
	s, shadowed, err := cat.Find(opts.Name)
	if err != nil {
		return &FlagError{Err: err}
	}
	d := serverDetail{
		Name: s.Name, Origin: s.Origin, File: s.File, Kind: s.Transport,
		Command: s.Command, Cwd: s.Cwd, URL: config.RedactURL(s.URL),
		Env: masked(s.Env), Headers: masked(s.Headers),
	}
	for _, a := range s.Args {
		d.Args = append(d.Args, redactURLWord(a))
	}
	if s.Timeout > 0 {
		d.Timeout = s.Timeout.String()
	}
	d.Era = s.Era
	if !s.Auth.IsZero() {
		a := s.Auth
		d.OAuth = &a
	}
	for _, in := range s.Inputs {
		d.Inputs = append(d.Inputs, in.ID)
	}
	for _, sh := range shadowed {
		d.Shadowing = append(d.Shadowing, serverRef{Origin: sh.Origin, File: sh.File})
	}
	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, d)
	}
	fields := [][2]string{
		{"Name", d.Name},
		{"Source", d.File + " (" + d.Origin + ")"},
		{"Kind", d.Kind},
	}
	if d.Command != "" {
		words := []string{quoteWord(d.Command)}
		for _, a := range d.Args {
			words = append(words, quoteWord(a))
		}
		fields = append(fields, [2]string{"Command", strings.Join(words, " ")})
	}
	if d.Cwd != "" {
		fields = append(fields, [2]string{"Cwd", d.Cwd})
	}
	if d.URL != "" {
		fields = append(fields, [2]string{"URL", d.URL})
	}
	if len(d.Env) > 0 {
		var lines []string
		for _, k := range slices.Sorted(maps.Keys(d.Env)) {
			lines = append(lines, k+"="+config.Mask)
		}
		fields = append(fields, [2]string{"Env", strings.Join(lines, "\n")})
	}
	if len(d.Headers) > 0 {
		var lines []string
		for _, k := range slices.Sorted(maps.Keys(d.Headers)) {
			lines = append(lines, k+": "+config.Mask)
		}
		fields = append(fields, [2]string{"Headers", strings.Join(lines, "\n")})
	}
	if d.Timeout != "" {
		fields = append(fields, [2]string{"Timeout", d.Timeout})
	}
	if d.Era != "" {
		fields = append(fields, [2]string{"Era", d.Era})
	}
	if d.OAuth != nil {
		fields = append(fields, [2]string{"OAuth", oauthLines(*d.OAuth)})
	}
	if len(d.Inputs) > 0 {
		fields = append(fields, [2]string{"Inputs", strings.Join(d.Inputs, ", ")})
	}
	if len(d.Shadowing) > 0 {
		var lines []string
		for _, r := range d.Shadowing {
			lines = append(lines, r.File+" ("+r.Origin+")")
		}
		fields = append(fields, [2]string{"Shadows", strings.Join(lines, "\n")})
	}
	return p.Fields(fields)
}

func newCmdServersRemove(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "remove <name>",
		Aliases: []string{"rm"},
		Short:   "Remove a named server from mcpctl's config file",
		Long: `Remove a server from the servers: map of mcpctl's config file. Servers
defined in an editor's file are that editor's to change: mcpctl never edits
them.`,
		Example:           "  mcpctl servers remove everything",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: f.completeServerArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serversRemoveRun(f, args[0])
		},
	}
	return cmd
}

func serversRemoveRun(f *Factory, name string) error {
	path, err := f.configPath()
	if err != nil {
		return err
	}
	err = config.RemoveServer(path, name)
	if errors.Is(err, config.ErrNoServer) {
		if cat, cerr := f.Catalog(); cerr == nil {
			if s, _, ferr := cat.Find(name); ferr == nil {
				return flagErrorf("server %q is defined in %s (%s), not in mcpctl's config (%s); mcpctl edits only its own config", name, s.File, s.Origin, path)
			}
		}
	}
	switch {
	case errors.Is(err, config.ErrNoServer):
		return &FlagError{Err: err}
	case err != nil:
		// The file could not be read or written: not a usage error.
		return fmt.Errorf("removing server %q: %w", name, err)
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "removed server %q from %s\n", name, path)
	return nil
}

// oauthLines shows a server's OAuth settings, one "key value" a line.
func oauthLines(a config.Auth) string {
	var lines []string
	for _, kv := range [][2]string{{"client-id", a.ClientID}, {"client-secret", a.ClientSecret}, {"client-key", a.ClientKey},
		{"client-metadata-url", a.ClientMetadataURL}, {"grant", a.Grant}, {"assertion", a.Assertion}, {"id-token", a.IDToken},
		{"idp-token-endpoint", a.IDPTokenEndpoint}, {"idp-client-id", a.IDPClientID}, {"scope", a.Scope}, {"dpop", a.DPoP}} {
		if kv[1] != "" {
			lines = append(lines, kv[0]+" "+kv[1])
		}
	}
	return strings.Join(lines, "\n")
}
