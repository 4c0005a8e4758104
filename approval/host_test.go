package approval

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/schema"
)

var testPrompt = Prompt{
	ID:        "a3f9c2",
	Server:    "npx -y some-server",
	Tool:      "delete_file",
	Arguments: json.RawMessage(`{"path":"/tmp/<x>","token":"***"}`),
}

// valid fails t unless value is valid under the official definition def of
// version.
func valid(t *testing.T, c *schema.Checker, version, def string, value []byte) {
	t.Helper()
	vs, err := c.CheckDefinition(version, def, value)
	if err != nil {
		t.Fatalf("%s %s: %v", version, def, err)
	}
	for _, v := range vs {
		t.Errorf("%s %s: %s: %s\n%s", version, def, v.Path, v.Msg, value)
	}
}

func TestElicitParamsValid(t *testing.T) {
	var c schema.Checker
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		params, err := ElicitParams(version, testPrompt)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "mcpctl-1", "method": "elicitation/create", "params": params})
		valid(t, &c, version, "ElicitRequest", msg)
		var p formParams
		if err := json.Unmarshal(params, &p); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"delete_file"`, "npx -y some-server", `{"path":"/tmp/<x>","token":"***"}`, "mcpctl proxy approve a3f9c2"} {
			if !strings.Contains(p.Message, want) {
				t.Errorf("%s: message %q lacks %q", version, p.Message, want)
			}
		}
		if (p.Mode == "form") != (version >= "2025-11-25") {
			t.Errorf("%s: mode = %q", version, p.Mode)
		}
	}
	for _, version := range []string{"2024-11-05", "2025-03-26"} {
		if _, err := ElicitParams(version, testPrompt); err == nil {
			t.Errorf("%s has no elicitation, yet ElicitParams built one", version)
		}
	}
}

func TestMessageTruncatesArguments(t *testing.T) {
	p := testPrompt
	p.Arguments = json.RawMessage(`{"text":"` + strings.Repeat("é", 3000) + `"}`)
	m := p.message()
	if len(m) > maxShownArguments+400 {
		t.Errorf("message is %d bytes, want the arguments cut near %d", len(m), maxShownArguments)
	}
	if !strings.Contains(m, "bytes in all)") {
		t.Errorf("message does not say the arguments were cut: %q", m[len(m)-200:])
	}
	if !utf8.ValidString(m) {
		t.Error("the cut split a UTF-8 sequence")
	}
}

// elicitAnswers are answers a host may give, each valid under the
// ElicitResult of every revision that has one, and what they decide.
var elicitAnswers = []struct {
	name, result string
	approved     bool
	reason       string
}{
	{"accept yes", `{"action":"accept","content":{"approve":true}}`, true, ""},
	{"accept no", `{"action":"accept","content":{"approve":false}}`, false, "the host's user answered no"},
	{"accept without content", `{"action":"accept"}`, false, "the host's user answered no"},
	{"accept yes as text", `{"action":"accept","content":{"approve":"yes"}}`, true, ""},
	{"decline", `{"action":"decline"}`, false, "the host's user declined it"},
	{"cancel", `{"action":"cancel"}`, false, "the host's user dismissed the question"},
}

func TestParseElicitResult(t *testing.T) {
	var c schema.Checker
	for _, tc := range elicitAnswers {
		for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
			valid(t, &c, version, "ElicitResult", []byte(tc.result))
		}
		v := ParseElicitResult(json.RawMessage(tc.result))
		if v.Approved != tc.approved || v.Reason != tc.reason || v.By != ByHost {
			t.Errorf("%s: verdict %+v, want approved=%v reason %q by %q", tc.name, v, tc.approved, tc.reason, ByHost)
		}
	}
	for _, bad := range []string{`{"action":"maybe"}`, `not json`, `[]`} {
		if v := ParseElicitResult(json.RawMessage(bad)); v.Approved || v.Reason == "" {
			t.Errorf("answer %s: verdict %+v, want a denial with a reason", bad, v)
		}
	}
}

func TestInputRequiredValid(t *testing.T) {
	var c schema.Checker
	const version = "2026-07-28"
	args := json.RawMessage(`{"path":"/tmp/<x>","token":"s3cret","n":1.50}`)
	res, err := InputRequired(version, testPrompt, args)
	if err != nil {
		t.Fatal(err)
	}
	valid(t, &c, version, "InputRequiredResult", res)
	if strings.Contains(string(res), "s3cret") {
		t.Errorf("the unmasked arguments leaked into the result: %s", res)
	}
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		t.Fatal(err)
	}
	if ir.ResultType != "input_required" || ir.RequestState == "" || len(ir.InputRequests) != 1 {
		t.Fatalf("result = %s", res)
	}
	valid(t, &c, version, "InputRequest", ir.InputRequests[InputKey])
	valid(t, &c, version, "ElicitRequest", ir.InputRequests[InputKey])

	if _, err := InputRequired("2025-11-25", testPrompt, args); err == nil {
		t.Error("InputRequired built a result for the legacy era")
	}
	bad := testPrompt
	bad.ID = "../x"
	if _, err := InputRequired(version, bad, args); err == nil {
		t.Error("InputRequired took an ID the queue never gives")
	}

	// The host answers as the spec says: the same call again, with its
	// answers under inputResponses and the state as it was given.
	for _, tc := range elicitAnswers {
		retry := `{"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},"name":"delete_file","arguments":{"n":1.50,"token":"s3cret","path":"/tmp/<x>"},` +
			`"inputResponses":{"` + InputKey + `":` + tc.result + `},"requestState":` + quote(ir.RequestState) + `}`
		valid(t, &c, version, "CallToolRequestParams", []byte(retry))
		r, ok, err := ParseRetry(json.RawMessage(retry))
		if err != nil || !ok {
			t.Fatalf("%s: ParseRetry = %v, %v", tc.name, ok, err)
		}
		if r.ID != testPrompt.ID || r.Verdict.Approved != tc.approved || r.Verdict.Reason != tc.reason {
			t.Errorf("%s: retry = %+v", tc.name, r)
		}
		// Keys in another order are the same arguments; other values are not.
		if !r.Matches("delete_file", args) {
			t.Errorf("%s: the retry does not match the held call", tc.name)
		}
		if r.Matches("delete_file", json.RawMessage(`{"path":"/etc/passwd","token":"s3cret","n":1.50}`)) || r.Matches("other_tool", args) {
			t.Errorf("%s: the retry matches another call", tc.name)
		}
		stripped, err := StripRetry(json.RawMessage(retry))
		if err != nil {
			t.Fatal(err)
		}
		valid(t, &c, version, "CallToolRequestParams", stripped)
		if strings.Contains(string(stripped), "inputResponses") || strings.Contains(string(stripped), "requestState") || !strings.Contains(string(stripped), `"/tmp/<x>"`) {
			t.Errorf("StripRetry = %s", stripped)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestParseRetryOthers(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		ok, err      bool
		reason       string
	}{
		{"first call", `{"name":"t","arguments":{}}`, false, false, ""},
		{"a server's own state", `{"name":"t","requestState":"server-state","inputResponses":{"q":{"action":"accept"}}}`, false, false, ""},
		{"no answer", `{"name":"t","requestState":"mcpctl-approval/v1/a3f9c2/00"}`, true, false, "the host retried the call without its user's answer"},
		{"forged ID", `{"name":"t","requestState":"mcpctl-approval/v1/../../x/00"}`, true, true, ""},
		{"no digest", `{"name":"t","requestState":"mcpctl-approval/v1/a3f9c2"}`, true, true, ""},
		{"not an object", `[1]`, false, true, ""},
	} {
		r, ok, err := ParseRetry(json.RawMessage(tc.params))
		if ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("%s: ok=%v err=%v, want ok=%v err=%v", tc.name, ok, err, tc.ok, tc.err)
			continue
		}
		if tc.reason != "" && (r.Verdict.Approved || r.Verdict.Reason != tc.reason) {
			t.Errorf("%s: verdict %+v, want denied: %s", tc.name, r.Verdict, tc.reason)
		}
	}
}

func TestProgress(t *testing.T) {
	var c schema.Checker
	for _, params := range []string{
		`{"name":"t","_meta":{"progressToken":"tok-1"}}`,
		`{"name":"t","_meta":{"progressToken":42}}`,
	} {
		tok, ok := ProgressToken(json.RawMessage(params))
		if !ok {
			t.Fatalf("no progress token in %s", params)
		}
		for _, version := range schema.OfficialVersions() {
			msg, err := Progress(tok, 5, 60, WaitingMessage("a3f9c2", 55))
			if err != nil {
				t.Fatal(err)
			}
			if version == "2024-11-05" {
				// That revision's progress has no message.
				msg, _ = Progress(tok, 5, 60, "")
			}
			valid(t, &c, version, "ProgressNotification", msg)
			if !strings.Contains(string(msg), `"progressToken":`+string(tok)) {
				t.Errorf("token lost: %s", msg)
			}
		}
	}
	for _, params := range []string{`{"name":"t"}`, `{"_meta":{}}`, `{"_meta":{"progressToken":null}}`, `nope`} {
		if tok, ok := ProgressToken(json.RawMessage(params)); ok {
			t.Errorf("ProgressToken(%s) = %s, want none", params, tok)
		}
	}
}

// TestTwiceGivenMembers: arguments that give a member twice read as their
// last copy to encoding/json and as their first to some servers, so an
// approval never covers them: no input-required result binds them, and a
// retry with them matches no held call.
func TestTwiceGivenMembers(t *testing.T) {
	for _, args := range []string{
		`{"path":"/etc/passwd","path":"/tmp/x"}`,
		`{"opts":{"dir":"/","dir":"/tmp"},"n":1}`,
		`{"list":[{"a":1,"a":2}]}`,
		`{"path":"/tmp/x","Path":"/etc/passwd"}`,
		`{"o":{"k":1,"\u212a":2}}`,
	} {
		if err := CheckArguments(json.RawMessage(args)); err == nil {
			t.Errorf("CheckArguments(%s) = nil, want an error naming the member", args)
		}
		if _, err := InputRequired("2026-07-28", testPrompt, json.RawMessage(args)); err == nil {
			t.Errorf("InputRequired bound arguments that give a member twice: %s", args)
		}
	}
	res, err := InputRequired("2026-07-28", testPrompt, json.RawMessage(`{"path":"/tmp/x"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ir struct {
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		t.Fatal(err)
	}
	r, ok, err := ParseRetry(json.RawMessage(`{"name":"delete_file","requestState":` + quote(ir.RequestState) + `}`))
	if err != nil || !ok {
		t.Fatalf("ParseRetry = %v, %v", ok, err)
	}
	if !r.Matches("delete_file", json.RawMessage(`{"path":"/tmp/x"}`)) {
		t.Fatal("the retry does not match the held call")
	}
	if r.Matches("delete_file", json.RawMessage(`{"path":"/etc/passwd","path":"/tmp/x"}`)) {
		t.Error("a retry whose first copy of a member is another value matches the held call")
	}
	for _, args := range []string{`{}`, ``, `null`, `{"a":{"b":1},"b":{"a":1},"c":2}`, `[1,1]`} {
		if err := CheckArguments(json.RawMessage(args)); err != nil {
			t.Errorf("CheckArguments(%s) = %v", args, err)
		}
	}
}
