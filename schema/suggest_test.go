package schema_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/schema"
)

func TestSuggest(t *testing.T) {
	tools := []string{"get_weather", "get_forecast", "search_files", "read_file", "echo", "add", "longRunningOperation"}
	args := []string{"city", "days", "unit", "color", "temperature", "location", "query", "q"}
	tests := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"get_wether", tools, "get_weather"},
		{"getweather", tools, "get_weather"},
		{"Get_Weather", tools, "get_weather"},
		{"GET_FORECAST", tools, "get_forecast"},
		{"read_files", tools, "read_file"},
		{"ehco", tools, "echo"},                                   // a swap is one edit
		{"ad", tools, ""},                                         // two letters: only case may differ
		{"ADD", tools, "add"},                                     // case alone
		{"long_running_operation", tools, "longRunningOperation"}, // case, and two underscores in 22 letters
		{"longrunningoperation", tools, "longRunningOperation"},
		{"delete_everything", tools, ""},
		{"get_whether_forecast", tools, ""}, // eight insertions from get_forecast
		{"cty", args, "city"},
		{"citty", args, "city"},
		{"dasy", args, "days"},
		{"colour", args, "color"},
		{"temprature", args, "temperature"},
		{"temp", args, "temperature"}, // the only property it begins
		{"loc", args, "location"},
		{"qu", args, ""}, // begins query, but two letters are too few
		{"Q", args, "q"},
		{"x", args, ""},
		{"unitz", args, "unit"},
		{"units", []string{"unit", "unity"}, "unit"}, // a tie goes to the first
		{"city", args, ""},                           // not a misspelling
		{"", args, ""},
		{"anything", nil, ""},
		{"café", []string{"cafe"}, "cafe"},
		{"ÉTÉ", []string{"été"}, "été"},
	}
	for _, tt := range tests {
		if got := schema.Suggest(tt.name, tt.candidates); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestUnknownArgs(t *testing.T) {
	strict := `{
		"type": "object",
		"properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "color": {}},
		"patternProperties": {"^x-": {}},
		"additionalProperties": false
	}`
	tests := []struct {
		name   string
		schema string
		args   map[string]any
		want   []schema.Violation
	}{
		{name: "all declared", schema: strict, args: map[string]any{"city": "Paris", "days": int64(2), "x-trace": "1"}},
		{
			name:   "misspelt and unknown",
			schema: strict,
			args:   map[string]any{"citty": "Paris", "colour": "red", "zzz": 1, "days": int64(1)},
			want: []schema.Violation{
				{Keyword: "additionalProperties", Msg: `additional property "citty" is not allowed; did you mean "city"?`},
				{Keyword: "additionalProperties", Msg: `additional property "colour" is not allowed; did you mean "color"?`},
				{Keyword: "additionalProperties", Msg: `additional property "zzz" is not allowed`},
			},
		},
		{
			name:   "no suggestion of a property already given",
			schema: strict,
			args:   map[string]any{"city": "Paris", "cityy": "Lyon"},
			want:   []schema.Violation{{Keyword: "additionalProperties", Msg: `additional property "cityy" is not allowed`}},
		},
		{name: "additional properties allowed", schema: `{"type": "object", "properties": {"city": {}}}`, args: map[string]any{"citty": 1}},
		{name: "additional properties by schema", schema: `{"properties": {"city": {}}, "additionalProperties": {"type": "string"}}`, args: map[string]any{"citty": 1}},
		{name: "pattern Go cannot run", schema: `{"patternProperties": {"(?=a)": {}}, "additionalProperties": false}`, args: map[string]any{"b": 1}},
		{name: "no schema", schema: ``, args: map[string]any{"a": 1}},
		{name: "not an object", schema: `[1]`, args: map[string]any{"a": 1}},
		{
			name:   "no properties at all",
			schema: `{"type": "object", "additionalProperties": false}`,
			args:   map[string]any{"a": 1},
			want:   []schema.Violation{{Keyword: "additionalProperties", Msg: `additional property "a" is not allowed`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := schema.UnknownArgs(tt.args, json.RawMessage(tt.schema))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UnknownArgs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnknownArgsMatchesValidate checks the promise that Validate reports
// unknown arguments with the same messages.
func TestUnknownArgsMatchesValidate(t *testing.T) {
	text := `{"type": "object", "properties": {"name": {}, "names": {}, "colour": {}, "color": {}}, "additionalProperties": false}`
	args := map[string]any{"nam": 1, "colr": 2, "other": 3}
	s := mustCompile(t, text)
	var fromValidate []schema.Violation
	for _, v := range s.Validate(args) {
		if v.Keyword == "additionalProperties" {
			fromValidate = append(fromValidate, v)
		}
	}
	if diff := cmp.Diff(fromValidate, schema.UnknownArgs(args, json.RawMessage(text))); diff != "" {
		t.Errorf("UnknownArgs and Validate differ (-Validate +UnknownArgs):\n%s", diff)
	}
	if len(fromValidate) != 3 {
		t.Errorf("Validate reported %d unknown arguments, want 3", len(fromValidate))
	}
}
