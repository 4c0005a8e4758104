package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/approval"
)

// On a terminal the table has headers and long arguments are cut; -o json
// keeps them whole.
func TestProxyApprovalsTable(t *testing.T) {
	state := t.TempDir()
	store := approval.Store{Dir: filepath.Join(state, "mcpctl", "approvals")}
	long := `{"query":"` + strings.Repeat("x", 100) + `"}`
	id, err := store.Hold(approval.Request{Server: "srv", Tool: "run_query", Arguments: json.RawMessage(long), Host: approval.Host{Name: "claude-code", Version: "2.1.0"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		tty  bool
		want []string
		not  []string
	}{
		{[]string{}, true, []string{"ID", "ARGUMENTS", id, "run_query", "claude-code 2.1.0", "…"}, []string{long}},
		{[]string{"-o", "json"}, false, []string{`"id": "` + id + `"`, strings.Repeat("x", 100), `"state": "pending"`}, nil},
	} {
		ios, _, out, errOut := Test()
		ios.SetStdoutTTY(tc.tty)
		ios.SetTerminalWidth(160)
		f := NewFactory(ios)
		f.Environ = func() []string { return []string{"HOME=" + state, "XDG_STATE_HOME=" + state} }
		cmd := newCmdProxyApprovals(f)
		cmd.SetArgs(tc.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v (%s)", tc.args, err, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(out.String(), w) {
				t.Errorf("%v: output has %q whole:\n%s", tc.args, w, out)
			}
		}
	}
}
