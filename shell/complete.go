package shell

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/client"
)

// Catalog is what the server offers, as last listed: the names tab
// completion draws on. A Catalog is not changed once made.
type Catalog struct {
	Tools     []client.Tool
	Prompts   []client.Prompt
	Resources []client.Resource
	Templates []client.ResourceTemplate
}

// Completer completes the arguments of the commands [Options.Run] runs.
type Completer interface {
	// CompleteArgs returns the words that may stand where word is being
	// typed, after args (the command's name first, then the words before
	// word), drawn from c. The shell keeps those that start with word.
	CompleteArgs(c *Catalog, args []string, word string) []string
}

// catalog holds the shell's latest [Catalog], listed when the shell starts
// and again when a list changes: completing never waits for the server.
type catalog struct {
	mu  sync.Mutex
	cur *Catalog
}

func (c *catalog) get() *Catalog {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return &Catalog{}
	}
	return c.cur
}

// refresh lists again what the server offers; a list that fails keeps its
// last value.
func (c *catalog) refresh(ctx context.Context, s Session) {
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
	next := Catalog{}
	if c.cur != nil {
		next = *c.cur
	}
	if tools != nil || err == nil {
		next.Tools = tools
	}
	if prompts != nil || err == nil {
		next.Prompts = prompts
	}
	if resources != nil || err == nil {
		next.Resources, next.Templates = resources, templates
	}
	c.cur = &next
}

// complete is the line editor's completer: the command, then what the
// command takes — a built-in command's own, or what [Options.Completer]
// offers for the commands [Options.Run] runs.
func (sh *shell) complete(line []rune, pos int) (int, []string) {
	text := string(line[:pos])
	start := strings.LastIndexAny(text, " \t") + 1
	word := text[start:]
	before, err := SplitWords(text[:start])
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
		for _, c := range sh.commands() {
			names = append(names, c.name)
		}
		return names
	}
	args := before[1:]
	switch before[0] {
	case "help":
		if len(args) == 0 {
			return sh.candidates(nil, word)
		}
		return nil
	case "subscribe":
		var uris []string
		for _, r := range sh.catalog.get().Resources {
			uris = append(uris, r.URI)
		}
		return uris
	}
	c, ok := sh.lookup(before[0])
	if !ok || !c.cli || sh.opts.Completer == nil {
		return nil
	}
	return sh.opts.Completer.CompleteArgs(sh.catalog.get(), before, word)
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
