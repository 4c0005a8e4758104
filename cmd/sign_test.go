package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpctl/mcpctl/signing"
)

// runSign runs mcpctl with args and stdin and returns the exit code, stdout
// and stderr.
func runSign(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ios, in, out, errOut := Test()
	in.WriteString(stdin)
	f := NewFactory(ios)
	f.Environ = testKeyEnv
	code := runWith(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

// TestSignVerifyExample keeps the HMAC values in the Example of sign
// verify true, so that the example works when pasted.
func TestSignVerifyExample(t *testing.T) {
	example := NewCmdSignVerify(NewFactory(nil), nil).Example
	for _, form := range []string{signing.FormJCS, signing.FormPython} {
		canon, err := signing.Canonical(form, []byte(`{"b":1.0,"a":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		if want := signing.Sign([]byte("a long random secret"), canon); !strings.Contains(example, want) {
			t.Errorf("the example has no %s value %s:\n%s", form, want, example)
		}
	}
}

func TestSignPayloadAndVerify(t *testing.T) {
	t.Parallel()
	payload := `{"b":1.0,"a":"é"}`
	code, out, errOut := runSign(t, payload, "sign", "payload", "-", "--key", "env:CMD_TEST_KEY", "--canonical", "python", "--show-canonical")
	if code != ExitOK {
		t.Fatalf("sign payload exited %d: %s", code, errOut)
	}
	if errOut != `{"a": "\u00e9", "b": 1.0}`+"\n" {
		t.Errorf("--show-canonical printed %q", errOut)
	}
	var sig payloadSignature
	if err := json.Unmarshal([]byte(out), &sig); err != nil || sig.Alg != signing.AlgHMACSHA256 || len(sig.Value) != 64 {
		t.Fatalf("sign payload printed %s (%v)", out, err)
	}

	code, out, _ = runSign(t, payload, "sign", "verify", "--key", "env:CMD_TEST_KEY", "--canonical", "python", "--signature", sig.Value)
	if code != ExitOK || out != "signature valid\n" {
		t.Errorf("sign verify = %d %q, want 0 and signature valid", code, out)
	}
	code, _, errOut = runSign(t, payload, "sign", "verify", "--key", "env:CMD_TEST_KEY", "--signature", sig.Value)
	if code != ExitSignature || !strings.Contains(errOut, "signature value does not match") || strings.Contains(errOut, testSignKey) {
		t.Errorf("sign verify in the other form = %d %q, want 6 and a value mismatch", code, errOut)
	}
}

// TestSignRequestVerifies checks that the printed request verifies as a
// server verifies it, over the arguments as printed.
func TestSignRequestVerifies(t *testing.T) {
	t.Parallel()
	for _, form := range []string{signing.FormJCS, signing.FormPython} {
		code, out, errOut := runSign(t, "", "sign", "request", "add", "a:=1.0", "b:=2", "note=<&>", "--key", "env:CMD_TEST_KEY", "--canonical", form, "--id", "9")
		if code != ExitOK {
			t.Fatalf("sign request exited %d: %s", code, errOut)
		}
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
			t.Errorf("sign request printed more than one line: %q", out)
		}
		var msg struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				Meta      struct {
					Signature *signing.Signature `json:"signature"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(out), &msg); err != nil {
			t.Fatalf("sign request printed %s: %v", out, err)
		}
		if msg.ID != 9 || msg.Method != "tools/call" || msg.Params.Name != "add" {
			t.Errorf("sign request printed %s", out)
		}
		if err := signing.VerifyRequest([]byte(testSignKey), form, "add", msg.Params.Arguments, msg.Params.Meta.Signature, time.Now(), 0, nil); err != nil {
			t.Errorf("%s: the printed request does not verify: %v\n%s", form, err, out)
		}
	}
}

func TestSignInspect(t *testing.T) {
	t.Parallel()
	key := []byte(testSignKey)
	now := time.Now()
	sign := func(method jwt.SigningMethod, k any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(method, claims).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good, err := signing.MintJWT(key, signing.JWTClaims{Subject: "alice", TTL: time.Minute}, now)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		token   string
		key     bool
		code    int
		wantErr string
	}{
		{"good", good, true, ExitOK, "signature verified"},
		{"no key", good, false, ExitOK, "not verified (no --key)"},
		{"other key", sign(jwt.SigningMethodHS256, []byte("other"), jwt.MapClaims{"sub": "alice"}), true, ExitSignature, "signature value does not match"},
		{"expired", sign(jwt.SigningMethodHS256, key, jwt.MapClaims{"sub": "alice", "exp": now.Add(-time.Hour).Unix()}), true, ExitSignature, "timestamp too old"},
		{"not yet valid", sign(jwt.SigningMethodHS256, key, jwt.MapClaims{"sub": "alice", "nbf": now.Add(time.Hour).Unix()}), true, ExitSignature, "timestamp in the future"},
		{"HS512", sign(jwt.SigningMethodHS512, key, jwt.MapClaims{"sub": "alice"}), true, ExitSignature, "unsupported signature algorithm"},
		{"garbage with key", "a.b", true, ExitSignature, "malformed signature"},
		{"garbage", "a.b", false, ExitError, "not a compact JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"sign", "inspect", "-"}
			if tt.key {
				args = append(args, "--key", "env:CMD_TEST_KEY")
			}
			code, out, errOut := runSign(t, tt.token+"\n", args...)
			if code != tt.code || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.wantErr)
			}
			if tt.token != "a.b" && !strings.Contains(out, `"sub": "alice"`) {
				t.Errorf("claims not printed: %q", out)
			}
			if strings.Contains(out+errOut, testSignKey) {
				t.Errorf("the key was printed")
			}
		})
	}
}

func TestSignJWTClaims(t *testing.T) {
	t.Parallel()
	code, out, errOut := runSign(t, "", "sign", "jwt", "--key", "env:CMD_TEST_KEY", "--sub", "alice", "--scope", "a,b", "--scope", "c", "--aud", "http://x/mcp", "--iss", "me", "--kid", "k1", "--ttl", "2m")
	if code != ExitOK {
		t.Fatalf("sign jwt exited %d: %s", code, errOut)
	}
	header, claims, verified, err := signing.InspectJWT(strings.TrimSpace(out), []byte(testSignKey))
	if err != nil || !verified {
		t.Fatalf("minted token does not verify: %v", err)
	}
	if header["kid"] != "k1" || claims["sub"] != "alice" || claims["scope"] != "a b c" || claims["aud"] != "http://x/mcp" || claims["iss"] != "me" {
		t.Errorf("header %v claims %v", header, claims)
	}
	exp, _ := claims["exp"].(json.Number).Int64()
	iat, _ := claims["iat"].(json.Number).Int64()
	if exp-iat != 120 {
		t.Errorf("exp - iat = %d, want 120", exp-iat)
	}
}
