package testserver

import (
	"bytes"
	"strings"
	"testing"
)

func TestSignModeRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-sign-mode", "sloppy", "sign"},
		{"-canonical", "xml", "sign"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "signserver:") {
			t.Errorf("run %q = %d, stderr:\n%s\nwant %d and a signserver error", args, code, &stderr, exitUsage)
		}
	}
}
