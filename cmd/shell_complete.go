package cmd

import (
	"encoding/json"
	"strings"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/shell"
)

// shellCompleter completes the arguments of the mcpctl commands the shell
// runs, from the names the shell last listed: tool, prompt and resource
// names, argument keys from the tool's inputSchema or the prompt's
// arguments, and the values a key's enum (or boolean type) allows.
type shellCompleter struct{}

// CompleteArgs implements [shell.Completer].
func (shellCompleter) CompleteArgs(c *shell.Catalog, before []string, word string) []string {
	args := before[1:]
	switch before[0] {
	case "list":
		if len(args) == 0 {
			return listKinds()
		}
	case "tasks":
		if len(args) == 0 {
			return []string{"list", "get", "cancel", "result"}
		}
	case "read":
		return catalogNames(c, "resource")
	case "describe":
		switch {
		case len(args) == 0:
			return []string{"tool", "prompt", "resource"}
		case len(args) == 1:
			return catalogNames(c, args[0])
		}
	case "complete":
		switch {
		case len(args) == 0:
			return []string{"prompt", "template"}
		case len(args) == 1 && args[0] == "prompt":
			return catalogNames(c, "prompt")
		case len(args) == 1 && args[0] == "template":
			var uris []string
			for _, t := range c.Templates {
				uris = append(uris, t.URITemplate)
			}
			return uris
		case args[0] == "prompt":
			return promptKeys(catalogPrompt(c, args[1]), args[2:])
		}
	case "call":
		if len(args) == 0 {
			return catalogNames(c, "tool")
		}
		tool := findTool(c.Tools, args[0])
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
			return catalogNames(c, "prompt")
		}
		return promptKeys(catalogPrompt(c, args[0]), args[1:])
	}
	return nil
}

// catalogNames are the names of the tools, prompts or resources (by URI).
func catalogNames(c *shell.Catalog, kind string) []string {
	var names []string
	switch kind {
	case "tool":
		for _, t := range c.Tools {
			names = append(names, t.Name)
		}
	case "prompt":
		for _, p := range c.Prompts {
			names = append(names, p.Name)
		}
	case "resource":
		for _, r := range c.Resources {
			names = append(names, r.URI)
		}
	}
	return names
}

func catalogPrompt(c *shell.Catalog, name string) *client.Prompt {
	for i := range c.Prompts {
		if c.Prompts[i].Name == name {
			return &c.Prompts[i]
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
// as typed on a line of the shell: its enum (or its items' enum, for an
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
		vals = append(vals, shell.Quote(s))
	}
	return vals
}
