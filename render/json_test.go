package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{
			name: "raw message keeps key order, numbers and <>&",
			v:    json.RawMessage(`{"z":1,"a":{"html":"<b>&</b>","n":1.50}, "list":[1,2]}`),
			want: "{\n  \"z\": 1,\n  \"a\": {\n    \"html\": \"<b>&</b>\",\n    \"n\": 1.50\n  },\n  \"list\": [\n    1,\n    2\n  ]\n}\n",
		},
		{
			name: "values are not HTML-escaped",
			v:    map[string]any{"q": "a < b && c > d"},
			want: "{\n  \"q\": \"a < b && c > d\"\n}\n",
		},
		{
			name: "struct",
			v: struct {
				Name string   `json:"name"`
				Tags []string `json:"tags"`
			}{"x", []string{"y"}},
			want: "{\n  \"name\": \"x\",\n  \"tags\": [\n    \"y\"\n  ]\n}\n",
		},
		{name: "empty raw message is null", v: json.RawMessage(nil), want: "null\n"},
		{name: "scalar", v: "s", want: "\"s\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tty := range []bool{false, true} {
				var out bytes.Buffer
				p := &Printer{Out: &out, TTY: tty}
				if err := p.JSON(tt.v); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, out.String()); diff != "" {
					t.Errorf("tty=%v (-want +got):\n%s", tty, diff)
				}
			}
		})
	}
}

func TestJSONInvalidRaw(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out}
	if err := p.JSON(json.RawMessage(`{"a":`)); err == nil {
		t.Fatal("JSON of truncated raw message succeeded")
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q on error", out.String())
	}
}

func TestJSONColor(t *testing.T) {
	raw := json.RawMessage(`{"key":"va\"l:ue","n":[true,null,"x"],"e":{}}`)
	var plain, colored bytes.Buffer
	if err := (&Printer{Out: &plain, TTY: true}).JSON(raw); err != nil {
		t.Fatal(err)
	}
	if err := (&Printer{Out: &colored, TTY: true, Color: true}).JSON(raw); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain.String(), ansi.Strip(colored.String())); diff != "" {
		t.Errorf("coloured JSON differs from plain once escapes are stripped (-plain +stripped):\n%s", diff)
	}
	for _, want := range []string{
		"\x1b[1;34m\"key\"\x1b[0m: \x1b[32m\"va\\\"l:ue\"\x1b[0m",
		"\x1b[1;34m\"n\"\x1b[0m",
		"\x1b[32m\"x\"\x1b[0m",
	} {
		if !strings.Contains(colored.String(), want) {
			t.Errorf("coloured JSON lacks %q:\n%q", want, colored.String())
		}
	}
}
