package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"version"}, "version"},
		{[]string{"list", "--demo"}, "list"},
		{[]string{"--config", "x.yaml", "list"}, ""}, // a flag first: the whole tree
		{[]string{"help", "list"}, ""},
		{[]string{"completion", "bash"}, ""}, // completion walks the tree
		{[]string{"__complete", "call", ""}, ""},
		{[]string{"lsit"}, ""}, // did-you-mean needs every name
	} {
		if got := commandNamed(tc.args); got != tc.want {
			t.Errorf("commandNamed(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A command line that names its command builds only that one, and behaves
// as with the whole tree.
func TestRunBuildsOnlyTheNamedCommand(t *testing.T) {
	t.Parallel()
	root := newCmdRoot(NewFactory(mustTest()), "version")
	if n := len(root.Commands()); n != 1 {
		t.Fatalf("root for version has %d commands, want 1", n)
	}
	ios, _, out, errOut := Test()
	if code := run(context.Background(), ios, []string{"version"}); code != ExitOK {
		t.Fatalf("version: exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out.String(), "mcpctl ") {
		t.Errorf("version printed %q", out)
	}
	ios, _, _, errOut = Test()
	if code := run(context.Background(), ios, []string{"lsit"}); code != ExitUsage || !strings.Contains(errOut.String(), "Did you mean") && !strings.Contains(errOut.String(), "unknown command") {
		t.Errorf("lsit: exit %d, stderr %q", code, errOut)
	}
}

func mustTest() *IOStreams {
	ios, _, _, _ := Test()
	return ios
}

// stop before anything waited: nothing was caught, and nothing is after.
func TestSignalContextStopUnused(t *testing.T) {
	t.Parallel()
	c := newSignalContext()
	c.stop()
	<-c.Done()
	if c.sigs != nil {
		t.Error("signals caught after stop")
	}
}

// Commands that never wait on their context catch no signal: their run
// starts no goroutine or thread for it (see signalContext).
func TestVersionCatchesNoSignal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"version"}, {"servers", "--config", cfg}} {
		c := newSignalContext()
		ios, _, _, errOut := Test()
		f := NewFactory(ios)
		f.Environ = func() []string { return []string{"HOME=" + dir} }
		f.Getwd = func() (string, error) { return dir, nil }
		f.Hurry = c.hurry
		if code := runWith(c, f, args); code != ExitOK {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
		}
		if c.sigs != nil {
			t.Errorf("%q: signals caught", args)
		}
		c.stop()
	}
}
