package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/batch"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/transport"
)

// Exit codes, documented in the README and in `mcpctl --help`.
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
	// report it (SIGHUP's is 129). See signalExitCode.
	ExitTerminated = 143
)

const exitCodeHelp = `Exit codes:
  0    success
  1    error: connection, transport, protocol, internal
  2    usage error: bad flags or arguments to mcpctl itself, an unknown
       tool or prompt, a file named on the command line that is missing
  3    the server answered with a JSON-RPC error
  4    the tool ran and returned isError: true
  5    validation failed: arguments (a wrong type too) breaking the
       inputSchema or a prompt's arguments, a result its outputSchema
  6    signature verification failed (or an audit trail line, for
       audit verify)
  7    timed out
  8    authorization required or failed (no usable token, and no way to
       complete a sign-in here: run mcpctl auth login)
  9    refused by policy (approval not given, missing scope, rate limit)
  130  interrupted (Ctrl-C); the in-flight request was cancelled
  143  terminated (SIGTERM), as for Ctrl-C; 129 for SIGHUP`

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
