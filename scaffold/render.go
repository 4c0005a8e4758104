package scaffold

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
)

//go:embed templates
var templateFS embed.FS

// templates parses the templates of one language (templates/go or
// templates/ts) on each call: no package-level mutable state.
func templates(lang string) (*template.Template, error) {
	return template.New("").Funcs(template.FuncMap{
		"goString": strconv.Quote,
		"jsString": jsString,
	}).ParseFS(templateFS, "templates/"+lang+"/*.tmpl")
}

// toolSpec is what a tool is made from.
type toolSpec struct {
	Name          string
	Description   string
	Input, Output []Field
	Annotations   Annotations
	// Example marks the project's first tool, whose handler does real work.
	Example bool
}

// toolData is a tool as the templates see it, with names derived for the
// project's language.
type toolData struct {
	toolSpec
	// Ident is the tool's identifier stem: WeatherForecast in Go (for
	// addWeatherForecastTool, WeatherForecastInput, …), weatherForecast
	// in TypeScript.
	Ident string
	// Pascal is the exported-style stem in either language
	// (registerWeatherForecast).
	Pascal string
	// File and TestFile are relative to the project root.
	File, TestFile string
	// Module is the TypeScript import path from src/tools/index.ts.
	Module       string
	InputFields  []fieldData
	OutputFields []fieldData
	Hints        []annotation
	// The Go lines whose columns gofmt aligns (see gofmt.go): the fields
	// of the Input and Output structs, the hints of the annotations, and
	// the arguments of the generated test's call.
	GoInputFields, GoOutputFields, GoHints, GoSampleArgs []string
}

// annotation is one hint that is set.
type annotation struct {
	Key, GoField string
	Value        bool
	Pointer      bool // the Go SDK field is *bool
}

// fieldData is a field as the templates see it.
type fieldData struct {
	Field
	GoName, GoType, GoTag, GoSample string
	TSKey, Zod, TSSample, TSZero    string
}

// newTool derives everything the templates need for spec in m's language.
func newTool(m *manifest, spec toolSpec) *toolData {
	t := &toolData{toolSpec: spec, Pascal: pascal(spec.Name, "Tool")}
	if t.Description == "" {
		t.Description = "TODO: say what " + spec.Name + " does and when to use it; the model reads this."
	}
	switch m.Lang {
	case LangGo:
		t.Ident = t.Pascal
		base := goFileBase(spec.Name)
		t.File, t.TestFile = base+".go", base+"_test.go"
	case LangTypeScript:
		t.Ident = camel(spec.Name, "tool")
		base := tsFileBase(spec.Name)
		t.File, t.TestFile = "src/tools/"+base+".ts", "src/tools/"+base+".test.ts"
		t.Module = "./" + base + ".js"
	}
	for _, f := range spec.Input {
		t.InputFields = append(t.InputFields, newField(f, false))
	}
	for _, f := range spec.Output {
		t.OutputFields = append(t.OutputFields, newField(f, true))
	}
	for _, a := range []struct {
		key, goField string
		v            *bool
		pointer      bool
	}{
		{"readOnlyHint", "ReadOnlyHint", spec.Annotations.ReadOnly, false},
		{"destructiveHint", "DestructiveHint", spec.Annotations.Destructive, true},
		{"idempotentHint", "IdempotentHint", spec.Annotations.Idempotent, false},
		{"openWorldHint", "OpenWorldHint", spec.Annotations.OpenWorld, true},
	} {
		if a.v != nil {
			t.Hints = append(t.Hints, annotation{Key: a.key, GoField: a.goField, Value: *a.v, Pointer: a.pointer})
		}
	}
	if m.Lang == LangGo {
		t.alignGo()
	}
	return t
}

// alignGo lays out the Go lines whose columns line up as gofmt does.
func (t *toolData) alignGo() {
	fields := func(list []fieldData) []string {
		rows := make([][]string, len(list))
		for i, f := range list {
			rows[i] = []string{f.GoName, f.GoType, f.GoTag}
		}
		return alignColumns(rows)
	}
	t.GoInputFields, t.GoOutputFields = fields(t.InputFields), fields(t.OutputFields)
	var keys, values []string
	for _, h := range t.Hints {
		v := strconv.FormatBool(h.Value)
		if h.Pointer {
			v = "new(" + v + ")"
		}
		keys, values = append(keys, h.GoField), append(values, v+",")
	}
	t.GoHints = alignKeyValues(keys, values)
	keys, values = nil, nil
	for _, f := range t.InputFields {
		keys, values = append(keys, strconv.Quote(f.Name)), append(values, f.GoSample+",")
	}
	t.GoSampleArgs = alignKeyValues(keys, values)
}

// HasOutput reports whether the tool declares an outputSchema.
func (t *toolData) HasOutput() bool { return len(t.Output) > 0 }

// jsIdentRE matches object keys TypeScript needs no quotes for.
var jsIdentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

func newField(f Field, output bool) fieldData {
	if output {
		// Output properties are always present, so structuredContent
		// always matches the outputSchema's "required".
		f.Required = true
	}
	array, item := f.array()
	d := fieldData{Field: f, GoName: pascal(f.Name, "F")}

	goTypes := map[string]string{"string": "string", "integer": "int", "number": "float64", "boolean": "bool"}
	goSamples := map[string]string{"string": `"example"`, "integer": "1", "number": "1.5", "boolean": "true"}
	zods := map[string]string{"string": "z.string()", "integer": "z.number().int()", "number": "z.number()", "boolean": "z.boolean()"}
	tsZeros := map[string]string{"string": `""`, "integer": "0", "number": "0", "boolean": "false"}
	tsSamples := goSamples

	d.GoType, d.GoSample = goTypes[item], goSamples[item]
	d.Zod, d.TSSample, d.TSZero = zods[item], tsSamples[item], tsZeros[item]
	if array {
		d.GoType = "[]" + d.GoType
		d.GoSample = d.GoType + "{" + d.GoSample + "}"
		d.Zod = "z.array(" + d.Zod + ")"
		d.TSSample = "[" + d.TSSample + "]"
		d.TSZero = "[]"
	}
	if f.Description != "" {
		d.Zod += ".describe(" + jsString(f.Description) + ")"
	}
	if !f.Required {
		d.Zod += ".optional()"
	}

	jsonTag := f.Name
	if !f.Required {
		jsonTag += ",omitempty"
	}
	tag := "json:" + strconv.Quote(jsonTag)
	if f.Description != "" {
		tag += " jsonschema:" + strconv.Quote(f.Description)
	}
	if strings.Contains(tag, "`") {
		d.GoTag = strconv.Quote(tag)
	} else {
		d.GoTag = "`" + tag + "`"
	}

	d.TSKey = f.Name
	if !jsIdentRE().MatchString(f.Name) {
		d.TSKey = jsString(f.Name)
	}
	return d
}

// jsString is s as a JavaScript string literal (JSON is a subset).
func jsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// projectData is what the project templates see.
type projectData struct {
	*manifest
	HTTP bool
	// Tools are the project's tools, for the registry.
	Tools []*toolData
	// Example is the example tool, for the README.
	Example *toolData
}

func newProjectData(m *manifest) *projectData {
	d := &projectData{manifest: m, HTTP: m.Transport == TransportHTTP}
	for _, mt := range m.Tools {
		t := newTool(m, toolSpec{Name: mt.Name})
		// The manifest's file wins: it is where the tool really is.
		t.File = mt.File
		if m.Lang == LangTypeScript {
			t.Module = "./" + strings.TrimSuffix(path.Base(mt.File), ".ts") + ".js"
		}
		d.Tools = append(d.Tools, t)
	}
	return d
}

// projectFiles are the files of a new project whose first tool is t.
func projectFiles(m *manifest, t *toolData) ([]genFile, error) {
	d := newProjectData(m)
	d.Example = t
	var names map[string]string // output path → template
	switch m.Lang {
	case LangGo:
		names = map[string]string{
			"go.mod":         "go.mod.tmpl",
			"go.sum":         "go.sum.tmpl",
			"main.go":        "main.go.tmpl",
			"server.go":      "server.go.tmpl",
			"server_test.go": "server_test.go.tmpl",
			"README.md":      "README.md.tmpl",
			".gitignore":     "gitignore.tmpl",
		}
	case LangTypeScript:
		names = map[string]string{
			"package.json":       "package.json.tmpl",
			"tsconfig.json":      "tsconfig.json.tmpl",
			"src/index.ts":       "index.ts.tmpl",
			"src/server.ts":      "server.ts.tmpl",
			"src/server.test.ts": "server.test.ts.tmpl",
			"src/testing.ts":     "testing.ts.tmpl",
			"README.md":          "README.md.tmpl",
			".gitignore":         "gitignore.tmpl",
		}
	}
	tmpl, err := templates(m.Lang)
	if err != nil {
		return nil, err
	}
	var files []genFile
	for _, out := range sortedKeys(names) {
		data, err := render(tmpl, names[out], out, d)
		if err != nil {
			return nil, err
		}
		files = append(files, genFile{path: out, data: data})
	}
	more, err := toolFilesWith(tmpl, m, t)
	if err != nil {
		return nil, err
	}
	// Every file of a new project is the user's from now on, the registry
	// and manifest included: overwriting any needs --force.
	for _, f := range more {
		f.owned = false
		files = append(files, f)
	}
	return files, nil
}

// toolFiles are t's file and test, the regenerated registry and the
// manifest.
func toolFiles(m *manifest, t *toolData) ([]genFile, error) {
	tmpl, err := templates(m.Lang)
	if err != nil {
		return nil, err
	}
	return toolFilesWith(tmpl, m, t)
}

func toolFilesWith(tmpl *template.Template, m *manifest, t *toolData) ([]genFile, error) {
	d := newProjectData(m)
	var registry string
	switch m.Lang {
	case LangGo:
		registry = "tools_gen.go"
	case LangTypeScript:
		registry = "src/tools/index.ts"
	}
	var files []genFile
	for _, f := range []struct {
		out, tmpl string
		data      any
		owned     bool
	}{
		{t.File, "tool." + ext(m.Lang) + ".tmpl", t, false},
		{t.TestFile, "tool_test." + ext(m.Lang) + ".tmpl", t, false},
		{registry, "registry." + ext(m.Lang) + ".tmpl", d, true},
	} {
		data, err := render(tmpl, f.tmpl, f.out, f.data)
		if err != nil {
			return nil, err
		}
		files = append(files, genFile{path: f.out, data: data, owned: f.owned})
	}
	mdata, err := m.encode()
	if err != nil {
		return nil, err
	}
	return append(files, genFile{path: ManifestFile, data: mdata, owned: true}), nil
}

func ext(lang string) string {
	if lang == LangTypeScript {
		return "ts"
	}
	return "go"
}

// render executes one template. The Go templates are written as gofmt
// writes Go (see gofmt.go), so their output needs no formatting.
func render(tmpl *template.Template, name, out string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return nil, fmt.Errorf("generating %s: %w", out, err)
	}
	return b.Bytes(), nil
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// NPMName is the project's npm package name: npm allows no capitals.
func (d *projectData) NPMName() string { return strings.ToLower(d.Name) }
