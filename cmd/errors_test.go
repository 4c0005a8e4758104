package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/schema"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		interrupted bool
		want        int
	}{
		{"nil", nil, false, ExitOK},
		{"plain", errors.New("boom"), false, ExitError},
		{"flag", flagErrorf("bad"), false, ExitUsage},
		{"wrapped flag", fmt.Errorf("x: %w", flagErrorf("bad")), false, ExitUsage},
		{"cobra unknown command", errors.New(`unknown command "x" for "mcpctl"`), false, ExitUsage},
		{"arg", &schema.ArgError{Arg: "a", Msg: "bad"}, false, ExitUsage},
		{"rpc", fmt.Errorf("calling: %w", &client.RPCError{Code: -32001, Message: "x"}), false, ExitRPCError},
		{"tool error", &ExitCodeError{Code: ExitToolError}, false, ExitToolError},
		{"timeout", fmt.Errorf("x: %w", &client.TimeoutError{Method: "tools/call", After: time.Second}), false, ExitTimeout},
		{"deadline", context.DeadlineExceeded, false, ExitTimeout},
		{"interrupted", fmt.Errorf("tools/call: %w", context.Canceled), true, ExitInterrupted},
		{"cancelled without a signal", context.Canceled, false, ExitError},
		{"version", &client.VersionError{Offered: "a", Answered: "b"}, false, ExitError},
		{"policy", fmt.Errorf("calling: %w", &policy.Refusal{Tool: "t", Rule: "rate_limit"}), false, ExitPolicy},
		{"missing file", fmt.Errorf("reading the snapshot: %w", &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}), false, ExitUsage},
		{"missing test file", &fs.PathError{Op: "stat", Path: "x", Err: syscall.ENOENT}, false, ExitUsage},
		{"unreadable file", &fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, false, ExitError},
		{"missing server command", &fs.PathError{Op: "fork/exec", Path: "/x", Err: syscall.ENOENT}, false, ExitError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err, tt.interrupted); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// TestPlainWords checks that no error line ends in the context package's
// wording: a cancellation the line already explains is dropped, any other
// is "cancelled", and a deadline is "timed out".
func TestPlainWords(t *testing.T) {
	for _, tt := range []struct {
		name        string
		err         error
		interrupted bool
		want        string
	}{
		{"interrupted request", fmt.Errorf("calling tool \"x\" on s: tools/call: %w", context.Canceled), true, `calling tool "x" on s: tools/call`},
		{"interrupted, a hint after", fmt.Errorf("no answer from the browser: %w (sign in sooner)", context.Canceled), true, "no answer from the browser (sign in sooner)"},
		{"interrupted, nothing else", context.Canceled, true, "cancelled"},
		{"a signal's cause", fmt.Errorf("batch: %w", &signalCause{sig: syscall.SIGTERM}), true, "batch"},
		{"cancelled otherwise", fmt.Errorf("read: %w", context.Canceled), false, "read: cancelled"},
		{"deadline", fmt.Errorf("no answer from the browser: %w (sign in sooner)", context.DeadlineExceeded), false, "no answer from the browser: timed out (sign in sooner)"},
		{"neither", errors.New("server exited with status 1"), false, "server exited with status 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := plainWords(tt.err.Error(), tt.interrupted); got != tt.want {
				t.Errorf("plainWords(%q, %v) = %q, want %q", tt.err, tt.interrupted, got, tt.want)
			}
		})
	}
}

// TestPanicExit checks that a panic reaching Main is exit 1, never the
// usage code Go gives an unrecovered one, and that a buffer grown past
// memory is said as such.
func TestPanicExit(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    any
		want string
	}{
		{"too large", bytes.ErrTooLarge, "error: out of memory: bytes.Buffer: too large"},
		{"bug", "boom", "error: internal error (a bug in mcpctl; please report it): panic: boom\nSTACK"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if code := panicExit(&b, tt.r, []byte("STACK")); code != ExitError {
				t.Errorf("panicExit = %d, want %d", code, ExitError)
			}
			if !strings.HasPrefix(b.String(), tt.want) {
				t.Errorf("panicExit wrote %q, want it to start with %q", b.String(), tt.want)
			}
		})
	}
}
