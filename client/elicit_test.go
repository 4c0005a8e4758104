package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// elicitForm is a form with one field of each kind the spec allows.
const elicitForm = `{"message":"Tell us","requestedSchema":{"type":"object","properties":{
	"name":{"type":"string","title":"Name","minLength":2},
	"email":{"type":"string","format":"email"},
	"age":{"type":"integer","minimum":0,"maximum":150,"default":30},
	"score":{"type":"number"},
	"ok":{"type":"boolean"},
	"color":{"type":"string","enum":["red","green"],"enumNames":["Red","Green"],"default":"red"},
	"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Wonder Woman"}]},
	"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"anyOf":[{"const":"a","title":"A"},{"const":"b"},{"const":"c"}]}},
	"day":{"type":"string","format":"date"}
},"required":["name","ok"]}}`

func TestElicitParseRequest(t *testing.T) {
	req, err := ParseElicitRequest(json.RawMessage(elicitForm))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range req.Fields {
		names = append(names, f.Name)
	}
	if diff := cmp.Diff([]string{"name", "email", "age", "score", "ok", "color", "hero", "tags", "day"}, names); diff != "" {
		t.Errorf("fields not in the schema's order (-want +got):\n%s", diff)
	}
	if req.Mode != "form" || req.Message != "Tell us" {
		t.Errorf("mode %q message %q", req.Mode, req.Message)
	}
	f := req.Fields
	if !f[0].Required || f[1].Required || !f[4].Required {
		t.Errorf("required marks wrong: %+v", f)
	}
	if diff := cmp.Diff([]Option{{"red", "Red"}, {"green", "Green"}}, f[5].Options); diff != "" {
		t.Errorf("enum with enumNames (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Option{{"h1", "Superman"}, {"h2", "Wonder Woman"}}, f[6].Options); diff != "" {
		t.Errorf("oneOf consts (-want +got):\n%s", diff)
	}
	if !f[7].Multi || len(f[7].Options) != 3 {
		t.Errorf("multi-select: %+v", f[7])
	}
	if !f[2].HasDefault || f[2].Default != float64(30) {
		t.Errorf("default: %+v", f[2])
	}

	u, err := ParseElicitRequest(json.RawMessage(`{"mode":"url","message":"Sign in","url":"https://x.example/a","elicitationId":"e1"}`))
	if err != nil || u.Mode != "url" || u.URL != "https://x.example/a" || u.ElicitationID != "e1" {
		t.Errorf("url request = %+v, %v", u, err)
	}
}

func TestElicitFill(t *testing.T) {
	req, err := ParseElicitRequest(json.RawMessage(elicitForm))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		answers  map[string]any
		content  map[string]any
		problems []string
	}{
		{"defaults only", nil, map[string]any{"age": float64(30), "color": "red"},
			[]string{"missing required fields name, ok (no answer and no default)"}},
		{"complete", map[string]any{"name": "Ada", "ok": true, "tags": []any{"a", "c"}, "hero": "h2", "extra": 1},
			map[string]any{"name": "Ada", "ok": true, "age": float64(30), "color": "red", "hero": "h2", "tags": []any{"a", "c"}}, nil},
		{"invalid values", map[string]any{"name": "A", "ok": "yes", "email": "nope", "age": 151.0, "score": "x",
			"color": "blue", "tags": []any{}, "day": "2026-13-01"},
			map[string]any{},
			[]string{
				`name: want at least 2 characters, got 1`,
				`email: "nope" is not an email address`,
				`age: 151 is above the maximum 150`,
				`score: want a number, got "x"`,
				`ok: want true or false, got "yes"`,
				`color: "blue" is not one of red, green`,
				`tags: choose at least 1`,
				`day: "2026-13-01" is not a date (YYYY-MM-DD)`,
			}},
		{"whole numbers", map[string]any{"name": "Ada", "ok": false, "age": 1.5}, map[string]any{"name": "Ada", "ok": false, "color": "red"},
			[]string{"age: want a whole number, got 1.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content, problems := req.Fill(tt.answers)
			if diff := cmp.Diff(tt.content, content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestElicitFieldParse(t *testing.T) {
	req, err := ParseElicitRequest(json.RawMessage(elicitForm))
	if err != nil {
		t.Fatal(err)
	}
	field := map[string]FormField{}
	for _, f := range req.Fields {
		field[f.Name] = f
	}
	tests := []struct {
		field, text string
		want        any
		err         string
	}{
		{"name", "Ada", "Ada", ""},
		{"name", "A", nil, "at least 2 characters"},
		{"age", "42", int64(42), ""},
		{"age", "4.2", nil, "want a whole number"},
		{"age", "-1", nil, "below the minimum 0"},
		{"score", "2.5", 2.5, ""},
		{"ok", "y", true, ""},
		{"ok", "No", false, ""},
		{"ok", "maybe", nil, "want yes or no"},
		{"color", "2", "green", ""},
		{"color", "Red", "red", ""},
		{"color", "blue", nil, "not one of red, green"},
		{"hero", "wonder woman", "h2", ""},
		{"tags", "a, 3", []any{"a", "c"}, ""},
		{"tags", "a,b,c", nil, "choose at most 2"},
		{"email", "ada@example.com", "ada@example.com", ""},
		{"day", "2026-01-02", "2026-01-02", ""},
	}
	for _, tt := range tests {
		got, err := field[tt.field].Parse(tt.text)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: Parse(%q) error = %v, want %q", tt.field, tt.text, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("%s: Parse(%q) = %#v, %v; want %#v", tt.field, tt.text, got, err, tt.want)
		}
	}
}

func TestElicitHandler(t *testing.T) {
	ctx := context.Background()
	form := json.RawMessage(`{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`)
	url := json.RawMessage(`{"mode":"url","message":"Go","url":"https://x.example/","elicitationId":"1"}`)
	open := func(context.Context, *ElicitRequest) (string, error) { return "accept", nil }
	tests := []struct {
		name   string
		e      *Elicitation
		params json.RawMessage
		want   string // JSON of the result, or the error's code
		warn   string
	}{
		{"declines a form it cannot fill", &Elicitation{Action: "accept"}, form, `{"action":"decline"}`, "missing required field name"},
		{"accepts answers", &Elicitation{Action: "accept", Answers: map[string]any{"name": "Ada"}}, form, `{"action":"accept","content":{"name":"Ada"}}`, ""},
		{"cancel", &Elicitation{Action: "cancel"}, form, `{"action":"cancel"}`, ""},
		{"asks", &Elicitation{Ask: func(context.Context, *ElicitRequest) (ElicitResult, error) {
			return ElicitResult{Action: "accept", Content: map[string]any{"name": "typed"}}, nil
		}}, form, `{"action":"accept","content":{"name":"typed"}}`, ""},
		{"url without an opener", &Elicitation{Action: "accept"}, url, "-32602", ""},
		{"url", &Elicitation{Action: "accept", OpenURL: open}, url, `{"action":"accept"}`, ""},
		{"unknown mode", &Elicitation{Action: "accept"}, json.RawMessage(`{"mode":"telepathy"}`), "-32602", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warned string
			tt.e.Warn = func(m string) { warned += m }
			res, err := tt.e.Handler()(ctx, tt.params)
			var got string
			var rpc *RPCError
			if errors.As(err, &rpc) {
				got = strings.TrimSpace(strings.Fields(rpc.Error())[2])
				got = strings.TrimSuffix(got, ":")
			} else if err != nil {
				t.Fatal(err)
			} else {
				b, _ := json.Marshal(res)
				got = string(b)
			}
			if got != tt.want {
				t.Errorf("= %s, want %s", got, tt.want)
			}
			if tt.warn == "" && warned != "" || !strings.Contains(warned, tt.warn) {
				t.Errorf("warning %q, want %q", warned, tt.warn)
			}
		})
	}
}

func TestElicitCapability(t *testing.T) {
	open := func(context.Context, *ElicitRequest) (string, error) { return "decline", nil }
	for _, tt := range []struct {
		e    *Elicitation
		want string
	}{
		{&Elicitation{Action: "accept"}, `{"form":{}}`},
		{&Elicitation{OpenURL: open}, `{"form":{}}`},
		{&Elicitation{OpenURL: open, DeclareURL: true}, `{"form":{},"url":{}}`},
	} {
		b, _ := json.Marshal(tt.e.Capability())
		if string(b) != tt.want {
			t.Errorf("Capability = %s, want %s", b, tt.want)
		}
	}
}
