package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/auth"
)

// AuthOptions are the options of the auth subcommands.
type AuthOptions struct {
	Factory *Factory
	Server  ServerOptions
	// Action is login, status, logout or token.
	Action string
	// Output is status's output format.
	Output OutputOptions
}

// NewCmdAuth builds `mcpctl auth`: sign in to a protected HTTP server,
// show and forget stored tokens, print a token for scripts. runF, if not
// nil, replaces the run function (tests).
func NewCmdAuth(f *Factory, runF func(*AuthOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth <command>",
		Short: "Sign in to OAuth-protected servers and manage stored tokens",
		Long: `Protected HTTP servers ask for an OAuth 2.1 access token. mcpctl gets one when
a server first answers 401 (opening the browser on a terminal), stores it in
$XDG_STATE_HOME/mcpctl/auth.json (default ~/.local/state/mcpctl, mode 0600)
and reuses and refreshes it on later runs. These commands do the same on
demand: sign in now, show what is stored, forget it, print a token.`,
		Example: `  mcpctl auth login --url https://example.com/mcp
  mcpctl auth status
  mcpctl auth token -s work
  mcpctl auth logout --url https://example.com/mcp`,
		Args: cobra.NoArgs,
	}
	for _, sc := range []struct{ name, short, long, example string }{
		{"login", "Sign in to a server now and store its token",
			"Run the authorization flow now, whatever is stored: discover the server's\nauthorization server, register if needed, sign in (a browser for the default\nauthorization-code grant) and store the token.",
			"  mcpctl auth login --url https://example.com/mcp\n  mcpctl auth login -s work --no-browser\n  mcpctl auth login --url https://example.com/mcp --grant client-credentials --client-id ID --client-secret env:SECRET"},
		{"status", "Show the stored tokens (never the tokens themselves)",
			"Show, for each stored token or for the server given, the authorization server,\nthe resource, the scopes, when it expires, whether it can be refreshed and how\nmcpctl is registered. No token or secret is printed.",
			"  mcpctl auth status\n  mcpctl auth status --url https://example.com/mcp\n  mcpctl auth status -o json --jq '.[].expiry'"},
		{"logout", "Forget the stored token of a server",
			"Delete the server's stored tokens. The client registration is kept.",
			"  mcpctl auth logout --url https://example.com/mcp\n  mcpctl auth logout -s work"},
		{"token", "Print a valid access token for a server (for scripts)",
			"Print a valid access token for the server on stdout: the stored one, refreshed\nwhen it has expired, else a new one. The only command that prints a token.",
			"  curl -H \"Authorization: Bearer $(mcpctl auth token --url https://example.com/mcp)\" https://example.com/api"},
	} {
		opts := &AuthOptions{Factory: f, Action: sc.name}
		sub := &cobra.Command{
			Use:     sc.name + " {-s NAME | --url URL}",
			Short:   sc.short,
			Long:    sc.long,
			Example: sc.example,
			Args:    cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				setServerArgs(c, args, &opts.Server)
				if opts.Action == "status" {
					if err := opts.Output.validate(); err != nil {
						return err
					}
				}
				if runF != nil {
					return runF(opts)
				}
				return authRun(c.Context(), opts)
			},
		}
		if sc.name == "status" {
			sub.Use = "status [-s NAME | --url URL]"
			addOutputFlags(sub, &opts.Output)
		}
		addServerFlags(sub, &opts.Server)
		cmd.AddCommand(sub)
	}
	return cmd
}

// authRun runs one auth subcommand.
func authRun(ctx context.Context, opts *AuthOptions) error {
	f := opts.Factory
	o := &opts.Server
	if opts.Action == "status" && !o.chosen() {
		return authStatusAll(f, &opts.Output)
	}
	if err := o.validate(); err != nil {
		return err
	}
	o, err := f.resolve(o)
	if err != nil {
		return err
	}
	if o.URL == "" {
		return flagErrorf("%s is not an HTTP server: OAuth applies to --url servers only", o.describe())
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	httpOpts, err := f.httpOptions(o)
	if err != nil {
		return err
	}
	az, err := f.authTransport(o, httpOpts.TLSConfig, f.transportEvents(nil, o.Verbose))
	if err != nil {
		return err
	}
	out := f.IOStreams.Out
	switch opts.Action {
	case "login":
		e, err := az.Login(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "signed in to %s with %s\n", e.Resource, e.Issuer)
		return nil
	case "status":
		e, err := az.Status()
		if err != nil {
			return err
		}
		if e == nil {
			return &ExitCodeError{Code: ExitAuth, Msg: fmt.Sprintf("no token stored for %s (%s)", o.describe(), loginHint(o))}
		}
		return writeAuthStatus(f, &opts.Output, []auth.StoreEntry{*e})
	case "logout":
		had, err := az.Logout()
		if err != nil {
			return err
		}
		if had {
			fmt.Fprintf(f.IOStreams.ErrOut, "forgot the token of %s\n", az.Resource())
		} else {
			fmt.Fprintf(f.IOStreams.ErrOut, "no token was stored for %s\n", az.Resource())
		}
		return nil
	case "token":
		tok, err := az.Token(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(out, tok.AccessToken)
		return err
	}
	return fmt.Errorf("unknown auth command %q", opts.Action)
}

// authStatusAll shows every stored token.
func authStatusAll(f *Factory, out *OutputOptions) error {
	dir, err := f.stateDir()
	if err != nil {
		return err
	}
	store := &auth.Store{Dir: dir, Warn: func(msg string) { fmt.Fprintln(f.IOStreams.ErrOut, "mcpctl: warning: "+msg) }}
	list, err := store.List()
	if err != nil {
		return err
	}
	if len(list) == 0 && !out.structured() {
		fmt.Fprintf(f.IOStreams.ErrOut, "no tokens stored in %s\n", dir)
		return nil
	}
	return writeAuthStatus(f, out, list)
}

// writeAuthStatus prints the entries as a table, or as JSON or YAML (an
// array, empty when nothing is stored) when asked.
func writeAuthStatus(f *Factory, out *OutputOptions, list []auth.StoreEntry) error {
	if out.structured() {
		if list == nil {
			list = []auth.StoreEntry{}
		}
		return out.write(f.printer(), list)
	}
	return printAuthStatus(f.IOStreams.Out, list, time.Now())
}

// printAuthStatus writes one line per token: resource, issuer, scopes,
// expiry, refreshable, registration. No secrets are among them.
func printAuthStatus(w io.Writer, list []auth.StoreEntry, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RESOURCE\tISSUER\tSCOPES\tEXPIRES\tTYPE\tREFRESH\tCLIENT")
	for _, e := range list {
		expires := "never"
		if !e.Expiry.IsZero() {
			expires = e.Expiry.Local().Format(time.RFC3339)
			if !now.Before(e.Expiry) {
				expires += " (expired)"
			}
		}
		scopes := strings.Join(e.Scopes, " ")
		if scopes == "" {
			scopes = "-"
		}
		refresh := "no"
		if e.Refreshable {
			refresh = "yes"
		}
		client := "-"
		if e.Registration != "" {
			client = e.Registration
			if e.ClientID != "" {
				client += " " + e.ClientID
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Resource, e.Issuer, scopes, expires, e.TokenType, refresh, client)
	}
	return tw.Flush()
}
