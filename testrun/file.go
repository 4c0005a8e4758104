// Package testrun is `mcpctl test`: the test-file format (YAML, one
// session per file, steps in order), the runner that plays a file against
// a server and checks each step's expectations, and the reports (terminal
// summary, JUnit XML, Markdown, JSON).
//
// The package knows nothing of flags or of how a server is started: the
// caller gives a [Connector] that turns a file's [Server] (or its own
// command-line selection) into a [Session].
package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultDir is the folder `mcpctl test` runs when given no file.
const DefaultDir = "mcpctl-tests"

// Suffix is how a test file's name ends; a folder is searched for such files.
const Suffix = ".mcptest.yaml"

// File is one parsed test file.
type File struct {
	// Path is where the file was read from; snapshots and schemaFile
	// paths are relative to its folder.
	Path   string  `yaml:"-" json:"-"`
	Server *Server `yaml:"server,omitempty" json:"server,omitempty"`
	Tests  []Test  `yaml:"tests" json:"tests"`
}

// Server is a file's server selection, used when the command line names
// none.
type Server struct {
	Command []string          `yaml:"command,omitempty" json:"command,omitempty"`
	URL     string            `yaml:"url,omitempty" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	Env     map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	// Name is a named server from mcpctl's config or an editor's file.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	Era  string `yaml:"era,omitempty" json:"era,omitempty"`
	// Recording is a session recorded with --record, relative to the
	// test file: mcpctl serves it itself (mcpctl mock), so the tests run
	// without the real server.
	Recording string `yaml:"recording,omitempty" json:"recording,omitempty"`
}

// Test is one step of a file: exactly one of Call, Read, Prompt, List and
// Complete.
type Test struct {
	Name   string `yaml:"name" json:"name"`
	Call   string `yaml:"call,omitempty" json:"call,omitempty"`
	Read   string `yaml:"read,omitempty" json:"read,omitempty"`
	Prompt string `yaml:"prompt,omitempty" json:"prompt,omitempty"`
	// List is tools, resources, templates or prompts.
	List string `yaml:"list,omitempty" json:"list,omitempty"`
	// Complete asks for the completions of an argument of a prompt or a
	// resource template (completion/complete); Args are the other
	// arguments, sent as its context.
	Complete *CompleteStep `yaml:"complete,omitempty" json:"complete,omitempty"`
	// Args are the call's or prompt's arguments; strings are typed by
	// the tool's inputSchema as key=value on the command line is.
	Args map[string]any `yaml:"args,omitempty" json:"args,omitempty"`
	// Task runs a call as a task when the tool's execution.taskSupport is
	// "optional", as call --task does; a tool whose taskSupport is
	// "required" runs as one without it.
	Task   bool   `yaml:"task,omitempty" json:"task,omitempty"`
	Expect Expect `yaml:"expect,omitempty" json:"expect,omitempty"`
	// Capture maps a name to a jq expression on the result; later steps
	// of the file use the value as ${name}.
	Capture map[string]string `yaml:"capture,omitempty" json:"capture,omitempty"`
}

// CompleteStep is a completion/complete step: the argument of exactly one
// of Prompt (a prompt's name) and Template (a resource template's URI
// template), and the partial Value to complete.
type CompleteStep struct {
	Prompt   string `yaml:"prompt,omitempty" json:"prompt,omitempty"`
	Template string `yaml:"template,omitempty" json:"template,omitempty"`
	Argument string `yaml:"argument" json:"argument"`
	Value    string `yaml:"value,omitempty" json:"value,omitempty"`
}

// Expect holds a step's expectations; every one given must hold.
type Expect struct {
	Text     *string `yaml:"text,omitempty" json:"text,omitempty"`
	Contains string  `yaml:"contains,omitempty" json:"contains,omitempty"`
	Matches  string  `yaml:"matches,omitempty" json:"matches,omitempty"`
	// IsError is the tool result's isError; nil means false unless Error
	// is given.
	IsError *bool `yaml:"isError,omitempty" json:"isError,omitempty"`
	// Error expects a JSON-RPC error instead of a result.
	Error *ExpectError `yaml:"error,omitempty" json:"error,omitempty"`
	// JQ must give a truthy value (not false, not null) on the result.
	JQ         string `yaml:"jq,omitempty" json:"jq,omitempty"`
	Schema     any    `yaml:"schema,omitempty" json:"schema,omitempty"`
	SchemaFile string `yaml:"schemaFile,omitempty" json:"schemaFile,omitempty"`
	// OutputSchema checks structuredContent against the tool's declared
	// outputSchema; nil means true when the tool declares one.
	OutputSchema *bool `yaml:"outputSchema,omitempty" json:"outputSchema,omitempty"`
	Snapshot     bool  `yaml:"snapshot,omitempty" json:"snapshot,omitempty"`
	MaxMS        int64 `yaml:"maxMs,omitempty" json:"maxMs,omitempty"`
	// Notifications expects notifications the server sent while the step
	// ran.
	Notifications *ExpectNotifications `yaml:"notifications,omitempty" json:"notifications,omitempty"`
}

// ExpectNotifications are notifications a step expects: Progress asks
// for progress (the call then carries a progress token), Log for a log
// message.
type ExpectNotifications struct {
	Progress bool       `yaml:"progress,omitempty" json:"progress,omitempty"`
	Log      *ExpectLog `yaml:"log,omitempty" json:"log,omitempty"`
}

// ExpectLog is an expected log message (notifications/message): at Level
// or more severe (the server is asked for logs at Level first; default
// debug), whose data contains Contains when given.
type ExpectLog struct {
	Level    string `yaml:"level,omitempty" json:"level,omitempty"`
	Contains string `yaml:"contains,omitempty" json:"contains,omitempty"`
}

// ExpectError is an expected JSON-RPC error: Code when not zero, and a
// Message the error's message contains.
type ExpectError struct {
	Code    int    `yaml:"code,omitempty" json:"code,omitempty"`
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
}

// Load reads and checks the test file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading test file: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes a test file's YAML; path names it in errors. Unknown keys
// are errors, so that a misspelt expectation never passes silently.
func Parse(path string, data []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("test file %s: %w", path, err)
	}
	f.Path = path
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("test file %s: %w", path, err)
	}
	return &f, nil
}

func (f *File) check() error {
	if len(f.Tests) == 0 {
		return errors.New("no tests (the file needs a tests: list)")
	}
	seen := map[string]bool{}
	for i, t := range f.Tests {
		if t.Name == "" {
			return fmt.Errorf("test %d has no name", i+1)
		}
		if seen[t.Name] {
			return fmt.Errorf("two tests are named %q", t.Name)
		}
		seen[t.Name] = true
		n := 0
		for _, s := range []string{t.Call, t.Read, t.Prompt, t.List} {
			if s != "" {
				n++
			}
		}
		if t.Complete != nil {
			n++
		}
		if n != 1 {
			return fmt.Errorf("test %q needs exactly one of call, read, prompt, list or complete", t.Name)
		}
		if t.Task && t.Call == "" {
			return fmt.Errorf("test %q: task applies to a call", t.Name)
		}
		if c := t.Complete; c != nil && ((c.Prompt == "") == (c.Template == "") || c.Argument == "") {
			return fmt.Errorf("test %q: complete needs an argument and exactly one of prompt or template", t.Name)
		}
		switch t.List {
		case "", "tools", "resources", "templates", "prompts":
		default:
			return fmt.Errorf("test %q: list: %q is none of tools, resources, templates, prompts", t.Name, t.List)
		}
		if n := t.Expect.Notifications; n != nil && n.Log != nil && n.Log.Level != "" && levelRank(n.Log.Level) < 0 {
			return fmt.Errorf("test %q: notifications.log.level %q is not a syslog level (debug, info, notice, warning, error, critical, alert, emergency)", t.Name, n.Log.Level)
		}
		if t.Expect.Schema != nil && t.Expect.SchemaFile != "" {
			return fmt.Errorf("test %q: give schema or schemaFile, not both", t.Name)
		}
	}
	return nil
}

// Discover returns the test files paths name: a file as it is, a folder
// searched for files ending in [Suffix]. With no paths it looks for
// [DefaultDir], else for such files in the current folder.
func Discover(paths []string) ([]string, error) {
	if len(paths) == 0 {
		if st, err := os.Stat(DefaultDir); err == nil && st.IsDir() {
			paths = []string{DefaultDir}
		} else {
			matches, _ := filepath.Glob("*" + Suffix)
			if len(matches) == 0 {
				return nil, fmt.Errorf("no test files: neither %s/ nor *%s here (name a file or folder, or write one with mcpctl test --init)", DefaultDir, Suffix)
			}
			sort.Strings(matches)
			return matches, nil
		}
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("test files: %w", err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == snapshotDir {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), Suffix) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("searching %s for test files: %w", p, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no *%s files in %s", Suffix, p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// jsonValue turns a YAML-decoded value into JSON.
func jsonValue(v any) (json.RawMessage, error) {
	return json.Marshal(v)
}

func yamlUnmarshal(data []byte, v any) error { return yaml.Unmarshal(data, v) }
