package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/signing"
)

// The governor's per-call cost (issue 34, point 8): one allowed tools/call
// of echo from the host, decided, forwarded, answered at once by the
// outbox and written back to the host. The end-to-end figures, real
// processes, are scripts/bench-govern.sh's; docs/performance.md has both.
//
//	go test -run '^$' -bench Govern -benchmem -count 6 ./proxy/

const (
	benchCall   = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello 1"}}}`
	benchAnswer = `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"hello 1"}]}}`
	benchResult = `{"content":[{"type":"text","text":"hello 1"}]}`
	benchList   = `{"jsonrpc":"2.0","id":0,"result":{"tools":[{"name":"echo","description":"Returns the message unchanged.","inputSchema":{"type":"object","required":["message"],"properties":{"message":{"type":"string","description":"the text to return"}}}}]}}`
	benchPolicy = "echo: {sensitivity: low}\n"
)

var benchKey = []byte("bench-govern-key-0123456789abcdef")

// answeringOutbox is a server that answers each forwarded request at once,
// on the forwarding goroutine, and a host that signals each answer it gets.
type answeringOutbox struct {
	conn   *Conn
	answer func(req []byte) []byte
	host   chan []byte
}

func (o *answeringOutbox) ToServer(msg []byte) error {
	o.conn.FromServer(o.answer(msg))
	return nil
}

func (o *answeringOutbox) ToHost(msg []byte) error {
	o.host <- msg
	return nil
}

// benchSigner and benchVerifier are the signing stages as the proxy's
// flags make them (cmd.SignOptions): JCS, RFC 3339 timestamps.
type benchSigner struct{}

func (benchSigner) Sign(tool string, args json.RawMessage) (any, string, error) {
	sig, err := signing.SignRequestAs(benchKey, signing.FormJCS, "", signing.TimestampRFC3339, tool, args, time.Now())
	return sig, sig.Nonce, err
}

type benchVerifier struct{}

func (benchVerifier) VerifyResult(tool string, result json.RawMessage, nonce string) error {
	return signing.VerifyResult(benchKey, signing.FormJCS, tool, result, nonce, time.Now(), signing.DefaultMaxSkew)
}

// signedAnswer is the simulated signing server: it reads the nonce of the
// request's signature and answers with the echo result signed for it.
func signedAnswer(req []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Meta struct {
				Signature struct {
					Nonce string `json:"nonce"`
				} `json:"signature"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(req, &m); err != nil {
		panic(err)
	}
	sig, err := signing.SignResult(benchKey, signing.FormJCS, "", "echo", json.RawMessage(benchResult), m.Params.Meta.Signature.Nonce, time.Now())
	if err != nil {
		panic(err)
	}
	res, err := signing.AttachSignature(json.RawMessage(benchResult), sig)
	if err != nil {
		panic(err)
	}
	out, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", m.ID, res})
	if err != nil {
		panic(err)
	}
	return out
}

// plainAnswer is the unsigned server's answer to req.
func plainAnswer(req []byte) []byte { return fmt.Appendf(nil, benchAnswer, benchID(req)) }

// benchID is the numeric id of a request the benchmark made, read
// without decoding it. Each call has an id of its own, as a host's calls
// do: the governor forgets a call's id after it has answered the host.
func benchID(req []byte) []byte {
	i := bytes.Index(req, []byte(`"id":`))
	if i < 0 {
		panic("no id in " + string(req))
	}
	id := req[i+5:]
	return id[:bytes.IndexByte(id, ',')]
}

// benchGovernor is a governor with the stages the shim's flags give:
// the policy (allowing echo), and as asked an audit trail and signing.
func benchGovernor(b *testing.B, withPolicy, withAudit, withSigning bool) *Governor {
	b.Helper()
	var st session.Stages
	if withPolicy {
		p, err := policy.Parse([]byte(benchPolicy))
		if err != nil {
			b.Fatal(err)
		}
		gate := &session.PolicyGate{Load: func() (*policy.Policy, error) { return p, nil }, NoAsk: "no one can be asked here"}
		st.Policy = ToolFilter{}.Policy(gate)
	}
	if withAudit {
		w, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), nil)
		if err != nil {
			b.Fatal(err)
		}
		st.Recorder = &session.Trail{W: w}
	}
	if withSigning {
		st.Signer, st.Verifier = benchSigner{}, benchVerifier{}
	}
	st.Outputs = &session.OutputChecks{}
	return &Governor{Pipeline: session.NewPipeline(st), Server: "bench/echoserver"}
}

// runGoverned makes b.N calls through g as the shim does: the call taken
// on the relay's goroutine (decided there when it can be at once, else on
// a goroutine of its own), the answer to the host.
func runGoverned(b *testing.B, g *Governor, answer func([]byte) []byte) {
	b.Helper()
	out := &answeringOutbox{answer: answer, host: make(chan []byte, 1)}
	c := g.Conn(out)
	c.inline = true // as the shim's
	out.conn = c
	ctx := context.Background()
	// The host's handshake and tools/list, as a real host's session has
	// them: the tool book then holds echo.
	c.FromHost(ctx, []byte(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"clientInfo":{"name":"bench","version":"1"}}}`), nil)
	c.FromHost(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`), nil)
	c.FromServer([]byte(benchList))
	if c.Tool("echo") == nil {
		b.Fatal("the tool book lacks echo")
	}
	var line []byte
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := range b.N {
		// The buffer is reused: the governor is done with a line once
		// the host has its answer.
		line = fmt.Appendf(line[:0], benchCall, i+1)
		switch run, done := c.take(ctx, line, nil); {
		case done:
		case run != nil:
			go run()
		default:
			b.Fatal("the call was not governed")
		}
		if got := <-out.host; len(got) == 0 || got[len(got)-1] != '}' {
			b.Fatalf("the host got %q", got)
		}
	}
	reportCPU(b, cpu)
}

// reportCPU reports the process's CPU time per op since cpu (from
// [processCPU]), every goroutine's: the benchmark's and the governor's.
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpu == 0 {
		return
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkGovern is the governor's cost per allowed call. Subtract
// server-sign (the simulated server's own signing, which a real server
// pays, not the proxy) from policy+sign+verify.
func BenchmarkGovern(b *testing.B) {
	b.Run("stages=none", func(b *testing.B) { runGoverned(b, benchGovernor(b, false, false, false), plainAnswer) })
	b.Run("policy", func(b *testing.B) { runGoverned(b, benchGovernor(b, true, false, false), plainAnswer) })
	b.Run("policy+audit", func(b *testing.B) { runGoverned(b, benchGovernor(b, true, true, false), plainAnswer) })
	b.Run("policy+sign+verify", func(b *testing.B) { runGoverned(b, benchGovernor(b, true, false, true), signedAnswer) })
	b.Run("server-sign", func(b *testing.B) {
		sig, _, err := benchSigner{}.Sign("echo", json.RawMessage(`{"message":"hello 1"}`))
		if err != nil {
			b.Fatal(err)
		}
		req, err := withSignature(fmt.Appendf(nil, benchCall, 1), sig)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu := processCPU()
		for range b.N {
			if len(signedAnswer(req)) == 0 {
				b.Fatal("no answer")
			}
		}
		reportCPU(b, cpu)
	})
}
