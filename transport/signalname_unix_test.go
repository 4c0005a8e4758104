//go:build unix

package transport

import (
	"syscall"
	"testing"
)

func TestSignalName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGKILL, "SIGKILL"},
		{syscall.SIGTERM, "SIGTERM"},
		{syscall.SIGSEGV, "SIGSEGV"},
		{syscall.SIGXFSZ, "SIGXFSZ"},
		{syscall.SIGWINCH, syscall.SIGWINCH.String()}, // not in the table
	} {
		if got := signalName(tc.sig); got != tc.want {
			t.Errorf("signalName(%d) = %q, want %q", tc.sig, got, tc.want)
		}
	}
}
