// Package scaffold generates MCP server projects and tools from text/template
// templates embedded in the binary: Go projects on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) and TypeScript projects on
// @modelcontextprotocol/sdk with zod.
//
// [NewServer] writes a project with one example tool, a test that calls it
// through an in-process client, a README and a manifest,
// .mcpctl-scaffold.json, that lists the project's tools. [AddTool] writes a
// tool's file and test, adds the tool to the manifest and regenerates the
// project's tool registry (tools_gen.go, or src/tools/index.ts) from it:
// code the user wrote is never edited, and existing files are never
// overwritten unless Force is set.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Languages a project can be generated in.
const (
	LangGo         = "go"
	LangTypeScript = "ts"
)

// Transports a generated server can speak.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// ManifestFile is the file, at the root of a scaffolded project, that
// records the project's language and tools.
const ManifestFile = ".mcpctl-scaffold.json"

// UsageError reports a request that cannot be carried out as given: a bad
// name, an unknown language, a folder that is not a scaffolded project, a
// file that exists. Nothing has been written when it is returned.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExistsError reports a file that would be overwritten; Force allows it.
// It is always wrapped in a [UsageError].
type ExistsError struct {
	// Path is the file, as the caller named its folder.
	Path string
	// Others counts further files that exist too.
	Others int
}

func (e *ExistsError) Error() string {
	msg := fmt.Sprintf("%s already exists", e.Path)
	if e.Others > 0 {
		msg += fmt.Sprintf(" (and %d more of the files to write)", e.Others)
	}
	return msg + "; nothing was written (--force overwrites)"
}

// Result says what was written.
type Result struct {
	// Dir is the project folder.
	Dir string
	// Created and Updated are the files written, relative to Dir.
	Created, Updated []string
	// Warnings are things the caller should know, such as schema keywords
	// that the generated types cannot express.
	Warnings []string
	// Next are the commands to run next, in order.
	Next []string
}

// Annotations are the tool annotation hints; nil leaves a hint out, so
// clients assume the spec's default.
type Annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
}

// ServerOptions describe a new project.
type ServerOptions struct {
	// Name is the server's name: the folder, Go module or npm package and
	// the name reported in initialize.
	Name string
	// Lang is LangGo or LangTypeScript.
	Lang string
	// Dir is the project folder; "" means Name, in the current folder.
	Dir string
	// Transport is TransportStdio (the default) or TransportHTTP.
	Transport string
	// Force overwrites existing files.
	Force bool
}

// ToolOptions describe a tool to add to a scaffolded project.
type ToolOptions struct {
	// Name is the tool's name, checked by [CheckToolName].
	Name string
	// Lang, if set, must be the project's language.
	Lang string
	// Dir is the project folder; "" means the current folder.
	Dir string
	// Description is what the model reads about the tool; "" leaves a
	// TODO in its place.
	Description string
	// Input and Output are the properties of the tool's arguments and of
	// its structured result. With no Output the tool has no outputSchema.
	Input, Output []Field
	// Annotations are the tool's hints.
	Annotations Annotations
	// Force overwrites the tool's files, and replaces a tool of the same
	// name.
	Force bool
	// Warnings are passed on to the result (from [FieldsFromSchema]).
	Warnings []string
}

// exampleTool is the tool every new project starts with.
func exampleTool() toolSpec {
	return toolSpec{
		Name:        "greet",
		Description: "Greets someone by name.",
		Input:       []Field{{Name: "name", Type: "string", Required: true, Description: "Who to greet"}},
		Annotations: Annotations{ReadOnly: new(true), OpenWorld: new(false)},
		Example:     true,
	}
}

// NewServer writes a new project with one example tool.
func NewServer(opts ServerOptions) (*Result, error) {
	if err := checkServerName(opts.Name); err != nil {
		return nil, &UsageError{Err: err}
	}
	if err := checkLang(opts.Lang); err != nil {
		return nil, err
	}
	switch opts.Transport {
	case "":
		opts.Transport = TransportStdio
	case TransportStdio, TransportHTTP:
	default:
		return nil, usageErrorf("unknown transport %q: use stdio or http", opts.Transport)
	}
	dir := opts.Dir
	if dir == "" {
		dir = opts.Name
	}
	m := &manifest{
		Generator: "mcpctl scaffold",
		Version:   manifestVersion,
		Name:      opts.Name,
		Lang:      opts.Lang,
		Transport: opts.Transport,
	}
	t := newTool(m, exampleTool())
	m.Tools = append(m.Tools, manifestTool{Name: t.Name, File: t.File})
	files, err := projectFiles(m, t)
	if err != nil {
		return nil, err
	}
	created, updated, err := writeFiles(dir, files, opts.Force)
	if err != nil {
		return nil, err
	}
	return &Result{Dir: dir, Created: created, Updated: updated, Next: serverNext(m, dir)}, nil
}

// AddTool adds a tool to the project in opts.Dir.
func AddTool(opts ToolOptions) (*Result, error) {
	if err := CheckToolName(opts.Name); err != nil {
		return nil, &UsageError{Err: fmt.Errorf("invalid tool name: %w", err)}
	}
	if opts.Lang != "" {
		if err := checkLang(opts.Lang); err != nil {
			return nil, err
		}
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if opts.Lang != "" && opts.Lang != m.Lang {
		return nil, usageErrorf("%s is a %s project (%s), not %s; leave out --lang or use --lang %s", dir, langName(m.Lang), ManifestFile, langName(opts.Lang), m.Lang)
	}
	if err := checkFields("input", opts.Input); err != nil {
		return nil, &UsageError{Err: err}
	}
	if err := checkFields("output", opts.Output); err != nil {
		return nil, &UsageError{Err: err}
	}
	spec := toolSpec{Name: opts.Name, Description: opts.Description, Input: opts.Input, Output: opts.Output, Annotations: opts.Annotations}
	t := newTool(m, spec)
	if err := m.add(t, opts.Force); err != nil {
		return nil, err
	}
	files, err := toolFiles(m, t)
	if err != nil {
		return nil, err
	}
	created, updated, err := writeFiles(dir, files, opts.Force)
	if err != nil {
		return nil, err
	}
	return &Result{Dir: dir, Created: created, Updated: updated, Warnings: opts.Warnings, Next: toolNext(m, t, dir)}, nil
}

func checkLang(lang string) error {
	switch lang {
	case LangGo, LangTypeScript:
		return nil
	case "":
		return usageErrorf("--lang is required: go or ts")
	case "typescript":
		return usageErrorf("unknown language %q: use ts", lang)
	}
	return usageErrorf("unknown language %q: use go or ts", lang)
}

func langName(lang string) string {
	if lang == LangTypeScript {
		return "TypeScript"
	}
	return "Go"
}

// genFile is one file to write. Owned files (the registry, the manifest)
// belong to mcpctl and are rewritten without Force.
type genFile struct {
	path  string // relative, slash-separated
	data  []byte
	owned bool
}

// writeFiles writes files under dir after checking that none would
// overwrite a file the user owns, so that a refusal writes nothing.
func writeFiles(dir string, files []genFile, force bool) (created, updated []string, err error) {
	var conflicts []string
	exists := make([]bool, len(files))
	for i, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return nil, nil, usageErrorf("%s is a folder; it is where mcpctl would write a file", p)
		case err == nil:
			exists[i] = true
			if !f.owned && !force {
				conflicts = append(conflicts, p)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, nil, err
		}
	}
	if len(conflicts) > 0 {
		return nil, nil, &UsageError{Err: &ExistsError{Path: conflicts[0], Others: len(conflicts) - 1}}
	}
	for i, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return created, updated, err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return created, updated, err
		}
		if exists[i] {
			updated = append(updated, f.path)
		} else {
			created = append(created, f.path)
		}
	}
	return created, updated, nil
}

// serverNext are the commands that take a new project to a listed tool.
func serverNext(m *manifest, dir string) []string {
	next := []string{"cd " + shellQuote(dir)}
	var run []string
	switch m.Lang {
	case LangGo:
		// go.sum comes with the project, so it tests and builds at once
		// (offline, from the module cache) without go mod tidy first.
		next = append(next, "go test ./...", "go build -o "+m.Name+" .")
		run = []string{"./" + m.Name}
	case LangTypeScript:
		next = append(next, "npm install", "npm test")
		run = []string{"node", "dist/index.js"}
	}
	if m.Transport == TransportHTTP {
		return append(next,
			strings.Join(run, " ")+" --port 8080 &",
			"mcpctl list --url http://127.0.0.1:8080/mcp",
			"mcpctl call greet name=world --url http://127.0.0.1:8080/mcp")
	}
	return append(next,
		"mcpctl list -- "+strings.Join(run, " "),
		"mcpctl call greet name=world -- "+strings.Join(run, " "))
}

// toolNext says where the TODO is and how to test.
func toolNext(m *manifest, t *toolData, dir string) []string {
	test := "go test ./..."
	if m.Lang == LangTypeScript {
		test = "npm test"
	}
	if filepath.Clean(dir) != "." {
		test = "cd " + shellQuote(dir) + " && " + test
	}
	return []string{"fill in the TODO in " + filepath.Join(dir, t.File), test}
}

// shellQuote quotes s for a POSIX shell if it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(isAlnum(r) || slices.Contains([]rune("_-./+:@%,="), r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
