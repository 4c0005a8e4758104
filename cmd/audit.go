package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/session"
)

// auditOff is the --audit value that records nothing, even when the config
// names a trail: with it (or MCPCTL_AUDIT=off) a command line that gives
// every setting still reads no config file.
const auditOff = "off"

// auditTrail returns the pipeline's audit stage for the trail o names,
// nil when there is none. A trail named by --audit is opened here, so
// that one that cannot be written stops the command before anything is
// sent; otherwise prepare, run on the first governed request, reads the
// audit setting (MCPCTL_AUDIT, or audit: in the config) and opens the
// trail it names, so a command that makes no such request (list, connect)
// reads no config file for it. A later failure to append fails the
// command (exit 1) after its result is shown: the request has gone.
func (f *Factory) auditTrail(o *ServerOptions) (trail *session.Trail, prepare func() error, err error) {
	if o.Audit == auditOff {
		if o.AuditKey != "" {
			return nil, nil, flagErrorf("--audit-key needs an audit trail: give --audit FILE (or audit: in the config), not --audit off")
		}
		return nil, nil, nil
	}
	trail = &session.Trail{Redact: f.Redactor().String}
	open := func(file, source string) error {
		var key []byte
		if o.AuditKey != "" {
			var err error
			if key, err = f.LoadKey("audit-key", o.AuditKey); err != nil {
				return err
			}
		}
		var err error
		if trail.W, err = audit.Open(file, key); err != nil {
			return fmt.Errorf("%s %s: %w", source, file, err)
		}
		return nil
	}
	if o.Audit != "" {
		if err := open(o.Audit, "--audit"); err != nil {
			return nil, nil, err
		}
		return trail, nil, nil
	}
	prepare = func() error {
		file, source, err := config.ResolveSetting(config.KeyAudit, nil, f.LookupEnv, f.Config)
		if err != nil {
			return err
		}
		if file == "" || file == auditOff {
			if o.AuditKey != "" {
				return flagErrorf("--audit-key needs an audit trail: give --audit FILE (or audit: in the config)")
			}
			return nil
		}
		file, err = settingPath(file, source, config.EnvName(config.KeyAudit), f.home())
		if err != nil {
			return err
		}
		return open(file, source+": audit")
	}
	return trail, prepare, nil
}

// AuditOptions are the options of `mcpctl audit`.
type AuditOptions struct {
	Factory *Factory
	Output  OutputOptions
	File    string
	Tool    string // a name or glob
	Since   string // a duration back from now, or an RFC 3339 time
}

// NewCmdAudit builds `mcpctl audit` and its verify subcommand. runF
// replaces the run function in tests.
func NewCmdAudit(f *Factory, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "audit [FILE] [--tool NAME] [--since DURATION] [flags]",
		Short: "Show the audit trail of calls, reads and prompts",
		Long: `Show the audit trail that --audit FILE (or audit: in mcpctl's config, or
MCPCTL_AUDIT) appends to: one line per attempted tool call, resource read
and prompt get, with the server, the arguments (writeOnly and
policy-sensitive values masked), the policy's decision and who made it, the
outcome, a digest of the result and the duration. Refused requests are
recorded too.

Each line carries the hash of the line before it and its own: mcpctl audit
verify checks the chain and exits 6 naming the first line that does not
verify. With --audit-key env:VAR the chain is an HMAC chain that only the
key's holder can extend or rewrite. The trail's head (FILE.head: its record
count and last hash, rewritten with every record) anchors its end, so
records cut from it show too. A record that cannot be written after its
request was sent fails the command (exit 1) once the result is printed.

FILE defaults to the audit: setting. -o json prints the lines as a JSON array.`,
		Example: `  mcpctl call --demo add a=2 b=3 --audit audit.jsonl
  mcpctl audit audit.jsonl
  mcpctl audit audit.jsonl --tool 'a*' --since 1h -o json
  mcpctl audit verify audit.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return auditRun(opts)
		},
	}
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().StringVar(&opts.Tool, "tool", "", "Show only the requests of the tool, prompt or resource `NAME` (a glob: db_*)")
	cmd.Flags().StringVar(&opts.Since, "since", "", "Show only the requests of the last `DURATION` (1h, 30m) or since an RFC 3339 time")
	cmd.AddCommand(newCmdAuditVerify(f, nil))
	return cmd
}

// settingPath is a file a setting names, read as the user meant it: a
// leading ~/ is home, the home folder of mcpctl's environment, and a
// relative path in the config file is relative to that file's folder (from
// envName, the environment, it is relative to the working directory, as on
// a command line).
func settingPath(file, source, envName, home string) (string, error) {
	if rest, ok := strings.CutPrefix(file, "~/"); ok {
		if home == "" {
			return "", fmt.Errorf("%s: %s: no home folder (HOME is not set): give the full path", source, file)
		}
		return filepath.Join(home, rest), nil
	}
	if filepath.IsAbs(file) || source == envName {
		return file, nil
	}
	return filepath.Join(filepath.Dir(source), file), nil
}

// auditFile is the trail a command reads: FILE, else the audit: setting.
func auditFile(f *Factory, file string) (string, error) {
	if file != "" {
		return file, nil
	}
	value, source, err := config.ResolveSetting(config.KeyAudit, nil, f.LookupEnv, f.Config)
	if err != nil {
		return "", err
	}
	if value == "" || value == auditOff {
		return "", flagErrorf("no audit trail: give FILE, or set audit: in mcpctl's config (or MCPCTL_AUDIT)")
	}
	return settingPath(value, source, config.EnvName(config.KeyAudit), f.home())
}

// openAudit opens the trail a command reads; a missing file is a usage
// error, as a missing FILE is for every command.
func openAudit(file string) (*os.File, error) {
	r, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, flagErrorf("no audit trail %s: the file does not exist (--audit FILE creates it)", file)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the audit trail: %w", err)
	}
	return r, nil
}

// parseSince reads --since: a duration back from now, or a time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, flagErrorf("invalid --since %q: give a duration (1h, 30m) or a time (2026-11-23T10:00:00Z, 2026-11-23)", s)
}

func auditRun(opts *AuditOptions) error {
	f := opts.Factory
	file, err := auditFile(f, opts.File)
	if err != nil {
		return err
	}
	var since time.Time
	if opts.Since != "" {
		if since, err = parseSince(opts.Since, time.Now()); err != nil {
			return err
		}
	}
	if opts.Tool != "" {
		if _, err := path.Match(opts.Tool, ""); err != nil {
			return flagErrorf("invalid --tool pattern %q: %v", opts.Tool, err)
		}
	}
	r, err := openAudit(file)
	if err != nil {
		return err
	}
	defer r.Close()
	all, err := audit.Read(r)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	entries := []audit.Entry{}
	for _, e := range all {
		if opts.Tool != "" {
			if ok, _ := path.Match(opts.Tool, e.Name); !ok {
				continue
			}
		}
		if !since.IsZero() && e.Time.Before(since) {
			continue
		}
		entries = append(entries, e)
	}
	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, entries)
	}
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, []string{
			e.Time.Local().Format("2006-01-02 15:04:05"), e.Server, e.Method, e.Name,
			auditDecision(e), auditOutcome(e), auditDuration(e),
		})
	}
	return p.Table([]string{"TIME", "SERVER", "METHOD", "NAME", "DECISION", "OUTCOME", "DURATION"}, rows, "No requests recorded.")
}

// auditDecision says in a word or two what was decided and by whom.
func auditDecision(e audit.Entry) string {
	d := e.Decision
	s := d.By
	switch {
	case s == "" && (d.Allowed || e.Sent):
		s = "allowed"
	case s == "":
		s = "refused"
	}
	if d.Rule != "" {
		s += " (" + d.Rule + ")"
	}
	return s
}

// auditOutcome says what became of the request.
func auditOutcome(e audit.Entry) string {
	switch {
	case !e.Sent:
		return "not sent"
	case e.Error != nil && e.Error.Code != 0:
		return "error " + strconv.Itoa(e.Error.Code) + ": " + e.Error.Message
	case e.Error != nil:
		return "error: " + e.Error.Message
	case e.IsError:
		return "isError"
	}
	return "ok"
}

func auditDuration(e audit.Entry) string {
	switch {
	case !e.Sent:
		return ""
	case e.DurationMS < 1000:
		return strconv.FormatFloat(e.DurationMS, 'f', 0, 64) + "ms"
	}
	return time.Duration(e.DurationMS * float64(time.Millisecond)).Round(10 * time.Millisecond).String()
}
