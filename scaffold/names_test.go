package scaffold

import (
	"strings"
	"testing"
)

func TestCheckToolName(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wantErr string // "" for a valid name
	}{
		{"weather-forecast", ""},
		{"files.count", ""},
		{"get_weather", ""},
		{"A1", ""},
		{"2fa", ""},
		{strings.Repeat("x", 128), ""},
		{"", "empty"},
		{strings.Repeat("x", 129), "129 characters"},
		{"has space", `' ' at offset 3`},
		{"slash/name", `'/' at offset 5`},
		{"café", `'é' at offset 3`},
		{"..", "no letter or digit"},
		{"-_-", "no letter or digit"},
	} {
		err := CheckToolName(tc.name)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("CheckToolName(%q) = %v, want nil", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("CheckToolName(%q) = %v, want an error containing %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestCheckServerName(t *testing.T) {
	for _, name := range []string{"demo-srv", "Weather", "2048"} {
		if err := checkServerName(name); err != nil {
			t.Errorf("checkServerName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"-rf", ".hidden", "_x", "a b", ""} {
		if err := checkServerName(name); err == nil {
			t.Errorf("checkServerName(%q) = nil, want an error", name)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		pascal, camel, goFile string
		tsFile                string
	}{
		{"weather-forecast", "WeatherForecast", "weatherForecast", "weather_forecast", "weather-forecast"},
		{"get_weather", "GetWeather", "getWeather", "get_weather", "get-weather"},
		{"files.count", "FilesCount", "filesCount", "files_count", "files-count"},
		{"getHTTPStatus", "GetHTTPStatus", "getHTTPStatus", "get_http_status", "get-http-status"},
		{"HTTPGet", "HTTPGet", "httpGet", "http_get", "http-get"},
		{"v2-search", "V2Search", "v2Search", "v2_search", "v2-search"},
		{"2fa-check", "Tool2faCheck", "tool2faCheck", "2fa_check", "2fa-check"},
		{"--x--", "X", "x", "x", "x"},
		// Go reads these file names as build constraints or test files,
		// or they are the project's own files.
		{"load-test", "LoadTest", "loadTest", "load_test_tool", "load-test"},
		{"run_linux", "RunLinux", "runLinux", "run_linux_tool", "run-linux"},
		{"arm64", "Arm64", "arm64", "arm64", "arm64"},
		{"main", "Main", "main", "main_tool", "main"},
		{"tools-gen", "ToolsGen", "toolsGen", "tools_gen_tool", "tools-gen"},
		{"index", "Index", "index", "index", "index-tool"},
	} {
		if got := pascal(tc.name, "Tool"); got != tc.pascal {
			t.Errorf("pascal(%q) = %q, want %q", tc.name, got, tc.pascal)
		}
		if got := camel(tc.name, "tool"); got != tc.camel {
			t.Errorf("camel(%q) = %q, want %q", tc.name, got, tc.camel)
		}
		if got := goFileBase(tc.name); got != tc.goFile {
			t.Errorf("goFileBase(%q) = %q, want %q", tc.name, got, tc.goFile)
		}
		if got := tsFileBase(tc.name); got != tc.tsFile {
			t.Errorf("tsFileBase(%q) = %q, want %q", tc.name, got, tc.tsFile)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"demo-srv":   "demo-srv",
		"./a/b":      "./a/b",
		"my project": "'my project'",
		"it's":       `'it'\''s'`,
		"":           "''",
		"$HOME/x":    "'$HOME/x'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
