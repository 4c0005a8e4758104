package cmd

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
)

// shellCache holds the names the shell's tab completion offers, listed
// when the shell starts and again when a list changes: completing never
// waits for the server.
type shellCache struct {
	mu        sync.Mutex
	tools     []client.Tool
	prompts   []client.Prompt
	resources []client.Resource
	templates []client.ResourceTemplate
}

// refresh lists again what the server offers; a list that fails keeps its
// last value.
func (c *shellCache) refresh(ctx context.Context, s *session.Session) {
	var (
		tools     []client.Tool
		prompts   []client.Prompt
		resources []client.Resource
		templates []client.ResourceTemplate
		err       error
	)
	if s.HasCapability("tools") {
		tools, err = s.ListTools(ctx)
	}
	if err == nil && s.HasCapability("prompts") {
		prompts, err = s.ListPrompts(ctx)
	}
	if err == nil && s.HasCapability("resources") {
		resources, err = s.ListResources(ctx)
		if err == nil {
			templates, _ = s.ListResourceTemplates(ctx)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if tools != nil || err == nil {
		c.tools = tools
	}
	if prompts != nil || err == nil {
		c.prompts = prompts
	}
	if resources != nil || err == nil {
		c.resources, c.templates = resources, templates
	}
}

// complete is the line editor's completer: the command, then what the
// command takes — tool, prompt and resource names, argument keys from the
// tool's inputSchema or the prompt's arguments, and the values a key's
// enum (or boolean type) allows.
func (sh *shell) complete(line []rune, pos int) (int, []string) {
	text := string(line[:pos])
	start := strings.LastIndexAny(text, " \t") + 1
	word := text[start:]
	before, err := splitWords(text[:start])
	if err != nil {
		return 0, nil // inside quotes: nothing sensible to offer
	}
	startRunes := len([]rune(text[:start]))
	return startRunes, matching(sh.candidates(before, word), word)
}

// candidates are the words that may follow the words before.
func (sh *shell) candidates(before []string, word string) []string {
	if len(before) == 0 {
		var names []string
		for _, c := range shellCommands() {
			names = append(names, c.name)
		}
		return names
	}
	c := sh.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	args := before[1:]
	switch before[0] {
	case "help":
		if len(args) == 0 {
			return sh.candidates(nil, word)
		}
	case "list":
		if len(args) == 0 {
			return listKinds()
		}
	case "tasks":
		if len(args) == 0 {
			return []string{"list", "get", "cancel", "result"}
		}
	case "read", "subscribe":
		var uris []string
		for _, r := range c.resources {
			uris = append(uris, r.URI)
		}
		return uris
	case "describe":
		switch {
		case len(args) == 0:
			return []string{"tool", "prompt", "resource"}
		case len(args) == 1:
			return c.names(args[0])
		}
	case "complete":
		switch {
		case len(args) == 0:
			return []string{"prompt", "template"}
		case len(args) == 1 && args[0] == "prompt":
			return c.names("prompt")
		case len(args) == 1 && args[0] == "template":
			var uris []string
			for _, t := range c.templates {
				uris = append(uris, t.URITemplate)
			}
			return uris
		case args[0] == "prompt":
			return promptKeys(c.prompt(args[1]), args[2:])
		}
	case "call":
		if len(args) == 0 {
			return c.names("tool")
		}
		tool := findTool(c.tools, args[0])
		if tool == nil {
			return nil
		}
		if key, _, ok := strings.Cut(word, "="); ok {
			var vals []string
			for _, v := range enumValues(tool.InputSchema, key) {
				vals = append(vals, key+"="+v)
			}
			return vals
		}
		props, _ := schema.Properties(tool.InputSchema)
		var keys []string
		for _, p := range props {
			if !given(args[1:], p.Name) {
				keys = append(keys, p.Name+"=")
			}
		}
		return keys
	case "prompt":
		if len(args) == 0 {
			return c.names("prompt")
		}
		return promptKeys(c.prompt(args[0]), args[1:])
	}
	return nil
}

// names are the names of the tools, prompts or resources (by URI).
func (c *shellCache) names(kind string) []string {
	var names []string
	switch kind {
	case "tool":
		for _, t := range c.tools {
			names = append(names, t.Name)
		}
	case "prompt":
		for _, p := range c.prompts {
			names = append(names, p.Name)
		}
	case "resource":
		for _, r := range c.resources {
			names = append(names, r.URI)
		}
	}
	return names
}

func (c *shellCache) prompt(name string) *client.Prompt {
	for i := range c.prompts {
		if c.prompts[i].Name == name {
			return &c.prompts[i]
		}
	}
	return nil
}

// promptKeys are the argument keys of p not given yet.
func promptKeys(p *client.Prompt, args []string) []string {
	if p == nil {
		return nil
	}
	var keys []string
	for _, a := range p.Arguments {
		if !given(args, a.Name) {
			keys = append(keys, a.Name+"=")
		}
	}
	return keys
}

// given reports whether args hold key=… or key:=….
func given(args []string, key string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, key+"=") || strings.HasPrefix(a, key+":=") {
			return true
		}
	}
	return false
}

// enumValues are the values the property key of an input schema allows,
// as typed on a command line: its enum (or its items' enum, for an
// array), or true and false for a boolean.
func enumValues(inputSchema json.RawMessage, key string) []string {
	var sch struct {
		Properties map[string]struct {
			Type  any   `json:"type"`
			Enum  []any `json:"enum"`
			Items *struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		} `json:"properties"`
	}
	if json.Unmarshal(inputSchema, &sch) != nil {
		return nil
	}
	p, ok := sch.Properties[key]
	if !ok {
		return nil
	}
	enum := p.Enum
	if enum == nil && p.Items != nil {
		enum = p.Items.Enum
	}
	if enum == nil && p.Type == "boolean" {
		return []string{"true", "false"}
	}
	var vals []string
	for _, v := range enum {
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		vals = append(vals, shellQuote(s))
	}
	return vals
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a line of the shell when it needs quoting.
func shellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// matching are the candidates that start with word, sorted, once each.
func matching(cands []string, word string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, word) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// secretKey matches argument keys that hold secrets.
var secretKey = regexp.MustCompile(`(?i)(^|[^a-z])(token|secret|passw(or)?d|pwd|api[-_]?key|apikey|auth|credential|private[-_]?key|session[-_]?id|cookie)`)

// keepInHistory says whether a line may be saved to the history file: not
// when an argument's key names a secret (token=, password:=, api_key=…),
// a JSON object's key does (--args '{"secret": …}'), or a value is a
// bearer credential.
func keepInHistory(line string) bool {
	words, err := splitWords(line)
	if err != nil {
		words = strings.Fields(line)
	}
	for _, w := range words {
		key, value, isArg := strings.Cut(w, "=")
		if isArg && secretKey.MatchString(strings.TrimSuffix(key, ":")) {
			return false
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(value)), "bearer ") || strings.EqualFold(w, "bearer") {
			return false
		}
		for _, m := range jsonKey.FindAllStringSubmatch(w, -1) {
			if secretKey.MatchString(m[1]) {
				return false
			}
		}
	}
	return true
}

// jsonKey finds the keys of JSON objects in a word.
var jsonKey = regexp.MustCompile(`"([^"\\]*)"\s*:`)
