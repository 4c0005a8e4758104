package schema_test

import (
	"testing"

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
		{"ad", tools, "add"},                                      // two letters: no edits, but the only name it begins
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
		{"qu", args, "query"}, // the only property it begins
		{"ge", tools, ""},     // begins two tools
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
