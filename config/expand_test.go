package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "EMPTY": "", "PORT": "8080"}
	x := Expander{
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Home:      "/home/me",
		Cwd:       "/work",
	}
	tests := []struct {
		name    string
		server  Server
		want    Server
		wantErr string
	}{
		{
			name:   "VAR and env:VAR",
			server: Server{Command: "srv", Args: []string{"--token=${TOKEN}", "${env:PORT}"}, Env: map[string]string{"A": "x${TOKEN}y"}},
			want:   Server{Command: "srv", Args: []string{"--token=t0k", "8080"}, Env: map[string]string{"A": "xt0ky"}},
		},
		{
			name:   "URL and headers",
			server: Server{URL: "http://127.0.0.1:${PORT}/mcp", Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}"}},
			want:   Server{URL: "http://127.0.0.1:8080/mcp", Headers: map[string]string{"Authorization": "Bearer t0k"}},
		},
		{
			name:   "defaults",
			server: Server{Args: []string{"${MISSING:-3000}", "${EMPTY:-e}", "${PORT:-1}"}},
			want:   Server{Args: []string{"3000", "e", "8080"}},
		},
		{
			name:   "empty variable is set",
			server: Server{Args: []string{"[${EMPTY}]"}},
			want:   Server{Args: []string{"[]"}},
		},
		{
			name:   "predefined variables",
			server: Server{Dir: "/proj", Args: []string{"${workspaceFolder}/s.py", "${userHome}", "${workspaceFolderBasename}"}, Cwd: "sub"},
			want:   Server{Dir: "/proj", Args: []string{"/proj/s.py", "/home/me", "proj"}, Cwd: "/proj/sub"},
		},
		{
			name:   "workspace of a user file is the working directory",
			server: Server{Args: []string{"${workspaceFolder}"}},
			want:   Server{Args: []string{"/work"}},
		},
		{
			name:   "literal dollars",
			server: Server{Args: []string{"$TOKEN", "cost: $5", "${unterminated"}},
			want:   Server{Args: []string{"$TOKEN", "cost: $5", "${unterminated"}},
		},
		{
			name:    "unset variable",
			server:  Server{Name: "s", File: "/f.json", Env: map[string]string{"KEY": "${env:NOPE}"}},
			wantErr: `server "s" (/f.json): env.KEY: ${env:NOPE}: environment variable NOPE is not set`,
		},
		{
			name:    "unset variable in args",
			server:  Server{Name: "s", File: "/f.json", Args: []string{"ok", "${NOPE}"}},
			wantErr: `args[1]: ${NOPE}: environment variable NOPE is not set`,
		},
		{
			name:    "undeclared input",
			server:  Server{Name: "s", Args: []string{"${input:key}"}},
			wantErr: `no input "key" is declared`,
		},
		{
			name:    "input without a way to ask",
			server:  Server{Name: "s", Args: []string{"${input:key}"}, Inputs: []Input{{ID: "key"}}},
			wantErr: `input "key" cannot be asked for here (MCPCTL_INPUT_KEY answers it)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.server.Expand(x)
			if tt.wantErr != "" {
				var xe *ExpandError
				if !errors.As(err, &xe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want an ExpandError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandInputs(t *testing.T) {
	s := Server{
		Name:    "weather",
		URL:     "https://h/mcp?region=${input:region}",
		Headers: map[string]string{"Authorization": "Bearer ${input:api-key}", "X-Key": "${input:api-key}"},
		Inputs:  []Input{{ID: "api-key", Password: true}, {ID: "region"}},
	}
	var asked []string
	x := Expander{
		LookupEnv: func(k string) (string, bool) {
			if k == "MCPCTL_INPUT_REGION" {
				return "eu", true
			}
			return "", false
		},
		Input: func(srv Server, in Input) (string, error) {
			asked = append(asked, srv.Name+"/"+in.ID)
			return "s3cret", nil
		},
	}
	got, err := s.Expand(x)
	if err != nil {
		t.Fatal(err)
	}
	// Asked once, though used twice; region came from the environment.
	if diff := cmp.Diff([]string{"weather/api-key"}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	want := map[string]string{"Authorization": "Bearer s3cret", "X-Key": "s3cret"}
	if diff := cmp.Diff(want, got.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if got.URL != "https://h/mcp?region=eu" {
		t.Errorf("URL = %q", got.URL)
	}

	x.Input = func(Server, Input) (string, error) { return "", errors.New("no terminal") }
	if _, err := s.Expand(Expander{Input: x.Input}); err == nil || !strings.Contains(err.Error(), "no terminal") {
		t.Errorf("error = %v, want the Input function's", err)
	}
}

func TestInputEnvName(t *testing.T) {
	for id, want := range map[string]string{"api-key": "MCPCTL_INPUT_API_KEY", "Token2": "MCPCTL_INPUT_TOKEN2", "a.b c": "MCPCTL_INPUT_A_B_C"} {
		if got := InputEnvName(id); got != want {
			t.Errorf("InputEnvName(%q) = %q, want %q", id, got, want)
		}
	}
}
