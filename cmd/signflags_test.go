package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/signserver"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/transport"
)

const testSignKey = "cmd-test-signing-key"

// testKeyEnv is the environment the signing tests give their runs: the
// test key, and a variable that is set but empty. It is injected (see
// [Factory.Environ]), never set in the process, so the tests run in
// parallel.
func testKeyEnv() []string {
	return []string{"CMD_TEST_KEY=" + testSignKey, "CMD_EMPTY_KEY="}
}

// testKeyLoader loads keys as a run with [testKeyEnv] does.
func testKeyLoader() func(flag, spec string) ([]byte, error) {
	f := NewFactory(nil)
	f.Environ = testKeyEnv
	return f.LoadKey
}

// rawArgsSchema types n as an integer and x as a number, so ParseArgs
// yields int64 and json.Number as it does for a real tool.
const rawArgsSchema = `{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"s":{"type":"string"}}}`

// connectSigning connects a client to an in-process signing server whose
// tool "args" returns its arguments, byte for byte, as structuredContent,
// so that awkward numbers travel both ways.
func connectSigning(t *testing.T, form string) *client.Client {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "signing-test", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "args", InputSchema: json.RawMessage(rawArgsSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: "ok <&>"}},
				StructuredContent: req.Params.Arguments,
			}, nil
		})
	mw, err := signserver.Middleware(signserver.Options{Key: []byte(testSignKey), Form: form})
	if err != nil {
		t.Fatal(err)
	}
	s.AddReceivingMiddleware(mw)

	clientConn, serverConn := transport.NewPipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(ctx, &pipeTransport{conn: serverConn})
	}()
	c, err := client.Connect(ctx, transport.Func(func(context.Context) (transport.Connection, error) { return clientConn, nil }), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		cancel()
		<-done
	})
	return c
}

// pipeTransport runs an SDK server over one end of a transport pipe.
type pipeTransport struct{ conn transport.Connection }

func (t *pipeTransport) Connect(context.Context) (mcp.Connection, error) {
	return &pipeSDKConn{conn: t.conn}, nil
}

type pipeSDKConn struct {
	conn transport.Connection
	mu   sync.Mutex
}

func (c *pipeSDKConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	data, err := c.conn.Read(ctx)
	if err != nil {
		if errors.Is(err, transport.ErrClosed) || errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	return jsonrpc.DecodeMessage(data)
}

func (c *pipeSDKConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn.Write(ctx, data, transport.WriteOptions{})
}

func (c *pipeSDKConn) Close() error      { return c.conn.Close() }
func (c *pipeSDKConn) SessionID() string { return "" }

// TestSignedCallRoundTrip checks that what the signHook signs is what
// client.CallTool sends (the server verifies the request over the bytes it
// received) and that VerifyResult accepts the server's signature over the
// bytes it sent, for arguments as ParseArgs types them.
func TestSignedCallRoundTrip(t *testing.T) {
	argSets := [][]string{
		{"s=hi"},
		{"x=1.0", "n=3"},
		{"x=1E30", "n=9007199254740991"},
		{"x=-0.0", "s=<a & b>", "obj:={\"z\":1.50,\"a\":[1e-7,\"é😀\"]}"},
		{"big:=-9007199254740991"}, // beyond ±(2^53-1) is refused (signing/ijson.go)
	}
	for _, form := range []string{signing.FormJCS, signing.FormPython} {
		c := connectSigning(t, form)
		for i, words := range argSets {
			// Every other case signs with a numeric timestamp (--sign-timestamp unix).
			style := []string{signing.TimestampRFC3339, signing.TimestampUnix}[i%2]
			t.Run(fmt.Sprintf("%s %s %q", form, style, words), func(t *testing.T) {
				o := &SignOptions{LoadKey: testKeyLoader(), SignKey: "env:CMD_TEST_KEY", VerifyKey: "env:CMD_TEST_KEY", Canonical: form, Timestamp: style, MaxSkew: signing.DefaultMaxSkew}
				if err := o.validate(); err != nil {
					t.Fatal(err)
				}
				args, err := schema.ParseArgs(words, json.RawMessage(rawArgsSchema), schema.ArgOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var nonce string
				res, err := c.CallTool(context.Background(), "args", args, client.CallOptions{ProgressToken: "p", Sign: o.signHook(&nonce)})
				if err != nil {
					t.Fatalf("the server refused the signed request: %v", err)
				}
				if err := o.VerifyResult("args", res.Raw, nonce); err != nil {
					t.Fatalf("VerifyResult: %v\nresult: %s", err, res.Raw)
				}
				// Another tool name or nonce must not verify.
				var verr *signing.VerifyError
				if err := o.VerifyResult("other", res.Raw, nonce); !errors.As(err, &verr) || !errors.Is(err, signing.ErrValueMismatch) {
					t.Errorf("VerifyResult for another tool = %v, want a value mismatch", err)
				}
				if err := o.VerifyResult("args", res.Raw, "0123"); !errors.As(err, &verr) || !errors.Is(err, signing.ErrNonceMismatch) {
					t.Errorf("VerifyResult for another nonce = %v, want a nonce mismatch", err)
				}
			})
		}
	}
}

func TestSignOptionsValidate(t *testing.T) {
	t.Parallel()
	ok := SignOptions{LoadKey: testKeyLoader(), Canonical: signing.FormJCS, MaxSkew: time.Minute}
	tests := []struct {
		name    string
		change  func(o *SignOptions)
		wantErr string
	}{
		{"nothing to do", func(o *SignOptions) {}, ""},
		{"sign and verify", func(o *SignOptions) { o.SignKey, o.VerifyKey = "env:CMD_TEST_KEY", "env:CMD_TEST_KEY" }, ""},
		{"key itself", func(o *SignOptions) { o.SignKey = testSignKey }, "--sign-key: key must be given as env:NAME or file:PATH"},
		{"unset variable", func(o *SignOptions) { o.SignKey = "env:CMD_NO_SUCH_KEY" }, "--sign-key: key environment variable CMD_NO_SUCH_KEY is not set"},
		{"empty variable", func(o *SignOptions) { o.SignKey = "env:CMD_EMPTY_KEY" }, "is empty"},
		{"missing file", func(o *SignOptions) { o.SignKey, o.VerifyKey = "env:CMD_TEST_KEY", "file:/no/such/key" }, "--verify-key: reading key file"},
		{"verify without sign", func(o *SignOptions) { o.VerifyKey = "env:CMD_TEST_KEY" }, "--verify-key needs --sign-key"},
		{"canonical", func(o *SignOptions) { o.Canonical = "xml" }, `invalid --canonical "xml"`},
		{"skew", func(o *SignOptions) { o.MaxSkew = 0 }, "--max-skew must be positive"},
		{"unix timestamps", func(o *SignOptions) { o.Timestamp = signing.TimestampUnix }, ""},
		{"timestamp style", func(o *SignOptions) { o.Timestamp = "epoch" }, `invalid --sign-timestamp "epoch": expected rfc3339 or unix`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.change(&o)
			err := o.validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("validate: %v", err)
				}
				return
			}
			var flagErr *FlagError
			if !errors.As(err, &flagErr) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("validate = %v, want a FlagError containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), testSignKey) {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

// TestSignOptionsNeedALoader: a key is loaded only through the run's
// loader (the factory's environment), never from the process's.
func TestSignOptionsNeedALoader(t *testing.T) {
	t.Parallel()
	o := &SignOptions{SignKey: "env:PATH", Canonical: signing.FormJCS, MaxSkew: time.Minute}
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), "--sign-key: internal error: no key loader") {
		t.Fatalf("validate without a loader = %v, want the missing loader named", err)
	}
}

func TestSignCallWithoutKeyDoesNothing(t *testing.T) {
	o := &SignOptions{Canonical: signing.FormJCS, MaxSkew: time.Minute}
	var nonce string
	if hook := o.signHook(&nonce); hook != nil {
		t.Errorf("signHook without --sign-key is not nil")
	}
	if err := o.VerifyResult("echo", json.RawMessage(`{"content":[]}`), ""); err != nil {
		t.Errorf("VerifyResult without --verify-key = %v", err)
	}
}

func TestJSONOutput(t *testing.T) {
	raw := json.RawMessage(`{"content":[]}`)
	plain := &SignOptions{SignKey: "env:K"}
	if got, ok := plain.jsonOutput(raw).(json.RawMessage); !ok || string(got) != string(raw) {
		t.Errorf("without --verify-key: %v, want the protocol result unchanged", plain.jsonOutput(raw))
	}
	verified := &SignOptions{SignKey: "env:K", VerifyKey: "env:K"}
	b, err := json.Marshal(verified.jsonOutput(raw))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"result":{"content":[]},"mcpctl":{"signatureVerified":true}}`; string(b) != want {
		t.Errorf("with --verify-key: %s, want %s", b, want)
	}
}
