package scaffold

import (
	"bufio"
	"bytes"
	"flag"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden trees under testdata/scaffold/golden")

// goldenDir holds one generated project per case.
const goldenDir = "../testdata/scaffold/golden"

// countSchema is the --from-schema input of the golden projects.
const countSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Folder to count in"},
    "pattern": {"type": "string", "description": "Glob of the names to count", "default": "*"},
    "recursive": {"type": "boolean"},
    "max-depth": {"type": "integer", "minimum": 0}
  },
  "required": ["path"]
}`

// goldenCases are the projects kept under goldenDir: each language and
// transport, and the stdio ones with tools of every kind added.
var goldenCases = []struct {
	name, lang, transport string
	tools                 bool
}{
	{"go-stdio", LangGo, TransportStdio, true},
	{"go-http", LangGo, TransportHTTP, false},
	{"ts-stdio", LangTypeScript, TransportStdio, true},
	{"ts-http", LangTypeScript, TransportHTTP, false},
}

// generate makes a golden case's project in a new folder and returns it.
func generate(t *testing.T, lang, transport string, tools bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo-srv")
	if _, err := NewServer(ServerOptions{Name: "demo-srv", Lang: lang, Dir: dir, Transport: transport}); err != nil {
		t.Fatal(err)
	}
	if !tools {
		return dir
	}
	countInput, _, err := FieldsFromSchema([]byte(countSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []ToolOptions{
		{
			Name:        "weather-forecast",
			Description: "Forecasts the weather of a city for the next days.",
			Input: []Field{
				{Name: "city", Type: "string", Required: true, Description: "The city"},
				{Name: "days", Type: "integer", Description: "How many days, 1 to 7"},
				{Name: "units", Type: "string", Description: `"metric" or "imperial"; a ` + "`quoted`" + ` word`},
				{Name: "tags", Type: "string[]"},
			},
			Output: []Field{
				{Name: "summary", Type: "string", Description: "One line for people"},
				{Name: "temps", Type: "number[]"},
				{Name: "rain", Type: "boolean"},
			},
			Annotations: Annotations{ReadOnly: new(true), Idempotent: new(true), OpenWorld: new(true)},
		},
		{Name: "ping"},
		{Name: "files.count", Input: countInput, Output: []Field{{Name: "count", Type: "integer"}}, Annotations: Annotations{Destructive: new(false)}},
	} {
		opts.Dir = dir
		if _, err := AddTool(opts); err != nil {
			t.Fatalf("adding %s: %v", opts.Name, err)
		}
	}
	return dir
}

// readTree reads every file under dir, keyed by slash-separated path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGolden compares generated projects with the trees under goldenDir.
// Regenerate them with: go test ./scaffold/ -update
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			got := readTree(t, generate(t, c.lang, c.transport, c.tools))
			golden := filepath.Join(goldenDir, c.name)
			if *update {
				if err := os.RemoveAll(golden); err != nil {
					t.Fatal(err)
				}
				for p, data := range got {
					dst := filepath.Join(golden, filepath.FromSlash(p))
					if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(dst, []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want := readTree(t, golden)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("generated project differs from %s (-golden +generated); if the change is intended, run go test ./scaffold/ -update:\n%s", golden, diff)
			}
		})
	}
}

// TestGoFormatted checks that every generated Go file is gofmt-clean.
func TestGoFormatted(t *testing.T) {
	for _, c := range goldenCases {
		if c.lang != LangGo {
			continue
		}
		for p, data := range readTree(t, generate(t, c.lang, c.transport, c.tools)) {
			if !strings.HasSuffix(p, ".go") {
				continue
			}
			formatted, err := format.Source([]byte(data))
			if err != nil {
				t.Errorf("%s/%s does not parse: %v", c.name, p, err)
				continue
			}
			if !bytes.Equal(formatted, []byte(data)) {
				t.Errorf("%s/%s is not gofmt-clean:\n%s", c.name, p, cmp.Diff(data, string(formatted)))
			}
		}
	}
}

// TestGoModVersions keeps the generated go.mod on the versions mcpctl itself
// builds with, so that `go mod tidy` in a new project finds every module in
// the cache a build of mcpctl filled.
func TestGoModVersions(t *testing.T) {
	ours := requires(t, readFile(t, "../go.mod"))
	gen := requires(t, readTree(t, generate(t, LangGo, TransportStdio, false))["go.mod"])
	if len(gen) == 0 {
		t.Fatal("the generated go.mod requires nothing")
	}
	if gen["github.com/modelcontextprotocol/go-sdk"] == "" {
		t.Error("the generated go.mod does not require github.com/modelcontextprotocol/go-sdk")
	}
	for mod, v := range gen {
		if ours[mod] != v {
			t.Errorf("the generated go.mod requires %s %s; mcpctl's go.mod has %q", mod, v, ours[mod])
		}
	}
}

// requires reads the module → version pairs of a go.mod's require lines.
func requires(t *testing.T, gomod string) map[string]string {
	t.Helper()
	out := map[string]string{}
	inBlock := false
	sc := bufio.NewScanner(strings.NewReader(gomod))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case fields[0] == "require" && len(fields) == 2 && fields[1] == "(":
			inBlock = true
		case fields[0] == ")":
			inBlock = false
		case fields[0] == "require" && len(fields) == 3:
			out[fields[1]] = fields[2]
		case inBlock && len(fields) == 2:
			out[fields[0]] = fields[1]
		}
	}
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestGoSum keeps the generated go.sum whole and true: it has both hashes
// of every module the generated go.mod requires, so `go test` and `go build`
// need no `go mod tidy` first, and every line is one of mcpctl's own go.sum
// (the same hashes the checksum database vouched for when mcpctl's
// dependencies were added). Regenerate it with `go mod tidy` in a new
// project after changing go.mod.tmpl.
func TestGoSum(t *testing.T) {
	ours := map[string]bool{}
	for _, line := range strings.Split(readFile(t, "../go.sum"), "\n") {
		ours[line] = true
	}
	tree := readTree(t, generate(t, LangGo, TransportStdio, false))
	sum := tree["go.sum"]
	if sum == "" {
		t.Fatal("the generated project has no go.sum")
	}
	have := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(sum), "\n") {
		if !ours[line] {
			t.Errorf("go.sum line %q is not in mcpctl's go.sum", line)
		}
		if f := strings.Fields(line); len(f) == 3 {
			have[f[0]+" "+f[1]] = true
		}
	}
	for mod, v := range requires(t, tree["go.mod"]) {
		for _, k := range []string{mod + " " + v, mod + " " + v + "/go.mod"} {
			if !have[k] {
				t.Errorf("go.sum has no hash for %s", k)
			}
		}
	}
}
