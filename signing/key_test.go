package signing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadKey(t *testing.T) {
	const secret = "s3cr3t-value"
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("MCPCTL_TEST_KEY", secret)
	t.Setenv("MCPCTL_TEST_EMPTY_KEY", "")
	tests := []struct {
		name      string
		spec      string
		want      string
		wantError string
	}{
		{name: "env", spec: "env:MCPCTL_TEST_KEY", want: secret},
		{name: "file", spec: "file:" + write("plain", secret), want: secret},
		{name: "file with newline", spec: "file:" + write("nl", secret+"\n"), want: secret},
		{name: "file with CRLF", spec: "file:" + write("crlf", secret+"\r\n"), want: secret},
		{name: "file keeps inner and leading spaces", spec: "file:" + write("sp", " a b\n"), want: " a b"},
		{name: "env unset", spec: "env:MCPCTL_TEST_UNSET_KEY", wantError: "key environment variable MCPCTL_TEST_UNSET_KEY is not set"},
		{name: "env empty", spec: "env:MCPCTL_TEST_EMPTY_KEY", wantError: "key environment variable MCPCTL_TEST_EMPTY_KEY is empty"},
		{name: "env without name", spec: "env:", wantError: "needs a variable name"},
		{name: "file missing", spec: "file:" + filepath.Join(dir, "nope"), wantError: "reading key file"},
		{name: "file empty", spec: "file:" + write("empty", "\n"), wantError: "is empty"},
		{name: "file without path", spec: "file:", wantError: "needs a path"},
		{name: "literal key", spec: secret, wantError: "key must be given as env:NAME or file:PATH"},
		{name: "other scheme", spec: "base64:" + secret, wantError: "key must be given as env:NAME or file:PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadKey(tt.spec)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantError)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error message contains the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("key mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
