package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"syscall"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/batch"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/transport"
)

// Exit codes: the contract of ARCHITECTURE.md. Each is documented by its
// row of [exitCodeTable], the one text behind `mcpctl help exit-codes`,
// the summary in `mcpctl --help` and the generated reference.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitRPCError    = 3
	ExitToolError   = 4
	ExitValidation  = 5
	ExitSignature   = 6
	ExitTimeout     = 7
	ExitAuth        = 8
	ExitPolicy      = 9
	ExitInterrupted = 130
	// ExitTerminated is SIGTERM's: 128 + the signal's number, as shells
	// report it (SIGHUP's is 129). See signalCode.
	ExitTerminated = 143
)

// exitCodeDoc documents one exit code. Meaning is Markdown with code spans
// only, so that the help can show it as plain text; Short names it in a
// few words, for the summary of `mcpctl --help`.
type exitCodeDoc struct {
	Code    int
	Short   string
	Meaning string
}

// exitCodeTable returns the documented exit codes in order, a fresh slice
// on each call.
func exitCodeTable() []exitCodeDoc {
	return []exitCodeDoc{
		{ExitOK, "ok", "success"},
		{ExitError, "error", "error: connection, transport, protocol, internal; an audit record that could not be written (the request was made, its result shown)"},
		{ExitUsage, "usage", "usage error: bad flags or arguments to mcpctl itself, an unknown tool or prompt (with the closest name), a file named on the command line that does not exist"},
		{ExitRPCError, "JSON-RPC error", "the server answered with a JSON-RPC error"},
		{ExitToolError, "tool isError", "the tool ran and returned `isError: true`"},
		{ExitValidation, "validation", "validation failed: arguments breaking the tool's inputSchema (a value of the wrong type included) or a prompt's declared arguments, nothing sent; a result breaking its outputSchema; with `--strict`, a `format` mismatch; for `diff`, a change that `--fail-on` fails on (breaking ones by default); for `scan`, a finding as severe as `--fail-on` (errors by default)"},
		{ExitSignature, "signature", "signature verification failed; for `audit verify`, a line of the audit trail that does not verify, or a trail that does not end where its head says"},
		{ExitTimeout, "timeout", "timed out (mcpctl cancelled the request: `notifications/cancelled`, or in the modern era over HTTP by closing its stream)"},
		{ExitAuth, "authorization", "authorization required or failed: no usable token and no way to sign in here (run `mcpctl auth login`), a refused or failed OAuth flow, or a 401/403 the server kept answering"},
		{ExitPolicy, "policy", "refused by policy: approval not given, a required scope missing, or the rate limit reached"},
		{ExitInterrupted, "Ctrl-C", "interrupted (Ctrl-C); the in-flight request was cancelled, as for a timeout"},
		{ExitTerminated, "SIGTERM", "terminated (SIGTERM), handled as Ctrl-C is; 129 for SIGHUP (128 + the signal's number, as shells report)"},
	}
}

// exitCodeHelp is `mcpctl help exit-codes`: the table as plain text, each
// meaning wrapped beside its code.
func exitCodeHelp() string {
	const indent, width = 7, 78
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, e := range exitCodeTable() {
		fmt.Fprintf(&b, "\n  %-4d", e.Code)
		col := indent
		for i, word := range strings.Fields(strings.ReplaceAll(e.Meaning, "`", "")) {
			switch {
			case i == 0:
				b.WriteByte(' ')
				col++
			case col+1+len(word) > width:
				b.WriteString("\n" + strings.Repeat(" ", indent))
				col = indent
			default:
				b.WriteByte(' ')
				col++
			}
			b.WriteString(word)
			col += len(word)
		}
	}
	return b.String()
}

// exitCodeMarkdown is the exit-code table as Markdown, for the generated
// reference (docs/reference/mcpctl_help_exit-codes.md).
func exitCodeMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, e := range exitCodeTable() {
		fmt.Fprintf(&b, "| %d | %s |\n", e.Code, e.Meaning)
	}
	return b.String()
}

// exitCodeSummary is the exit-code section of `mcpctl --help`: each code
// with its short name, wrapped to width, and where the full table is.
func exitCodeSummary(width int) string {
	var words []string
	rows := exitCodeTable()
	for i, e := range rows {
		w := fmt.Sprintf("%d %s", e.Code, e.Short)
		if i < len(rows)-1 {
			w += ","
		}
		words = append(words, w)
	}
	words = append(words, "(mcpctl help exit-codes)")
	return wrapList("Exit codes: ", words, width)
}

// FlagError is a usage error: bad flags or arguments to mcpctl itself.
// Hint asks for the "see --help" line, useful when the error is about the
// command line's syntax rather than a value.
type FlagError struct {
	Err  error
	Hint bool
}

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// flagErrorf builds a [FlagError].
func flagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// ExitCodeError carries an exit code for an outcome the command has already
// reported (for example a tool result with isError, printed in full). Msg, if
// set, is printed as the error line.
type ExitCodeError struct {
	Code int
	Msg  string
}

func (e *ExitCodeError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Msg
}

// exitCode maps an error to the documented exit code. This is the one place
// that does so.
func exitCode(err error, interrupted bool) int {
	var (
		flagErr  *FlagError
		argErr   *schema.ArgError
		codeErr  *ExitCodeError
		batchErr *batch.ExitCodeError
		rpcErr   *client.RPCError
		timeout  *client.TimeoutError
		deadline = errors.Is(err, context.DeadlineExceeded)
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &codeErr):
		return codeErr.Code
	case errors.As(err, new(*session.AuditError)):
		// The request happened; the trail's failure is mcpctl's own.
		return ExitError
	case errors.As(err, new(*session.OutputError)), errors.As(err, new(*session.StrictError)):
		return ExitValidation
	case errors.As(err, &batchErr):
		return batchErr.Code
	case policy.IsRefusal(err):
		return ExitPolicy
	case interrupted && errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &flagErr), errors.As(err, &argErr), isCobraUsageError(err), isMissingFile(err):
		return ExitUsage
	case errors.As(err, &timeout), errors.As(err, new(*client.ConnectTimeoutError)), deadline:
		return ExitTimeout
	case isAuthError(err):
		return ExitAuth
	case errors.As(err, &rpcErr):
		return ExitRPCError
	case errors.As(err, new(*signing.VerifyError)):
		return ExitSignature
	}
	return ExitError
}

// plainWords rewrites the context package's wording out of an error line:
// "context canceled" and "context deadline exceeded" end the text of every
// error that wraps them, and say nothing to a user. A cancellation is
// dropped when the line already says what cancelled it (interrupted, the
// signal's word) and is "cancelled" otherwise; a deadline is "timed out".
// The texts matched are the context package's own errors', not copies.
func plainWords(msg string, interrupted bool) string {
	canceled, deadline := context.Canceled.Error(), context.DeadlineExceeded.Error()
	if interrupted {
		msg = strings.ReplaceAll(msg, ": "+canceled, "")
	}
	msg = strings.ReplaceAll(msg, canceled, "cancelled")
	return strings.ReplaceAll(msg, deadline, "timed out")
}

// signalWord says what a signal did to the command, for the start of its
// error line: "interrupted" for Ctrl-C (and a cancellation no signal
// caused), "terminated" for SIGTERM, "hung up" for SIGHUP.
func signalWord(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "terminated"
	case syscall.SIGHUP:
		return "hung up"
	}
	return "interrupted"
}

// panicExit reports a panic that reached [Main] and returns its exit code:
// ExitError, never ExitUsage, which Go gives an unrecovered panic. Running
// out of room in a buffer (bytes.ErrTooLarge) is said as such, without the
// stack; anything else is a bug, shown with its stack for the report. (Go's
// fatal "out of memory" ends the process without a panic, with status 2, and
// cannot be caught; the message-size limit is what keeps mcpctl from it.)
func panicExit(w io.Writer, r any, stack []byte) int {
	if err, ok := r.(error); ok && errors.Is(err, bytes.ErrTooLarge) {
		fmt.Fprintf(w, "error: out of memory: %v (a smaller --max-message-size bounds what mcpctl holds)\n", err)
		return ExitError
	}
	fmt.Fprintf(w, "error: internal error (a bug in mcpctl; please report it): panic: %v\n%s", r, stack)
	return ExitError
}

// isAuthError recognises an authorization that is required and failed:
// the Authorizer's [*auth.Error] (through the url.Error and the transport's
// errors that wrap what a RoundTripper returns), and a 401 or 403 the
// server answered anyway (a --bearer token it refused).
func isAuthError(err error) bool {
	if errors.As(err, new(*auth.Error)) {
		return true
	}
	var he *transport.HTTPError
	return errors.As(err, &he) && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden)
}

// isMissingFile recognises a file named on the command line that is not
// there (an argument's @file, --schema, a snapshot, a test file, a --trace
// file's folder): a usage error for every command. A server command that
// does not exist fails to start ("fork/exec"), which stays a connection
// error.
func isMissingFile(err error) bool {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(pe.Err, fs.ErrNotExist) {
		return false
	}
	switch pe.Op {
	case "open", "stat", "lstat", "readdir", "mkdir":
		return true
	}
	return false
}

// isCobraUsageError recognises the errors cobra returns for unknown commands
// and bad arguments, which it does not type.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}
