package config

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		{"claude-desktop.json", []string{"filesystem", "remote", "weather"}, nil},
		{"claude-code.json", []string{"local", "proj-server", "remote"}, nil},
		{"cursor.json", []string{"everything", "noargs", "sse"}, nil},
		{"vscode.json", []string{"github", "sse", "web"}, nil},
		{"windsurf.json", []string{"git", "remote"}, nil},
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
				if before[i].URL {
					checkWrappedURL(t, orig, before[i], data, e)
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

// checkWrappedURL checks that a wrapped URL entry, started as its editor
// starts it (its env set, its args given to mcpctl, which expands -H
// values from the environment), reaches the URL with the headers the
// entry had, and that its type became stdio.
func checkWrappedURL(t *testing.T, origData []byte, orig editorEntry, data []byte, e editorEntry) {
	t.Helper()
	was, err := decodeEditorServer(orig.Name, stripJSONC(origData)[orig.Value.ValueStart:orig.Value.ValueEnd])
	if err != nil {
		t.Fatal(err)
	}
	now, err := decodeEditorServer(e.Name, stripJSONC(data)[e.Value.ValueStart:e.Value.ValueEnd])
	if err != nil {
		t.Fatalf("%s: the wrapped entry does not read: %v", e.Name, err)
	}
	if now.Command != testExe || now.Transport != TransportStdio || len(now.Args) < 3 || now.Args[0] != "proxy" || now.Args[1] != "--url" || now.Args[2] != was.URL {
		t.Errorf("%s: %s %q (%s); want %s proxy --url %s, stdio", e.Name, now.Command, now.Args, now.Transport, testExe, was.URL)
	}
	headers := map[string]string{}
	for i := 3; i+1 < len(now.Args); i += 2 {
		if now.Args[i] != "-H" {
			if want := map[string]string{TransportSSE: "sse", TransportHTTP: "http"}[was.Transport]; now.Args[i] != "--transport" || now.Args[i+1] != want {
				t.Errorf("%s: %s %s; want --transport %s", e.Name, now.Args[i], now.Args[i+1], want)
			}
			continue
		}
		name, value, _ := strings.Cut(now.Args[i+1], ": ")
		if strings.Contains(value, "{") {
			t.Errorf("%s: -H %s holds an editor reference, which belongs in env", e.Name, now.Args[i+1])
		}
		headers[name] = os.Expand(value, func(k string) string { return now.Env[k] })
	}
	if !maps.Equal(headers, was.Headers) && len(headers)+len(was.Headers) > 0 {
		t.Errorf("%s: headers %q; want %q", e.Name, headers, was.Headers)
	}
}

// TestUnwrapChangedFileURL: a wrapped URL entry of a file edited since is
// turned back in place into the server it was: its URL, type and headers.
func TestUnwrapChangedFileURL(t *testing.T) {
	for _, file := range []string{"vscode.json", "windsurf.json", "claude-code.json"} {
		t.Run(file, func(t *testing.T) {
			orig, _ := os.ReadFile(filepath.Join("testdata", "wrap", file))
			path := filepath.Join(t.TempDir(), file)
			os.WriteFile(path, orig, 0o600)
			if _, err := WrapFile(path, nil, testExe); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			os.WriteFile(path, append(data, '\n'), 0o600)
			rep, err := UnwrapFile(path)
			if err != nil {
				t.Fatal(err)
			}
			back, _ := os.ReadFile(path)
			if !rep.Reversed || !json.Valid(stripJSONC(back)) {
				t.Fatalf("reversed %v:\n%s", rep.Reversed, back)
			}
			want, _ := editorEntries(orig)
			got, _ := editorEntries(back)
			for i, w := range want {
				ws, _ := decodeEditorServer(w.Name, stripJSONC(orig)[w.Value.ValueStart:w.Value.ValueEnd])
				gs, err := decodeEditorServer(got[i].Name, stripJSONC(back)[got[i].Value.ValueStart:got[i].Value.ValueEnd])
				if err != nil || ws.URL != gs.URL || ws.Transport != gs.Transport || ws.Command != gs.Command || !maps.Equal(ws.Headers, gs.Headers) || !maps.Equal(ws.Env, gs.Env) {
					t.Errorf("%s: %+v (%v); want %+v", w.Name, gs, err, ws)
				}
			}
		})
	}
}

// TestWrapRefusesWhatTheEditorReadsOtherwise: an editor (JavaScript's
// JSON.parse) reads the last copy of a member given twice, escaped or not,
// and Windsurf reads serverUrl; wrapping the copy the editor does not read
// would leave the server it runs ungoverned, so such an entry is skipped,
// and a file giving its servers map twice is refused.
func TestWrapRefusesWhatTheEditorReadsOtherwise(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	orig := `{"mcpServers": {
  "dup": {"command": "npx", "args": ["good"], "command": "sh", "args": ["-c", "evil"]},
  "esc": {"command": "npx", "comm\u0061nd": "sh"},
  "urls": {"url": "https://a.example/mcp", "serverUrl": "https://b.example/mcp"},
  "typed": {"url": "https://a.example/mcp", "type": "http", "url": "https://b.example/mcp"},
  "ok": {"command": "npx"}
}}`
	os.WriteFile(path, []byte(orig), 0o600)
	rep, err := WrapFile(path, nil, testExe)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rep.Changes {
		got[c.Name] = c.Done + ": " + c.Why
	}
	for _, name := range []string{"dup", "esc", "urls", "typed"} {
		if !strings.HasPrefix(got[name], "skipped: ") {
			t.Errorf("%s: %q, want skipped", name, got[name])
		}
	}
	if !strings.HasPrefix(got["ok"], "wrapped") {
		t.Errorf("ok: %q, want wrapped", got["ok"])
	}
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte(`"command": "sh", "args": ["-c", "evil"]`)) {
		t.Errorf("a skipped entry was edited:\n%s", data)
	}

	twice := `{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {"b": {"command": "y"}}}`
	os.WriteFile(path, []byte(twice), 0o600)
	if _, err := WrapFile(path, nil, testExe); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a file giving mcpServers twice: %v, want an error saying so", err)
	}
	if data, _ := os.ReadFile(path); string(data) != twice {
		t.Errorf("the refused file was written:\n%s", data)
	}
}
