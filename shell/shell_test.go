package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
)

// quietSession is a session that offers nothing and never ends.
type quietSession struct{ closed bool }

func (s *quietSession) HasCapability(string) bool { return false }
func (s *quietSession) ListAll(context.Context, string, string) ([]json.RawMessage, error) {
	return nil, nil
}
func (s *quietSession) Subscribe(context.Context, client.SubscriptionFilter) (*client.Subscription, error) {
	return nil, errors.New("no subscriptions here")
}
func (s *quietSession) InitializeResult() *client.InitializeResult { return &client.InitializeResult{} }
func (s *quietSession) Era() string                                { return "legacy" }
func (s *quietSession) LogLevel() string                           { return "" }
func (s *quietSession) Done() <-chan struct{}                      { return nil }
func (s *quietSession) ListTools(context.Context) ([]client.Tool, error) {
	return nil, nil
}
func (s *quietSession) ListPrompts(context.Context) ([]client.Prompt, error) { return nil, nil }
func (s *quietSession) ListResources(context.Context) ([]client.Resource, error) {
	return nil, nil
}
func (s *quietSession) ListResourceTemplates(context.Context) ([]client.ResourceTemplate, error) {
	return nil, nil
}
func (s *quietSession) NotifyRootsChanged(context.Context) error { return nil }
func (s *quietSession) ProtocolVersion() string                  { return "2025-06-18" }
func (s *quietSession) Close() error                             { s.closed = true; return nil }

// TestRunScript runs a piped script: the commands Run runs get their
// words, a failing line prints one error naming the line and the shell
// goes on, a line over the limit is refused, exit ends the shell.
func TestRunScript(t *testing.T) {
	script := "# a comment\n" +
		"call echo 'message=hi there'\n" +
		"\n" +
		"bogus\n" +
		"call fail\n" +
		"call reported\n" +
		"call echo message=" + strings.Repeat("y", 100) + "\n" +
		"help wait\n" +
		"quit\n" +
		"call never\n"
	var out, errOut bytes.Buffer
	var ran [][]string
	s := &quietSession{}
	err := Run(context.Background(), Options{
		In: strings.NewReader(script), Out: &out, ErrOut: &errOut, MaxLine: 64,
		Commands: []Command{{Name: "call", Usage: "call TOOL"}},
		Connect: func(_ context.Context, o, e io.Writer, _ func(client.Notification)) (*Connection, error) {
			if o != &out || e != &errOut {
				t.Error("piped, the commands do not print to the shell's writers")
			}
			return &Connection{Session: s, Name: "quiet"}, nil
		},
		Run: func(_ context.Context, args []string, o, _ io.Writer) error {
			ran = append(ran, args)
			switch args[1] {
			case "fail":
				return errors.New("it failed: secret")
			case "reported":
				return ErrReported
			}
			_, err := io.WriteString(o, strings.Join(args[2:], ",")+"\n")
			return err
		},
		Redact: func(s string) string { return strings.ReplaceAll(s, "secret", "***") },
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if diff := cmp.Diff([][]string{{"call", "echo", "message=hi there"}, {"call", "fail"}, {"call", "reported"}}, ran); diff != "" {
		t.Errorf("commands run (-want +got):\n%s", diff)
	}
	if want := "message=hi there\nwait DURATION\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	// Piped, each error names its line; comments and blank lines count.
	wantErr := `error: line 4: unknown command "bogus": type help for the commands
error: line 5: it failed: ***
error: line 7: the line "call echo message=yyyyyyyyyyyyyyyyyyyyyy…" is longer than the limit of 64 bytes (--max-message-size): it was not run
`
	if diff := cmp.Diff(wantErr, errOut.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if !s.closed {
		t.Error("session not closed")
	}
}

// TestRunConnectFails checks that a session that cannot be made is the
// shell's error.
func TestRunConnectFails(t *testing.T) {
	boom := errors.New("boom")
	err := Run(context.Background(), Options{
		In: strings.NewReader("call x\n"),
		Connect: func(context.Context, io.Writer, io.Writer, func(client.Notification)) (*Connection, error) {
			return nil, boom
		},
	})
	if !errors.Is(err, boom) {
		t.Errorf("Run: %v, want %v", err, boom)
	}
}
