package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
)

func TestSampleExecWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"./answer.sh", []string{"./answer.sh"}, ""},
		{"  a  b\tc ", []string{"a", "b", "c"}, ""},
		{`sh -c 'cat req; echo "x"'`, []string{"sh", "-c", `cat req; echo "x"`}, ""},
		{`a "b \"c\" \\ d" e\ f ''`, []string{"a", `b "c" \ d`, "e f", ""}, ""},
		{"", nil, ""},
		{"a 'b", nil, "unterminated '"},
		{`a "b`, nil, `unterminated "`},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("splitWords(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// featureFactory is a factory whose streams are buffers, a terminal or
// not, with env as its whole environment.
func featureFactory(tty bool, input string, env ...string) *Factory {
	ios, in, _, _ := Test()
	in.WriteString(input)
	ios.SetStdinTTY(tty)
	ios.SetStderrTTY(tty)
	f := NewFactory(ios)
	f.Environ = func() []string { return env }
	return f
}

func TestElicitSampleRootCapabilities(t *testing.T) {
	dir := t.TempDir()
	canned := filepath.Join(dir, "canned.json")
	if err := os.WriteFile(canned, []byte(`{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tty  bool
		env  []string
		o    ServerOptions
		want string // the capabilities as JSON, or a usage error's text
	}{
		{"nothing, piped", false, nil, ServerOptions{}, `{}`},
		{"terminal", true, nil, ServerOptions{}, `{"elicitation":{"form":{},"url":{}},"sampling":{}}`},
		{"terminal in CI", true, []string{"CI=true"}, ServerOptions{}, `{"elicitation":{"form":{}},"sampling":{}}`},
		{"terminal, --elicit decline", true, nil, ServerOptions{Elicit: "decline"}, `{"elicitation":{"form":{}},"sampling":{}}`},
		{"terminal, --elicit @answers", true, nil, ServerOptions{Elicit: "accept-defaults", Sample: "decline"}, `{"elicitation":{"form":{},"url":{}},"sampling":{}}`},
		{"flags, piped", false, nil, ServerOptions{Roots: []string{dir}, Sample: "@" + canned, Elicit: "decline"},
			`{"elicitation":{"form":{}},"roots":{"listChanged":true},"sampling":{}}`},
		{"missing root", false, nil, ServerOptions{Roots: []string{filepath.Join(dir, "nope")}}, "--root: root"},
		{"bad sample", false, nil, ServerOptions{Sample: "maybe"}, `invalid --sample "maybe"`},
		{"missing sample file", false, nil, ServerOptions{Sample: "@" + filepath.Join(dir, "nope.json")}, "--sample: open"},
		{"empty exec", false, nil, ServerOptions{Sample: "exec:"}, "names no command"},
		{"bad elicit", false, nil, ServerOptions{Elicit: "maybe"}, `invalid --elicit "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := featureFactory(tt.tty, "", tt.env...)
			o := tt.o
			o.Demo = true
			cf, err := f.features(&o)
			if err != nil {
				var fe *FlagError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v (%T), want a usage error with %q", err, err, tt.want)
				}
				return
			}
			b, _ := json.Marshal(cf.Capabilities)
			if string(b) != tt.want {
				t.Errorf("capabilities = %s, want %s", b, tt.want)
			}
			for name := range cf.Capabilities {
				method := map[string]string{"roots": "roots/list", "sampling": "sampling/createMessage", "elicitation": "elicitation/create"}[name]
				if cf.Handlers[method] == nil {
					t.Errorf("%s declared without a handler for %s", name, method)
				}
			}
		})
	}
}

func TestElicitTerminalForm(t *testing.T) {
	params := json.RawMessage(`{"message":"Tell us","requestedSchema":{"type":"object","properties":{
		"name":{"type":"string","minLength":2,"description":"Your name"},
		"age":{"type":"integer","minimum":0,"maximum":150,"default":30},
		"color":{"type":"string","enum":["red","green"]},
		"note":{"type":"string"}},"required":["name","color"]}}`)
	tests := []struct {
		name, input string
		want        string
		shown       []string
	}{
		{"filled in", "\nA\n\nAda\n\n9\n2\n\n", `{"action":"accept","content":{"age":30,"color":"green","name":"Ada"}}`,
			[]string{"Tell us", "name* [string, required]: Your name", "required: type a value", "want at least 2 characters", "Enter keeps the default 30", "1) red", "not one of red, green", "Enter leaves it out"}},
		{"declined", "d\n", `{"action":"decline"}`, []string{"[d]ecline"}},
		{"cancelled by Ctrl-D", "y\nAda\n", `{"action":"cancel"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, in, _, errOut := Test()
			in.WriteString(tt.input)
			ios.SetStdinTTY(true)
			ios.SetStderrTTY(true)
			f := NewFactory(ios)
			f.Environ = func() []string { return nil }
			cf, err := f.features(&ServerOptions{Demo: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cf.Handlers["elicitation/create"](context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res)
			if string(b) != tt.want {
				t.Errorf("= %s, want %s\nstderr:\n%s", b, tt.want, errOut)
			}
			for _, s := range tt.shown {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

func TestElicitURLConsent(t *testing.T) {
	params := json.RawMessage(`{"mode":"url","message":"Sign in","url":"https://auth.example/x?y=1","elicitationId":"e"}`)
	tests := []struct {
		name, input string
		tty         bool
		env         []string
		want        string
		opened      bool
	}{
		{"consent", "y\n", true, nil, "accept", true},
		{"no consent", "\n", true, nil, "decline", false},
		{"cancel", "c\n", true, nil, "cancel", false},
		{"CI", "y\n", true, []string{"CI=true"}, "decline", false},
		{"no terminal", "y\n", false, nil, "decline", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, in, _, errOut := Test()
			in.WriteString(tt.input)
			ios.SetStdinTTY(tt.tty)
			ios.SetStderrTTY(tt.tty)
			f := NewFactory(ios)
			f.Environ = func() []string { return tt.env }
			p := f.prompter(&ServerOptions{Demo: true})
			var opened string
			p.open = func(u string) error { opened = u; return nil }
			req, err := client.ParseElicitRequest(params)
			if err != nil {
				t.Fatal(err)
			}
			action, err := p.openURL(context.Background(), req)
			if err != nil || action != tt.want {
				t.Errorf("= %q, %v; want %q", action, err, tt.want)
			}
			if (opened != "") != tt.opened {
				t.Errorf("opened %q, want opened=%v", opened, tt.opened)
			}
			if !strings.Contains(errOut.String(), "https://auth.example/x?y=1") {
				t.Errorf("the URL was not shown:\n%s", errOut)
			}
		})
	}
}

func TestSampleTerminal(t *testing.T) {
	params := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"Capital of \u001b[31mFrance?"}}],
		"systemPrompt":"Be brief","maxTokens":20,"modelPreferences":{"hints":[{"name":"claude"}],"speedPriority":0.5}}`)
	tests := []struct {
		name, input string
		want        string
		code        int
	}{
		{"answered", "Paris\n\n", `{"content":{"text":"Paris","type":"text"},"model":"human","role":"assistant","stopReason":"endTurn"}`, 0},
		{"model named", "Paris\ngpt-x\n", `{"content":{"text":"Paris","type":"text"},"model":"gpt-x","role":"assistant","stopReason":"endTurn"}`, 0},
		{"declined", "\n", "", client.CodeUserRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, in, _, errOut := Test()
			in.WriteString(tt.input)
			ios.SetStdinTTY(true)
			ios.SetStderrTTY(true)
			f := NewFactory(ios)
			f.Environ = func() []string { return nil }
			cf, err := f.features(&ServerOptions{Demo: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cf.Handlers["sampling/createMessage"](context.Background(), params)
			if tt.code != 0 {
				var rpc *client.RPCError
				if !errors.As(err, &rpc) || rpc.Code != tt.code {
					t.Fatalf("error = %v, want code %d", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res)
			if string(b) != tt.want {
				t.Errorf("= %s, want %s", b, tt.want)
			}
			shown := errOut.String()
			for _, s := range []string{"system: Be brief", "user: Capital of", "hint claude, speed 0.5", "max tokens: 20"} {
				if !strings.Contains(shown, s) {
					t.Errorf("stderr lacks %q:\n%s", s, shown)
				}
			}
			if strings.Contains(shown, "\x1b[31m") {
				t.Errorf("server text reached the terminal unsanitised:\n%q", shown)
			}
		})
	}
}

// TestSurfaceFeaturesFixed checks that snapshot and diff declare the same
// client capabilities on a terminal and off one, while other commands
// declare sampling and elicitation only where a person can answer.
func TestSurfaceFeaturesFixed(t *testing.T) {
	t.Parallel()
	declared := func(tty, surfaceFeatures bool) map[string]any {
		ios, _, _, _ := Test()
		ios.SetStdinTTY(tty)
		ios.SetStderrTTY(tty)
		ios.SetStdoutTTY(tty)
		cf, err := NewFactory(ios).features(&ServerOptions{SurfaceFeatures: surfaceFeatures})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"roots/list", "sampling/createMessage", "elicitation/create"} {
			if surfaceFeatures && cf.Handlers[m] == nil {
				t.Errorf("tty=%t: no handler for %s", tty, m)
			}
		}
		return cf.Capabilities
	}
	if d := cmp.Diff(surfaceCapabilities(), declared(false, true)); d != "" {
		t.Errorf("off a terminal (-want +got):\n%s", d)
	}
	if d := cmp.Diff(surfaceCapabilities(), declared(true, true)); d != "" {
		t.Errorf("on a terminal (-want +got):\n%s", d)
	}
	if cmp.Equal(declared(false, false), declared(true, false)) {
		t.Error("without SurfaceFeatures a terminal changes nothing: the test no longer shows what it guards against")
	}
}
