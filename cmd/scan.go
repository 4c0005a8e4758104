package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/scan"
	"github.com/mcpctl/mcpctl/surface"
	"github.com/mcpctl/mcpctl/transport"
)

// ScanOptions are the options of `mcpctl scan`.
type ScanOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// All scans every server mcpctl knows by name; File every server of
	// one editor's MCP file.
	All  bool
	File string
	// Rules is a file of local rules; Baseline a snapshot to compare with.
	Rules    string
	Baseline string
	// FailOn is the lowest severity that fails the run: error, warning
	// or none.
	FailOn string
	// NoProbe skips the Origin probe of HTTP servers; AuthMetadata
	// fetches their OAuth metadata documents.
	NoProbe      bool
	AuthMetadata bool
}

// NewCmdScan builds `mcpctl scan`. runF replaces the run function in tests.
func NewCmdScan(f *Factory, runF func(*ScanOptions) error) *cobra.Command {
	opts := &ScanOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "scan [--all | --file FILE] [flags] [-- server command...]",
		Short: "Scan servers for tool poisoning, hidden content, shadowing and risky tools",
		Long: `Scan one server, every server of an editor's MCP file (--file FILE), or
every server mcpctl knows by name (--all: mcpctl's config and the editors'
files), for what would mislead a model or its user: instructions hidden
in descriptions and schemas, invisible characters, look-alike names, tools
of one server shadowing or naming another's, destructive tools without
annotations, unconstrained command/path/URL/SQL arguments, secrets taken
as arguments, definitions changed since the proxy pinned them or since
--baseline, and HTTP endpoints that accept a foreign Origin or use plain
http beyond loopback. Rules and examples: docs/scan.md.

The scan only lists tools and prompts; an HTTP server also gets one
initialize with a foreign Origin (--no-origin-probe skips it), and with
--auth-metadata the GETs of its OAuth metadata. Local rules come from
--rules FILE (id, severity, fields, pattern, message).

-o sarif writes SARIF 2.1.0 for code scanning. The exit status is 5 when
a finding is at least as severe as --fail-on (error by default; warning,
or none to always succeed).`,
		Example: `  mcpctl scan --demo
  mcpctl scan --all -o sarif > mcp.sarif   # needs: servers in mcpctl's or an editor's config
  mcpctl scan --file .vscode/mcp.json --fail-on warning   # needs: a project with .vscode/mcp.json
  mcpctl scan --baseline surface.json -- npx -y @modelcontextprotocol/server-everything   # needs: a snapshot from mcpctl snapshot --file surface.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			setServerArgs(cmd, args, &opts.Server)
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return scanRun(cmd.Context(), opts)
		},
	}
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if dash := cmd.ArgsLenAtDash(); dash != 0 && len(args) > 0 {
			return flagErrorf("scan takes no arguments but a server command after --")
		}
		return nil
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().Lookup("output").Usage = "Output `format`: text, json, yaml or sarif"
	cmd.Flags().BoolVar(&opts.All, "all", false, "Scan every server defined in mcpctl's config and the editors' files")
	cmd.Flags().StringVar(&opts.File, "file", "", "Scan every server of the editor's MCP `FILE`")
	cmd.Flags().StringVar(&opts.Rules, "rules", "", "Add the local rules in `FILE`")
	cmd.Flags().StringVar(&opts.Baseline, "baseline", "", "Report tools and prompts changed since the snapshot `FILE` (mcpctl snapshot)")
	cmd.Flags().StringVar(&opts.FailOn, "fail-on", "error", "Exit 5 on a finding of this `severity` or worse: error, warning or none")
	cmd.Flags().BoolVar(&opts.NoProbe, "no-origin-probe", false, "Do not send HTTP servers the request with a foreign Origin")
	cmd.Flags().BoolVar(&opts.AuthMetadata, "auth-metadata", false, "Also fetch HTTP servers' OAuth metadata and check it agrees with itself")
	return cmd
}

func (o *ScanOptions) sarif() bool { return o.Output.Format == "sarif" }

func (o *ScanOptions) validate() error {
	sarif := o.Output.Format == "sarif"
	if sarif {
		o.Output.Format = "text"
	}
	if err := o.Output.validate(); err != nil {
		return err
	}
	if sarif {
		if o.Output.Format != "text" {
			return flagErrorf("-o sarif writes the whole log: drop --json and --jq")
		}
		o.Output.Format = "sarif"
	}
	switch o.FailOn {
	case "error", "warning", "none":
	default:
		return flagErrorf("--fail-on %q: error, warning or none", o.FailOn)
	}
	chosen := o.Server.chosen()
	switch {
	case o.All && o.File != "":
		return flagErrorf("--all and --file both choose the servers: give one")
	case (o.All || o.File != "") && chosen:
		return flagErrorf("--all and --file scan the servers of a config: drop -s, --url, --demo or the server command")
	case o.Baseline != "" && (o.All || o.File != ""):
		return flagErrorf("--baseline is the snapshot of one server: drop --all and --file")
	case !o.All && o.File == "" && !chosen:
		return flagErrorf("choose a server (-s NAME, --url, --demo or -- command), or --all or --file FILE")
	}
	return nil
}

// scanTarget is one server to scan: its name in the report, the file it
// comes from, and how to reach it.
type scanTarget struct {
	name, file string
	opts       *ServerOptions
}

func (o *ScanOptions) targets(f *Factory) ([]scanTarget, error) {
	switch {
	case o.File != "":
		defs, problems, err := config.ReadEditorFile(f.host(), o.File)
		if err != nil {
			return nil, &FlagError{Err: fmt.Errorf("--file: %w", err)}
		}
		for _, p := range problems {
			f.printer().Warning(p.Error())
		}
		var out []scanTarget
		for _, def := range defs {
			// A project's file is vetted as -s vets its servers: naming
			// it to be scanned approves nothing it runs.
			if def.Scope == config.ScopeProject {
				if def, err = f.vetNamed(&config.Catalog{}, def, nil); err != nil {
					return nil, err
				}
			}
			r, err := f.resolveDef(&o.Server, def)
			if err != nil {
				return nil, err
			}
			r.Server = ""
			out = append(out, scanTarget{def.Name, o.File, r})
		}
		return out, nil
	case o.All:
		cat, err := f.Catalog()
		if err != nil {
			return nil, err
		}
		var out []scanTarget
		for _, name := range cat.Names() {
			def, _, _ := cat.Find(name)
			so := o.Server
			so.Server = name
			out = append(out, scanTarget{name, def.File, &so})
		}
		return out, nil
	}
	name := o.Server.Server
	if name == "" {
		name = o.Server.describe()
	}
	return []scanTarget{{name: name, opts: &o.Server}}, nil
}

// scanReport is the -o json form of a scan.
type scanReport struct {
	Findings []scan.Finding `json:"findings"`
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
	Notes    int            `json:"notes"`
	// Failed are the servers that could not be scanned.
	Failed []string `json:"failed,omitempty"`
}

func scanRun(ctx context.Context, opts *ScanOptions) error {
	f := opts.Factory
	var sopts scan.Options
	if opts.Rules != "" {
		rules, err := scan.LoadLocalRules(opts.Rules)
		if err != nil {
			return &FlagError{Err: fmt.Errorf("--rules: %w", err)}
		}
		sopts.Local = rules
	}
	var baseline *surface.Snapshot
	if opts.Baseline != "" {
		data, err := os.ReadFile(opts.Baseline)
		if err == nil {
			baseline, err = surface.Parse(data)
		}
		if err != nil {
			return &FlagError{Err: fmt.Errorf("--baseline %s: %w", opts.Baseline, err)}
		}
	}
	targets, err := opts.targets(f)
	if err != nil {
		return err
	}
	var (
		servers  []*scan.Server
		findings []scan.Finding
		failed   []string
	)
	for _, t := range targets {
		s, more, err := scanOne(ctx, f, t, opts, baseline)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if len(targets) == 1 {
				return err
			}
			f.printer().Warning(fmt.Sprintf("scan: %s not scanned: %v", t.name, err))
			failed = append(failed, t.name)
			continue
		}
		servers = append(servers, s)
		findings = append(findings, more...)
	}
	findings = append(findings, scan.Check(servers, sopts)...)
	scan.Sort(findings)
	if err := writeScan(f, opts, findings, sopts.Local, failed); err != nil {
		return err
	}
	n := scan.Count(findings)
	switch {
	case opts.FailOn == "error" && n[scan.SeverityError] > 0,
		opts.FailOn == "warning" && n[scan.SeverityError]+n[scan.SeverityWarning] > 0:
		return &ExitCodeError{Code: ExitValidation} // the summary said why
	case len(failed) > 0:
		return fmt.Errorf("%d of %d servers could not be scanned: %s", len(failed), len(targets), strings.Join(failed, ", "))
	}
	return nil
}

// scanOne lists one server's tools and prompts through the session, and
// runs the checks that need more than the lists: pins, the baseline and
// the HTTP endpoint's.
func scanOne(ctx context.Context, f *Factory, t scanTarget, opts *ScanOptions, baseline *surface.Snapshot) (*scan.Server, []scan.Finding, error) {
	resolved, err := f.resolve(t.opts)
	if err != nil {
		return nil, nil, err
	}
	// Resolved once: Connect must not resolve (and vet) the name again.
	o := *resolved
	o.Server = ""
	sess, err := f.Connect(ctx, &o)
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	srv := &scan.Server{Name: t.name, File: t.file}
	if sess.HasCapability("tools") {
		tools, err := sess.ListTools(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("listing the tools of %s: %w", sess.Name(), err)
		}
		for _, tl := range tools {
			srv.Tools = append(srv.Tools, tl.Raw)
		}
	}
	if sess.HasCapability("prompts") {
		prompts, err := sess.ListPrompts(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("listing the prompts of %s: %w", sess.Name(), err)
		}
		for _, p := range prompts {
			srv.Prompts = append(srv.Prompts, p.Raw)
		}
	}
	var out []scan.Finding
	if !o.Demo {
		if store, err := f.pinStore(); err == nil {
			if pins, err := store.Load(pinServerName(o.Command, o.URL)); err == nil {
				out = append(out, scan.CheckPins(srv, pins)...)
			}
		}
	}
	if baseline != nil {
		more, err := scan.CheckBaseline(srv, baseline)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, more...)
	}
	if o.URL != "" {
		out = append(out, scan.CheckEndpoint(srv, o.URL)...)
		if !opts.NoProbe {
			more, err := probeOrigin(ctx, f, &o, srv)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, more...)
		}
		if opts.AuthMetadata {
			hopts, err := f.httpOptions(&o)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, scan.CheckAuthMetadata(ctx, srv, transport.NewHTTPClient(hopts.TLSConfig), o.URL)...)
		}
	}
	return srv, out, nil
}

// probeOrigin sends the Origin probe with the session's own headers.
func probeOrigin(ctx context.Context, f *Factory, o *ServerOptions, srv *scan.Server) ([]scan.Finding, error) {
	hopts, err := f.httpOptions(o)
	if err != nil {
		return nil, err
	}
	for k, vs := range o.NamedHeaders {
		hopts.Header[k] = vs
	}
	p, err := scan.CheckOrigin(ctx, transport.NewHTTPClient(hopts.TLSConfig), o.URL, hopts.Header, o.Transport == config.TransportSSE)
	if err != nil {
		return nil, errors.New(f.Redactor().String(err.Error()))
	}
	return scan.OriginFinding(srv, o.URL, p), nil
}

func writeScan(f *Factory, opts *ScanOptions, findings []scan.Finding, local []scan.LocalRule, failed []string) error {
	p := f.printer()
	n := scan.Count(findings)
	switch {
	case opts.sarif():
		return scan.WriteSARIF(p.Out, findings, local, Version)
	case opts.Output.structured():
		return opts.Output.write(p, scanReport{Findings: nonNil(findings), Errors: n[scan.SeverityError],
			Warnings: n[scan.SeverityWarning], Notes: n[scan.SeverityNote], Failed: failed})
	}
	if err := printScan(p, findings); err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "%d %s, %d %s\n", n[scan.SeverityError], plural(n[scan.SeverityError], "error", "errors"),
		n[scan.SeverityWarning], plural(n[scan.SeverityWarning], "warning", "warnings"))
	return nil
}

// printScan writes findings grouped by server: a heading per server, then
// one line per finding, "error: RULE where: message" (the severity
// coloured on a terminal, as mcpctl's own warnings and errors are).
func printScan(p *render.Printer, findings []scan.Finding) error {
	if len(findings) == 0 {
		_, err := fmt.Fprintln(p.Out, "No findings.")
		return err
	}
	var b strings.Builder
	for i, fd := range findings {
		if i == 0 || fd.Server != findings[i-1].Server {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Heading(fd.Server) + "\n")
		}
		where := fd.Kind
		if fd.Item != "" {
			where += " " + fd.Item
		}
		if fd.Field != "" {
			where += " " + fd.Field
		}
		line := p.Untrusted(fd.RuleID + " " + where + ": " + fd.Message)
		switch fd.Severity {
		case scan.SeverityError:
			line = render.ErrorLine(line, p.Color)
		case scan.SeverityWarning:
			line = render.Warning(line, p.Color)
		default:
			line = string(fd.Severity) + ": " + line
		}
		b.WriteString("  " + strings.ReplaceAll(line, "\n", "\n    ") + "\n")
	}
	_, err := fmt.Fprint(p.Out, b.String())
	return err
}
