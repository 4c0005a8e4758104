package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const testExe = "/usr/local/bin/mcpctl"

// TestWrapUnwrapByteIdentical wraps every server of each editor's sample
// file, checks the wrapped entries, wraps again (nothing changes), and
// unwraps back to the original bytes.
func TestWrapUnwrapByteIdentical(t *testing.T) {
	for _, tc := range []struct {
		file    string
		wrapped []string
		skipped []string
	}{
		{"claude-desktop.json", []string{"filesystem", "weather"}, nil},
		{"claude-code.json", []string{"local", "proj-server"}, []string{"remote"}},
		{"cursor.json", []string{"everything", "noargs"}, []string{"sse"}},
		{"vscode.json", []string{"github"}, []string{"web"}},
		{"windsurf.json", []string{"git"}, []string{"remote"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("testdata", "wrap", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), tc.file)
			os.WriteFile(path, orig, 0o600)
			before, _ := editorEntries(orig)

			rep, err := WrapFile(path, nil, testExe)
			if err != nil {
				t.Fatal(err)
			}
			var wrapped, skipped []string
			for _, c := range rep.Changes {
				switch c.Done {
				case "wrapped":
					wrapped = append(wrapped, c.Name)
				case "skipped":
					skipped = append(skipped, c.Name)
				}
			}
			slices.Sort(wrapped)
			slices.Sort(skipped)
			if !slices.Equal(wrapped, tc.wrapped) || !slices.Equal(skipped, tc.skipped) {
				t.Errorf("wrapped %v skipped %v; want %v and %v", wrapped, skipped, tc.wrapped, tc.skipped)
			}
			data, _ := os.ReadFile(path)
			if b, _ := os.ReadFile(path + BackupSuffix); !bytes.Equal(b, orig) {
				t.Errorf("the backup is not the original")
			}
			// The wrapped file still parses as its editor reads it, and
			// each wrapped entry runs the old command through the proxy.
			if !json.Valid(stripJSONC(data)) {
				t.Fatalf("the wrapped file is not JSON:\n%s", data)
			}
			after, err := editorEntries(data)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range after {
				if !slices.Contains(tc.wrapped, e.Name) {
					continue
				}
				want := append([]string{"proxy", "--", before[i].cmd}, before[i].args...)
				if e.cmd != testExe || !slices.Equal(e.args, want) {
					t.Errorf("%s: %s %q; want %s %q", e.Name, e.cmd, e.args, testExe, want)
				}
			}

			rep, err = WrapFile(path, nil, testExe)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(path); rep.Written || !bytes.Equal(again, data) {
				t.Errorf("wrapping twice changed the file")
			}

			rep, err = UnwrapFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if back, _ := os.ReadFile(path); !bytes.Equal(back, orig) || rep.Reversed {
				t.Errorf("unwrap is not byte-identical (reversed %v):\n%s", rep.Reversed, back)
			}
			if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
				t.Errorf("the backup is still there after a restore")
			}
		})
	}
}

// TestUnwrapChangedFile: a file edited since it was wrapped is unwrapped
// entry by entry, keeping the edit.
func TestUnwrapChangedFile(t *testing.T) {
	orig, _ := os.ReadFile(filepath.Join("testdata", "wrap", "cursor.json"))
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, orig, 0o600)
	if _, err := WrapFile(path, []string{"everything"}, testExe); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	edited := bytes.Replace(data, []byte(`"noargs":{"command":"my-server"}`), []byte(`"noargs":{"command":"my-server-2"}`), 1)
	os.WriteFile(path, edited, 0o600)
	rep, err := UnwrapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Reversed entries get args written as people write them, ", " apart.
	want := bytes.Replace(orig, []byte(`my-server"`), []byte(`my-server-2"`), 1)
	want = bytes.Replace(want, []byte(`["-y","@`), []byte(`["-y", "@`), 1)
	if back, _ := os.ReadFile(path); !rep.Reversed || !bytes.Equal(back, want) {
		t.Errorf("reversed %v:\n%s\nwant\n%s", rep.Reversed, back, want)
	}
	if _, err := WrapFile(path, []string{"nosuch"}, testExe); err == nil {
		t.Errorf("wrapping a server the file lacks is not an error")
	}
}
