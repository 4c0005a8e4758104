package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wantUsage checks that err is a UsageError whose message contains want.
func wantUsage(t *testing.T, err error, want string) {
	t.Helper()
	var usage *UsageError
	if !errors.As(err, &usage) {
		t.Fatalf("got %v (%T), want a *UsageError containing %q", err, err, want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("got %q, want it to contain %q", err, want)
	}
}

func TestNewServerDefaultDir(t *testing.T) {
	t.Chdir(t.TempDir())
	res, err := NewServer(ServerOptions{Name: "demo", Lang: LangGo})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dir != "demo" {
		t.Errorf("Dir = %q, want demo", res.Dir)
	}
	for _, f := range []string{"go.mod", "main.go", "greet.go", "greet_test.go", "tools_gen.go", ManifestFile, "README.md", ".gitignore"} {
		if !slices.Contains(res.Created, f) {
			t.Errorf("%s is not among the created files %q", f, res.Created)
		}
		if _, err := os.Stat(filepath.Join("demo", f)); err != nil {
			t.Error(err)
		}
	}
	if len(res.Updated) != 0 {
		t.Errorf("Updated = %q, want none", res.Updated)
	}
	if want := "mcpctl call greet name=world -- ./demo"; !slices.Contains(res.Next, want) {
		t.Errorf("Next = %q, want it to contain %q", res.Next, want)
	}
}

func TestNewServerRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(readme, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewServer(ServerOptions{Name: "demo", Lang: LangTypeScript, Dir: dir})
	wantUsage(t, err, readme+" already exists; nothing was written (--force overwrites)")
	var exists *ExistsError
	if !errors.As(err, &exists) || exists.Path != readme {
		t.Errorf("ExistsError = %+v, want Path %s", exists, readme)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder has %d entries after a refusal, want only README.md", len(entries))
	}

	if _, err := NewServer(ServerOptions{Name: "demo", Lang: LangTypeScript, Dir: dir, Force: true}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(readme); string(data) == "mine\n" {
		t.Error("--force left README.md alone")
	}
	// A second run without --force names the first file in the way and
	// counts the rest.
	_, err = NewServer(ServerOptions{Name: "demo", Lang: LangTypeScript, Dir: dir})
	wantUsage(t, err, "and 11 more of the files to write")
}

func TestNewServerBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		opts ServerOptions
		want string
	}{
		{ServerOptions{Name: "bad name", Lang: LangGo}, `invalid server name: the name "bad name" has ' ' at offset 3`},
		{ServerOptions{Name: "-x", Lang: LangGo}, "must start with a letter or digit"},
		{ServerOptions{Name: "demo"}, "--lang is required: go or ts"},
		{ServerOptions{Name: "demo", Lang: "rust"}, `unknown language "rust": use go or ts`},
		{ServerOptions{Name: "demo", Lang: "typescript"}, `unknown language "typescript": use ts`},
		{ServerOptions{Name: "demo", Lang: LangGo, Transport: "sse"}, `unknown transport "sse": use stdio or http`},
	} {
		tc.opts.Dir = filepath.Join(dir, "p")
		_, err := NewServer(tc.opts)
		wantUsage(t, err, tc.want)
	}
	if _, err := os.Stat(filepath.Join(dir, "p")); err == nil {
		t.Error("a refused request created the project folder")
	}
}

func TestAddTool(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewServer(ServerOptions{Name: "demo", Lang: LangGo, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	res, err := AddTool(ToolOptions{Name: "weather-forecast", Dir: dir, Input: []Field{{Name: "city", Type: "string", Required: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"weather_forecast.go", "weather_forecast_test.go"}; !slices.Equal(res.Created, want) {
		t.Errorf("Created = %q, want %q", res.Created, want)
	}
	if want := []string{"tools_gen.go", ManifestFile}; !slices.Equal(res.Updated, want) {
		t.Errorf("Updated = %q, want %q", res.Updated, want)
	}
	gen, _ := os.ReadFile(filepath.Join(dir, "tools_gen.go"))
	if !strings.Contains(string(gen), "addGreetTool(s)\n\taddWeatherForecastTool(s)\n") {
		t.Errorf("tools_gen.go does not register both tools:\n%s", gen)
	}

	// The user's edits to the tool file survive: adding the same tool
	// again is refused, and other tools leave it alone.
	toolFile := filepath.Join(dir, "weather_forecast.go")
	if err := os.WriteFile(toolFile, []byte("package main // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = AddTool(ToolOptions{Name: "weather-forecast", Dir: dir})
	wantUsage(t, err, `the project already has a tool "weather-forecast" (weather_forecast.go); --force writes its files again`)
	if _, err := AddTool(ToolOptions{Name: "ping", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(toolFile); string(data) != "package main // edited\n" {
		t.Errorf("adding another tool changed weather_forecast.go:\n%s", data)
	}

	// A name that makes the same identifiers or file as another tool.
	_, err = AddTool(ToolOptions{Name: "weather_forecast", Dir: dir})
	wantUsage(t, err, `tool "weather_forecast" would use the same names as tool "weather-forecast" (WeatherForecast, weather_forecast.go)`)
	_, err = AddTool(ToolOptions{Name: "Ping", Dir: dir})
	wantUsage(t, err, `as tool "ping"`)

	// A file of the user's in the way of a new tool.
	if err := os.WriteFile(filepath.Join(dir, "echo.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifestBefore, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	_, err = AddTool(ToolOptions{Name: "echo", Dir: dir})
	wantUsage(t, err, filepath.Join(dir, "echo.go")+" already exists")
	if after, _ := os.ReadFile(filepath.Join(dir, ManifestFile)); string(after) != string(manifestBefore) {
		t.Error("a refused tool changed the manifest")
	}

	// --force regenerates a tool's files and keeps one manifest entry.
	if _, err := AddTool(ToolOptions{Name: "weather-forecast", Dir: dir, Force: true}); err != nil {
		t.Fatal(err)
	}
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mt := range m.Tools {
		names = append(names, mt.Name)
	}
	if want := []string{"greet", "weather-forecast", "ping"}; !slices.Equal(names, want) {
		t.Errorf("manifest tools = %q, want %q", names, want)
	}
}

func TestAddToolNeedsAProject(t *testing.T) {
	dir := t.TempDir()
	_, err := AddTool(ToolOptions{Name: "x", Dir: dir})
	wantUsage(t, err, dir+" is not a project made by mcpctl scaffold (it has no .mcpctl-scaffold.json)")
	_, err = AddTool(ToolOptions{Name: "x", Dir: filepath.Join(dir, "missing")})
	wantUsage(t, err, "is not a folder")

	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = AddTool(ToolOptions{Name: "x", Dir: dir})
	wantUsage(t, err, "is not a valid scaffold manifest")
}

func TestAddToolBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewServer(ServerOptions{Name: "demo", Lang: LangTypeScript, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts ToolOptions
		want string
	}{
		{ToolOptions{Name: "bad/name"}, `invalid tool name: the name "bad/name" has '/' at offset 3`},
		{ToolOptions{Name: strings.Repeat("n", 129)}, "has 129 characters; MCP tool names have at most 128"},
		{ToolOptions{Name: "x", Lang: LangGo}, "is a TypeScript project (.mcpctl-scaffold.json), not Go; leave out --lang or use --lang ts"},
		{ToolOptions{Name: "x", Input: []Field{{Name: "a", Type: "string"}, {Name: "a", Type: "string"}}}, `input property "a" is given twice`},
		{ToolOptions{Name: "x", Output: []Field{{Name: "a", Type: "date"}}}, `type "date"`},
	} {
		tc.opts.Dir = dir
		_, err := AddTool(tc.opts)
		wantUsage(t, err, tc.want)
	}
	res, err := AddTool(ToolOptions{Name: "index", Dir: dir, Lang: LangTypeScript})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Created, "src/tools/index-tool.ts") {
		t.Errorf("tool index: created %q, want src/tools/index-tool.ts beside the registry", res.Created)
	}
}
