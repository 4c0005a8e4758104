package cmd

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/audit"
)

// AuditVerifyOptions are the options of `mcpctl audit verify`.
type AuditVerifyOptions struct {
	Factory *Factory
	File    string
	Key     string
	Head    string // COUNT:HASH from an earlier verify
}

func newCmdAuditVerify(f *Factory, runF func(*AuditVerifyOptions) error) *cobra.Command {
	opts := &AuditVerifyOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "verify [FILE] [--audit-key env:VAR] [--head COUNT:HASH]",
		Short: "Check the audit trail's chain and head",
		Long: `Check that every line of the audit trail carries the hash of the line
before it and its own sequence number, that its own hash matches its
content, and that the trail ends where its head (FILE.head, rewritten with
every record) says. A line changed, removed, added or reordered after it
was written, records cut from the end, an emptied trail, a missing head,
or a missing trail whose head is left do not verify: mcpctl exits 6 with
one line saying what failed. A trail written with --audit-key is checked
with the same key; given a key, a line that is only hash-chained does not
verify.

On success the head is printed (head: COUNT:HASH): keep it elsewhere and
give it later with --head, so that a trail cut or rewritten together with
its head still fails. Trails written before heads (no "seq" in their
lines) verify with a warning that their end is not anchored; the next
record written to one gives it a head.

FILE defaults to the audit: setting.`,
		Example: `  mcpctl call --demo add a=2 b=3 --audit audit.jsonl
  mcpctl audit verify audit.jsonl
  mcpctl audit verify audit.jsonl --head "$(cat audit.jsonl.head)"
  export AUDIT_KEY='a long random secret'
  mcpctl call --demo echo message=hi --audit keyed.jsonl --audit-key env:AUDIT_KEY
  mcpctl audit verify keyed.jsonl --audit-key env:AUDIT_KEY`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return auditVerifyRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Key, "audit-key", "", "The HMAC key the trail was written with, as `env:VAR` or file:PATH")
	cmd.Flags().StringVar(&opts.Head, "head", "", "Check the trail against a head kept elsewhere, `COUNT:HASH` as verify printed it")
	return cmd
}

func auditVerifyRun(opts *AuditVerifyOptions) error {
	f := opts.Factory
	var given *audit.Head
	if opts.Head != "" {
		h, err := audit.ParseHead(opts.Head)
		if err != nil {
			return flagErrorf("--head: %v", err)
		}
		given = &h
	}
	file, err := auditFile(f, opts.File)
	if err != nil {
		return err
	}
	var key []byte
	if opts.Key != "" {
		if key, err = f.LoadKey("audit-key", opts.Key); err != nil {
			return err
		}
	}
	rep, err := audit.VerifyFile(file, key, given)
	var ve *audit.VerifyError
	switch {
	case errors.As(err, &ve) && ve.Line > 0:
		return &ExitCodeError{Code: ExitSignature, Msg: fmt.Sprintf("%s: %v (the %d before it verify)", file, err, rep.Head.Count)}
	case errors.As(err, &ve):
		return &ExitCodeError{Code: ExitSignature, Msg: fmt.Sprintf("%s: %v", file, err)}
	case errors.Is(err, fs.ErrNotExist):
		return flagErrorf("no audit trail %s: the file does not exist (--audit FILE creates it)", file)
	case err != nil:
		return err
	}
	if rep.Unanchored {
		fmt.Fprintf(f.IOStreams.ErrOut, "mcpctl: warning: %s has no head and its lines no sequence numbers (written before mcpctl kept them): lines cut from its end cannot show; give --head COUNT:HASH, or append a record to give it a head\n", file)
	}
	chain := audit.ChainSHA256 + " chain"
	if key != nil {
		chain = audit.ChainHMACSHA256 + " chain"
	}
	lines := fmt.Sprintf("%d lines verify", rep.Head.Count)
	if rep.Head.Count == 1 {
		lines = "1 line verifies"
	}
	fmt.Fprintf(f.IOStreams.Out, "%s: %s (%s)\nhead: %s\n", file, lines, chain, rep.Head)
	return nil
}
