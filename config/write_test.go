package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAddAndRemoveServer(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "new", "dir", "config.yaml")
	stdio := Server{Name: "ev", Transport: TransportStdio, Command: "npx", Args: []string{"-y", "pkg"}, Env: map[string]string{"B": "2", "A": "1"}}
	if err := AddServer(path, stdio, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("a new config file has mode %v, want 0600: it may hold tokens", fi.Mode().Perm())
	}
	local := Server{Name: "local", Transport: TransportStdio, Command: "srv", MaxMessageSize: 512 << 20, InheritEnv: true}
	if err := AddServer(path, local, false); err != nil {
		t.Fatal(err)
	}
	remote := Server{Name: "remote", Transport: TransportSSE, URL: "https://h/sse", Headers: map[string]string{"Authorization": "Bearer ${T}"}, Timeout: 90 * time.Second}
	if err := AddServer(path, remote, false); err != nil {
		t.Fatal(err)
	}
	if err := AddServer(path, stdio, false); !errors.Is(err, ErrExists) {
		t.Errorf("adding a name twice: error %v, want ErrExists", err)
	}
	stdio.Args = []string{"other"}
	if err := AddServer(path, stdio, true); err != nil {
		t.Errorf("--force: %v", err)
	}
	c, err := Load(path, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	cat := Discover(Host{GOOS: "linux", Home: t.TempDir()}, c)
	want := []Server{
		{Name: "ev", Origin: OriginMcpctl, Scope: ScopeConfig, File: path, Transport: TransportStdio, Command: "npx", Args: []string{"other"}, Env: map[string]string{"A": "1", "B": "2"}},
		{Name: "local", Origin: OriginMcpctl, Scope: ScopeConfig, File: path, Transport: TransportStdio, Command: "srv", MaxMessageSize: 512 << 20, InheritEnv: true},
		{Name: "remote", Origin: OriginMcpctl, Scope: ScopeConfig, File: path, Transport: TransportSSE, URL: "https://h/sse", Headers: map[string]string{"Authorization": "Bearer ${T}"}, Timeout: 90 * time.Second},
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "max-message-size: 512MiB\n") {
		t.Errorf("max-message-size not written in a unit:\n%s", data)
	}
	if diff := cmp.Diff(want, cat.Servers); diff != "" {
		t.Errorf("servers read back (-want +got):\n%s", diff)
	}

	if err := RemoveServer(path, "ev"); err != nil {
		t.Fatal(err)
	}
	if err := RemoveServer(path, "ev"); !errors.Is(err, ErrNoServer) {
		t.Errorf("removing twice: error %v, want ErrNoServer", err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "ev:") || !strings.Contains(string(data), "remote:") {
		t.Errorf("after remove:\n%s", data)
	}
}

func TestAddServerKeepsTheRest(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	orig := "# my settings\noutput: json # always\nservers:\n  old:\n    command: x # keep me\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AddServer(path, Server{Name: "new", URL: "http://h/mcp"}, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# my settings\noutput: json # always\nservers:\n  old:\n    command: x # keep me\n  new:\n    url: http://h/mcp\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
}

func TestAddServerRejects(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	for _, s := range []Server{
		{Name: "", Command: "x"},
		{Name: "two words", Command: "x"},
		{Name: "both", Command: "x", URL: "http://h"},
		{Name: "neither"},
		{Name: "url inherits", URL: "http://h", InheritEnv: true},
	} {
		var invalid *InvalidError
		if err := AddServer(path, s, false); !errors.As(err, &invalid) {
			t.Errorf("AddServer(%+v) error = %v, want an *InvalidError", s, err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected server created the file")
	}
}

func TestAddServerIOErrorIsNotInvalid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A folder where the file should be: reading it fails.
	err := AddServer(dir, Server{Name: "x", Command: "srv"}, false)
	var invalid *InvalidError
	if err == nil || errors.As(err, &invalid) {
		t.Errorf("AddServer on a folder: error %v, want an I/O error, not *InvalidError", err)
	}
}

func TestServerAuthSettings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	a := Auth{ClientID: "cid", ClientSecret: "env:SECRET", Grant: "client-credentials", Scope: "read write", DPoP: "never"}
	if err := AddServer(path, Server{Name: "prot", URL: "https://h/mcp", Auth: a}, false); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, true, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	var problems []*Problem
	servers, err := c.servers(&problems)
	if err != nil || len(problems) > 0 || len(servers) != 1 {
		t.Fatalf("servers = %v, %v, problems %v", servers, err, problems)
	}
	if diff := cmp.Diff(a, servers[0].Auth); diff != "" {
		t.Errorf("auth settings after a round trip (-want +got):\n%s", diff)
	}
	bad := Server{Name: "leak", URL: "https://h/mcp", Auth: Auth{ClientSecret: "s3cret"}}
	var inv *InvalidError
	if err := AddServer(path, bad, false); !errors.As(err, &inv) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a literal secret: error %v, want an InvalidError that does not quote it", err)
	}
	stdio := Server{Name: "cmd", Command: "srv", Auth: Auth{ClientID: "x"}}
	if err := AddServer(path, stdio, false); !errors.As(err, &inv) {
		t.Errorf("OAuth settings on a command: error %v, want an InvalidError", err)
	}
}
