package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// resultDefinition names the official definition of the result of each
// request a client sends, or "". A switch rather than a map, so that
// nothing is built at start-up. A method a revision does not define is left
// out of the check by [Checker.CheckResult].
func resultDefinition(method string) string {
	switch method {
	case "initialize":
		return "InitializeResult"
	case "server/discover":
		return "DiscoverResult"
	case "ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel":
		return "EmptyResult"
	case "tools/list":
		return "ListToolsResult"
	case "tools/call":
		return "CallToolResult"
	case "resources/list":
		return "ListResourcesResult"
	case "resources/templates/list":
		return "ListResourceTemplatesResult"
	case "resources/read":
		return "ReadResourceResult"
	case "prompts/list":
		return "ListPromptsResult"
	case "prompts/get":
		return "GetPromptResult"
	case "completion/complete":
		return "CompleteResult"
	case "tasks/get":
		return "GetTaskResult"
	case "tasks/list":
		return "ListTasksResult"
	case "tasks/cancel":
		return "CancelTaskResult"
	}
	return ""
}

// notificationDefinition names the official definition of each
// notification a server sends.
func notificationDefinition(method string) string {
	switch method {
	case "notifications/message":
		return "LoggingMessageNotification"
	case "notifications/progress":
		return "ProgressNotification"
	case "notifications/cancelled":
		return "CancelledNotification"
	case "notifications/resources/updated":
		return "ResourceUpdatedNotification"
	case "notifications/resources/list_changed":
		return "ResourceListChangedNotification"
	case "notifications/tools/list_changed":
		return "ToolListChangedNotification"
	case "notifications/prompts/list_changed":
		return "PromptListChangedNotification"
	case "notifications/tasks/status":
		return "TaskStatusNotification"
	case "notifications/elicitation/complete":
		return "ElicitationCompleteNotification"
	}
	return ""
}

// requestDefinition names the official definition of each request a
// server sends to the client.
func requestDefinition(method string) string {
	switch method {
	case "ping":
		return "PingRequest"
	case "roots/list":
		return "ListRootsRequest"
	case "sampling/createMessage":
		return "CreateMessageRequest"
	case "elicitation/create":
		return "ElicitRequest"
	}
	return ""
}

// ResultDefinition is the name of the official definition that the result
// of method has in protocol revision version ("CallToolResult" for
// "tools/call"), or "" when mcpctl does not check that method's results or
// the revision does not define it.
func ResultDefinition(version, method string) string {
	def := resultDefinition(method)
	if def == "" || !slices.Contains(officialVersions, version) {
		return ""
	}
	defs, err := officialDefinitions(version)
	if err != nil || defs.raw[def] == nil {
		return ""
	}
	return def
}

// ResultDefinition is [ResultDefinition] with the official schema split
// once, by the checker: the function splits it at every call, which costs
// more than checking a small result (a batch asks for every result).
func (c *Checker) ResultDefinition(version, method string) string {
	def := resultDefinition(method)
	if def == "" || !slices.Contains(officialVersions, version) {
		return ""
	}
	defs, err := c.split(version)
	if err != nil || defs.raw[def] == nil {
		return ""
	}
	return def
}

// Checker validates what a server sends against the official schema of a
// protocol revision (see [OfficialSchema]). It compiles a definition the
// first time it is needed and keeps it, so a command that checks one kind of
// result compiles one definition, and one that checks none compiles nothing.
//
// The zero value is ready to use. A Checker is safe for concurrent use and
// must not be copied after first use.
type Checker struct {
	mu       sync.Mutex
	defs     map[string]*officialDef     // by version + "#" + definition
	versions map[string]*officialVersion // the split schemas, by version
}

// officialVersion is the official schema of one revision split into its
// definitions, once.
type officialVersion struct {
	once sync.Once
	d    *definitions
	err  error
}

// officialDef is one compiled definition, compiled once.
type officialDef struct {
	once sync.Once
	s    *Schema
	err  error
}

// CheckResult checks the result of a request of method against the
// official definition for protocol revision version (see
// [ResultDefinition]). It returns the violations, each naming the
// definition that failed, or nil when the result is valid or the method is
// one mcpctl does not check. The error reports a revision without an
// embedded schema, a result that is not JSON, or one over [MaxCheckSize]
// (a [*TooLargeError]).
func (c *Checker) CheckResult(version, method string, result []byte) ([]Violation, error) {
	def := resultDefinition(method)
	if def == "" {
		return nil, nil
	}
	if method == "tools/call" && len(result) <= MaxCheckSize && slices.Contains(officialVersions, version) && plainToolResult(version, result) {
		return nil, nil
	}
	return c.check(version, def, result, true)
}

// Prepare compiles, ahead of use, the result definitions of methods in
// version, so that a caller can do it while it waits for something else (a
// server starting). Unknown methods are skipped; errors are left for the
// checks to report.
func (c *Checker) Prepare(version string, methods ...string) {
	for _, m := range methods {
		if def := c.ResultDefinition(version, m); def != "" {
			_, _ = c.definition(version, def)
		}
	}
}

// CheckNotification checks a notification from the server, given by its
// method and params (nil or empty when it had none), against the official
// definition of the whole message, so paths start with "/params". Methods
// mcpctl does not check yield nil.
func (c *Checker) CheckNotification(version, method string, params []byte) ([]Violation, error) {
	def := notificationDefinition(method)
	if def == "" {
		return nil, nil
	}
	msg, err := envelope(map[string]any{"jsonrpc": "2.0", "method": method}, params)
	if err != nil {
		return nil, err
	}
	return c.check(version, def, msg, true)
}

// CheckRequest checks a request from the server to the client
// (sampling/createMessage, roots/list, elicitation/create, ping), given by
// its method and params, like [Checker.CheckNotification].
func (c *Checker) CheckRequest(version, method string, params []byte) ([]Violation, error) {
	def := requestDefinition(method)
	if def == "" {
		return nil, nil
	}
	msg, err := envelope(map[string]any{"jsonrpc": "2.0", "id": 0, "method": method}, params)
	if err != nil {
		return nil, err
	}
	return c.check(version, def, msg, true)
}

// CheckDefinition checks a value against the official definition def
// ("Tool", "Resource", "InitializeResult"…) of protocol revision version.
// A definition the revision does not have is an error.
func (c *Checker) CheckDefinition(version, def string, value []byte) ([]Violation, error) {
	return c.check(version, def, value, false)
}

// envelope builds a JSON-RPC message from its fixed fields and params.
func envelope(fields map[string]any, params []byte) ([]byte, error) {
	if p := bytes.TrimSpace(params); len(p) > 0 {
		if !json.Valid(p) {
			return nil, errors.New("params are not valid JSON")
		}
		fields["params"] = json.RawMessage(p)
	}
	return json.Marshal(fields)
}

// MaxCheckSize is the largest message a [Checker] checks. Checking decodes
// the whole message, which takes several times its size in memory; a
// larger result (a big image, a file) is left unchecked with a
// [*TooLargeError], so that checking never multiplies the memory a command
// needs.
const MaxCheckSize = 16 << 20

// TooLargeError reports a message larger than [MaxCheckSize], which a
// [Checker] does not check.
type TooLargeError struct {
	// Definition is the official definition the message was to be checked
	// against; Size its size in bytes.
	Definition string
	Size       int
}

// Error reads like "not checking the CallToolResult against the official
// schema: it is 40000000 bytes, over the 16777216 mcpctl checks".
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("not checking the %s against the official schema: it is %d bytes, over the %d mcpctl checks", e.Definition, e.Size, MaxCheckSize)
}

// check validates value against def; lenient skips definitions the
// revision lacks instead of reporting them.
func (c *Checker) check(version, def string, value []byte, lenient bool) ([]Violation, error) {
	if len(value) > MaxCheckSize {
		return nil, &TooLargeError{Definition: def, Size: len(value)}
	}
	if !slices.Contains(officialVersions, version) {
		return nil, fmt.Errorf("no official schema for protocol version %q to check %s against (mcpctl has %s)", version, def, strings.Join(officialVersions, ", "))
	}
	s, err := c.definition(version, def)
	if errors.Is(err, errNoDefinition) && lenient {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	vs, err := s.ValidateJSON(value)
	if err != nil {
		return nil, fmt.Errorf("checking a %s: %w", def, err)
	}
	for i := range vs {
		vs[i].Msg = officialMessage(vs[i])
	}
	return vs, nil
}

// officialMessage words a violation of an official definition by naming
// the definition: "required by ImageContent", `must be one of "assistant",
// "user", got "system" (Role)`.
func officialMessage(v Violation) string {
	switch {
	case v.Definition == "":
		return v.Msg
	case v.Keyword == "required" && v.Msg == msgRequired:
		return "required by " + v.Definition
	}
	return v.Msg + " (" + v.Definition + ")"
}

// definition returns the compiled definition, compiling it on first use.
func (c *Checker) definition(version, def string) (*Schema, error) {
	key := version + "#" + def
	c.mu.Lock()
	if c.defs == nil {
		c.defs = map[string]*officialDef{}
	}
	d := c.defs[key]
	if d == nil {
		d = &officialDef{}
		c.defs[key] = d
	}
	c.mu.Unlock()
	d.once.Do(func() {
		var defs *definitions
		if defs, d.err = c.split(version); d.err == nil {
			d.s, d.err = compileDefinition(defs, def)
		}
	})
	return d.s, d.err
}

// split returns the definitions of the official schema of version,
// splitting it on first use.
func (c *Checker) split(version string) (*definitions, error) {
	c.mu.Lock()
	if c.versions == nil {
		c.versions = map[string]*officialVersion{}
	}
	v := c.versions[version]
	if v == nil {
		v = &officialVersion{}
		c.versions[version] = v
	}
	c.mu.Unlock()
	v.once.Do(func() { v.d, v.err = officialDefinitions(version) })
	return v.d, v.err
}

// errNoDefinition reports a definition a revision does not have.
var errNoDefinition = errors.New("no such definition")

// definitions is the definitions of one official schema, undecoded.
type definitions struct {
	schema  json.RawMessage            // the $schema value
	key     string                     // "definitions" (draft-07) or "$defs" (2020-12)
	raw     map[string]json.RawMessage // by name
	version string
}

// officialDefinitions splits the official schema of version into its
// definitions. A Checker keeps the result, so that nothing is kept at
// package level.
func officialDefinitions(version string) (*definitions, error) {
	data, err := OfficialSchema(version)
	if err != nil {
		return nil, err
	}
	// The embedded schemas are valid JSON (TestOfficialMembers holds them
	// to encoding/json's reading): members are split without validating
	// them again, which decoding 170 KB with encoding/json would cost a
	// one-shot command several milliseconds.
	doc, err := objectMembers(data)
	if err != nil {
		return nil, fmt.Errorf("the official schema of %s: %w", version, err)
	}
	d := &definitions{schema: doc["$schema"], key: "$defs", version: version}
	if _, ok := doc[d.key]; !ok {
		d.key = "definitions"
	}
	if d.raw, err = objectMembers(doc[d.key]); err != nil {
		return nil, fmt.Errorf("the official schema of %s: %s: %w", version, d.key, err)
	}
	return d, nil
}

// objectMembers splits a JSON object that is known to be valid into its
// members, by name, without decoding their values. Names must need no
// unescaping (the official schemas' names are plain).
func objectMembers(data []byte) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	var bad error
	err := jsonscan.Members(data, func(m jsonscan.Member) bool {
		if !jsonscan.Plain(m.Name) {
			bad = fmt.Errorf("member name %s has escapes", m.Name)
			return false
		}
		out[string(m.Name[1:len(m.Name)-1])] = m.Value
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// compileDefinition compiles one official definition. Only the
// definitions it refers to, directly or not, go into the compiled document,
// so the meta-schema check (the library's, and most of the cost) sees
// kilobytes instead of the whole schema.
func compileDefinition(d *definitions, def string) (*Schema, error) {
	version := d.version
	if d.raw[def] == nil {
		return nil, fmt.Errorf("the official schema of %s has no definition %q: %w", version, def, errNoDefinition)
	}
	needed := map[string]json.RawMessage{}
	asDraft07 := true // see draft07Equivalent
	queue := []string{def}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := needed[name]; done {
			continue
		}
		raw := d.raw[name]
		if raw == nil {
			return nil, fmt.Errorf("the official schema of %s refers to %q, which it does not define", version, name)
		}
		needed[name] = raw
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("the official schema of %s: %s: %w", version, name, err)
		}
		queue = append(queue, localRefs(v, "#/"+d.key+"/")...)
		asDraft07 = asDraft07 && draft07Equivalent(v)
	}
	metaSchema := any(d.schema)
	if asDraft07 {
		metaSchema = draft07
	}
	doc, err := json.Marshal(map[string]any{"$schema": metaSchema, d.key: needed})
	if err != nil {
		return nil, err
	}
	url := "mcpctl:///mcp/" + version + "/schema.json"
	c := jsonschema.NewCompiler()
	c.AssertFormat = true // as draft-07 does, so every revision checks "uri" alike
	// The library rejects valid RFC 6570 templates ("{#section:3}"); lint's
	// resource-template-invalid rule checks them properly.
	c.Formats["uri-template"] = func(any) bool { return true }
	c.LoadURL = func(url string) (io.ReadCloser, error) { return nil, &RemoteRefError{Ref: url} }
	if err := c.AddResource(url, bytes.NewReader(doc)); err != nil {
		return nil, fmt.Errorf("the official schema of %s: %w", version, err)
	}
	compiled, err := c.Compile(url + "#/" + d.key + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("compiling %s of the official schema of %s: %w", def, version, err)
	}
	return &Schema{compiled: compiled, index: indexSchemas(compiled), official: true}, nil
}

// localRefs lists the definitions the $refs in v point to, given the
// prefix of a reference to a definition ("#/$defs/").
func localRefs(v any, prefix string) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if ref, ok := e.(string); ok && k == "$ref" {
					if name, ok := strings.CutPrefix(ref, prefix); ok {
						out = append(out, unescapePointer(name))
					}
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// definitionOf names the official definition an absolute keyword location
// lies in: "ImageContent" for "…#/$defs/ImageContent/required".
func definitionOf(loc string) string {
	_, frag, ok := strings.Cut(loc, "#/")
	if !ok {
		return ""
	}
	toks := strings.SplitN(frag, "/", 3)
	if len(toks) < 2 || (toks[0] != "$defs" && toks[0] != "definitions") {
		return ""
	}
	return unescapePointer(pathUnescape(toks[1]))
}

// draft07 is the $schema of JSON Schema draft-07.
const draft07 = "http://json-schema.org/draft-07/schema#"

// keywords2019 are the keywords that draft 2019-09 and 2020-12 added, or
// whose meaning they changed, beyond "$defs" (which draft-07 reaches as a
// plain JSON pointer) and "items" (the same when it holds one schema).
var keywords2019 = []string{
	"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$anchor", "$vocabulary",
	"prefixItems", "unevaluatedProperties", "unevaluatedItems", "dependentSchemas",
	"dependentRequired", "contentSchema", "minContains", "maxContains",
}

// draft07Equivalent reports whether a decoded definition means the same
// under draft-07 as under 2020-12: it uses no keyword that changed, and no
// "$ref" has sibling keywords (draft-07 ignores them). Such a definition
// is compiled as draft-07, whose meta-schema check costs a fraction of
// 2020-12's — the difference a one-shot command feels. The 2025-11-25
// schema, the only 2020-12 one, qualifies whole (schema tests hold it so).
func draft07Equivalent(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ref := x["$ref"]; ref {
			for k := range x {
				switch k {
				case "$ref", "description", "title", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly":
				default:
					return false
				}
			}
		}
		for _, k := range keywords2019 {
			if _, ok := x[k]; ok {
				return false
			}
		}
		if _, tuple := x["items"].([]any); tuple {
			return false // an array of items is prefixItems in 2020-12
		}
		for k, e := range x {
			if k == "properties" || k == "$defs" || k == "definitions" || k == "patternProperties" {
				// Names here are property names, not keywords.
				if m, ok := e.(map[string]any); ok {
					for _, sub := range m {
						if !draft07Equivalent(sub) {
							return false
						}
					}
					continue
				}
			}
			if !draft07Equivalent(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !draft07Equivalent(e) {
				return false
			}
		}
	}
	return true
}
