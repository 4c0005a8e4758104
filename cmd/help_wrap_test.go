package cmd

import (
	"context"
	"strings"
	"testing"
)

func TestHelpFlagsWrapAtWords(t *testing.T) {
	for _, width := range []int{80, 100, 120} {
		ios, _, out, _ := Test()
		ios.SetTerminalWidth(width)
		if code := run(context.Background(), ios, []string{"call", "--help"}); code != ExitOK {
			t.Fatalf("width %d: call --help exited %d", width, code)
		}
		flags := false
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasSuffix(strings.ToLower(line), "flags:") {
				flags = true
				continue
			}
			if flags && len(line) > width {
				t.Errorf("width %d: flag line is %d wide: %q", width, len(line), line)
			}
		}
		if !flags {
			t.Fatalf("width %d: no Flags section:\n%s", width, out)
		}
		if !strings.Contains(out.String(), "--batch file") {
			t.Errorf("width %d: --batch missing:\n%s", width, out)
		}
	}
}
