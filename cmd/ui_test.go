package cmd

import "testing"

func TestCallCommandLine(t *testing.T) {
	tests := []struct {
		name string
		o    ServerOptions
		args []string
		want string
	}{
		{"demo", ServerOptions{Demo: true}, []string{"a=2", "b=3"}, "mcpctl call --demo add a=2 b=3"},
		{"named", ServerOptions{Server: "my server"}, []string{"message=hello world"}, "mcpctl call -s 'my server' add 'message=hello world'"},
		{"url", ServerOptions{URL: "http://127.0.0.1:3001/mcp"}, []string{`tags:=["a"]`}, `mcpctl call --url http://127.0.0.1:3001/mcp add 'tags:=["a"]'`},
		{"stdio", ServerOptions{Command: []string{"npx", "-y", "pkg"}}, []string{"it's=x"}, `mcpctl call add 'it'\''s=x' -- npx -y pkg`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := callCommandLine(&tt.o, "add", tt.args); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
