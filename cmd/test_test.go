package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewCmdTestFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(*TestOptions) bool
		wantErr string
	}{
		{name: "defaults", args: nil, check: func(o *TestOptions) bool {
			return o.Format == "text" && o.Repeat == 1 && o.Parallel == 1 && len(o.Paths) == 0
		}},
		{name: "paths and server", args: []string{"a.mcptest.yaml", "dir", "--", "srv", "-x"}, check: func(o *TestOptions) bool {
			return strings.Join(o.Paths, ",") == "a.mcptest.yaml,dir" && strings.Join(o.Server.Command, " ") == "srv -x"
		}},
		{name: "reports", args: []string{"--junit", "j.xml", "-o", "json", "--update", "--run", "^a", "--repeat", "3", "--parallel", "2"}, check: func(o *TestOptions) bool {
			return o.JUnit == "j.xml" && o.Format == "json" && o.Update && o.Run == "^a" && o.Repeat == 3 && o.Parallel == 2
		}},
		{name: "init", args: []string{"--init", "x.mcptest.yaml", "--demo"}, check: func(o *TestOptions) bool { return o.Init && o.Server.Demo }},
		{name: "bad output", args: []string{"-o", "yaml"}, wantErr: `invalid --output "yaml"`},
		{name: "bad repeat", args: []string{"--repeat", "0"}, wantErr: "--repeat must be at least 1"},
		{name: "bad parallel", args: []string{"--parallel", "0"}, wantErr: "--parallel must be at least 1"},
		{name: "bad run", args: []string{"--run", "("}, wantErr: "invalid --run"},
		{name: "init two paths", args: []string{"--init", "a", "b"}, wantErr: "at most one path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := Test()
			var got *TestOptions
			cmd := NewCmdTest(NewFactory(ios), func(o *TestOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(ios.Out)
			cmd.SetErr(ios.ErrOut)
			err := cmd.ExecuteContext(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				if code := exitCode(err, false); code != ExitUsage {
					t.Errorf("exit code %d, want %d", code, ExitUsage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Errorf("options not as expected: %+v", *got)
			}
		})
	}
}

func TestTestRun(t *testing.T) {
	dir := t.TempDir()
	pass := filepath.Join(dir, "pass.mcptest.yaml")
	fail := filepath.Join(dir, "fail.mcptest.yaml")
	noServer := filepath.Join(dir, "none.mcptest.yaml")
	for name, content := range map[string]string{
		pass:     "tests:\n  - {name: add, call: add, args: {a: '2', b: 3}, expect: {text: '5', jq: '.structuredContent.sum == 5'}}\n",
		fail:     "tests:\n  - {name: echo, call: echo, args: {message: hi}, expect: {text: bye}}\n",
		noServer: "tests:\n  - {name: tools, list: tools}\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{[]string{"test", "--demo", pass}, ExitOK, []string{"PASS\t" + pass + "\tadd\t", "1 passed, 0 failed\n"}, ""},
		{[]string{"test", "--demo", "--parallel", "2", pass, fail}, ExitError, []string{"FAIL\t" + fail + "\techo\t", "-bye", "+hi", "1 passed, 1 failed\n"}, ""},
		{[]string{"test", "--demo", "-o", "json", fail}, ExitError, []string{`"failed": 1`}, ""},
		{[]string{"test", noServer}, ExitUsage, []string{"could not run"}, "no server"},
		{[]string{"test", filepath.Join(dir, "missing")}, ExitUsage, nil, "no such file"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, out, errOut := Test()
			code := run(context.Background(), ios, tt.args)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tt.wantCode, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.wantErr)
			}
		})
	}
}
