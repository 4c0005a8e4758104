package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/schema"
)

// The client features: what mcpctl answers when a server asks it for roots
// (--root), an LLM completion (--sample) or user input (--elicit), in both
// eras — a legacy server sends roots/list, sampling/createMessage and
// elicitation/create as requests, a modern one asks through input_required
// rounds, and the same handlers answer both. A capability is declared only
// when its answer source is given on the command line, or when a person at
// a terminal can answer, so servers that adapt their tools to the client's
// capabilities see the truth.

// clientFeatures are the capabilities to declare and the handlers that
// answer them.
type clientFeatures struct {
	Capabilities map[string]any
	Handlers     map[string]client.RequestHandler
	// Roots are the roots answered (nil without --root): the shell changes
	// them, then calls [client.Client.NotifyRootsChanged].
	Roots *client.Roots
}

// features builds the client features o asks for. A --root that is not a
// directory, or a --sample or --elicit that cannot be read, is a usage
// error.
func (f *Factory) features(o *ServerOptions) (*clientFeatures, error) {
	if o.SurfaceFeatures {
		return f.surfaceFeatures(o)
	}
	cf := &clientFeatures{Capabilities: map[string]any{}, Handlers: map[string]client.RequestHandler{}}
	p := f.prompter(o)
	if len(o.Roots) > 0 || o.DeclareRoots {
		roots, err := rootFlags(o.Roots)
		if err != nil {
			return nil, err
		}
		cf.Roots = roots
		cf.Capabilities["roots"] = roots.Capability()
		cf.Handlers["roots/list"] = roots.Handler()
	}
	var answer client.SampleFunc
	switch {
	case o.Sample != "":
		var err error
		if answer, err = f.sampleSource(o); err != nil {
			return nil, err
		}
	case o.SampleForm != nil:
		answer = o.SampleForm
	case p.interactive:
		answer = p.sample
	}
	if answer != nil {
		checker := &schema.Checker{}
		s := &client.Sampling{Answer: answer, Warn: f.featureWarn, Check: func(res json.RawMessage) error {
			return checkDefinition(checker, "CreateMessageResult", res)
		}}
		cf.Capabilities["sampling"] = s.Capability()
		cf.Handlers["sampling/createMessage"] = s.Handler()
	}
	var el *client.Elicitation
	switch {
	case o.Elicit != "":
		var err error
		if el, err = elicitation(o.Elicit); err != nil {
			return nil, err
		}
	case o.ElicitForm != nil:
		el = &client.Elicitation{Ask: o.ElicitForm}
	case p.interactive:
		el = &client.Elicitation{Ask: p.form}
	}
	if el != nil {
		el.Warn = f.featureWarn
		el.OpenURL = p.openURL
		el.DeclareURL = p.interactive && !p.ci
		if action := el.Action; action == "decline" || action == "cancel" {
			// --elicit decline answers URL mode too, without asking.
			el.OpenURL = func(context.Context, *client.ElicitRequest) (string, error) { return action, nil }
			el.DeclareURL = false
		}
		cf.Capabilities["elicitation"] = el.Capability()
		cf.Handlers["elicitation/create"] = el.Handler()
	}
	return cf, nil
}

// surfaceCapabilities are the client capabilities snapshot and diff
// declare, on a terminal or not, and record in the snapshot: roots,
// sampling and form elicitation, the features mcpctl can answer without a
// person, so the surface is what a capable client sees. URL elicitation is
// left out: it needs a browser.
func surfaceCapabilities() map[string]any {
	return map[string]any{
		"roots":       map[string]any{"listChanged": true},
		"sampling":    map[string]any{},
		"elicitation": map[string]any{"form": map[string]any{}},
	}
}

// rootFlags are the roots of the --root folders; a folder that cannot be
// one is a usage error.
func rootFlags(dirs []string) (*client.Roots, error) {
	var list []client.Root
	for _, dir := range dirs {
		r, err := client.RootFromDir(dir)
		if err != nil {
			return nil, flagErrorf("--root: %v", err)
		}
		list = append(list, r)
	}
	return client.NewRoots(list), nil
}

// surfaceFeatures declares [surfaceCapabilities] and answers them without
// asking anyone: roots/list with the --root folders (none by default),
// sampling with --sample (declined by default), elicitation with --elicit
// (declined by default).
func (f *Factory) surfaceFeatures(o *ServerOptions) (*clientFeatures, error) {
	cf := &clientFeatures{Capabilities: surfaceCapabilities(), Handlers: map[string]client.RequestHandler{}}
	roots, err := rootFlags(o.Roots)
	if err != nil {
		return nil, err
	}
	cf.Roots = roots
	cf.Handlers["roots/list"] = cf.Roots.Handler()
	answer := client.SampleDecline()
	if o.Sample != "" {
		var err error
		if answer, err = f.sampleSource(o); err != nil {
			return nil, err
		}
	}
	s := &client.Sampling{Answer: answer, Warn: f.featureWarn}
	cf.Handlers["sampling/createMessage"] = s.Handler()
	el := &client.Elicitation{Action: "decline"}
	if o.Elicit != "" {
		var err error
		if el, err = elicitation(o.Elicit); err != nil {
			return nil, err
		}
	}
	el.Warn = f.featureWarn
	cf.Handlers["elicitation/create"] = el.Handler()
	return cf, nil
}

// featureWarn reports a request mcpctl answered with a refusal or an error
// on stderr, one line.
func (f *Factory) featureWarn(msg string) {
	fmt.Fprintln(f.IOStreams.ErrOut, "mcpctl: "+f.Redactor().String(render.Sanitize(msg)))
}

// checkDefinition validates value against the official definition def of
// the newest legacy revision (CreateMessageResult is the same in the
// modern one); the error lists the first violations.
func checkDefinition(c *schema.Checker, def string, value json.RawMessage) error {
	vs, err := c.CheckDefinition(client.LatestProtocolVersion, def, value)
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return nil
	}
	parts := make([]string, 0, 3)
	for i, v := range vs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-3))
			break
		}
		parts = append(parts, v.String())
	}
	return errors.New(strings.Join(parts, "; "))
}

// sampleSource reads --sample: @FILE (canned results, in order), exec:CMD
// (a command answers each request), or decline.
func (f *Factory) sampleSource(o *ServerOptions) (client.SampleFunc, error) {
	spec := o.Sample
	switch {
	case spec == "decline":
		return client.SampleDecline(), nil
	case strings.HasPrefix(spec, "@"):
		name := spec[1:]
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, flagErrorf("--sample: %v", err)
		}
		answer, err := client.SampleResults(name, data)
		if err != nil {
			return nil, flagErrorf("--sample: %v", err)
		}
		return answer, nil
	case strings.HasPrefix(spec, "exec:"):
		argv, err := splitWords(strings.TrimPrefix(spec, "exec:"))
		if err != nil {
			return nil, flagErrorf("--sample %s: %v", spec, err)
		}
		if len(argv) == 0 {
			return nil, flagErrorf("--sample exec: names no command (e.g. --sample 'exec:./answer.sh' or --sample 'exec:sh -c \"…\"')")
		}
		return client.SampleCommand(argv, f.environ(), o.Timeout), nil
	}
	return nil, flagErrorf("invalid --sample %q: expected @FILE (a CreateMessageResult, or NDJSON of them), exec:CMD or decline", spec)
}

// elicitation reads --elicit: accept-defaults, decline, cancel, or
// @answers.json (a JSON object of field values, accepted).
func elicitation(spec string) (*client.Elicitation, error) {
	switch spec {
	case "accept-defaults":
		return &client.Elicitation{Action: "accept"}, nil
	case "decline", "cancel":
		return &client.Elicitation{Action: spec}, nil
	}
	file, ok := strings.CutPrefix(spec, "@")
	if !ok {
		return nil, flagErrorf("invalid --elicit %q: expected accept-defaults, decline, cancel or @answers.json", spec)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, flagErrorf("--elicit: %v", err)
	}
	var answers map[string]any
	if err := json.Unmarshal(data, &answers); err != nil {
		return nil, flagErrorf("--elicit %s: want a JSON object of field values: %v", file, err)
	}
	return &client.Elicitation{Action: "accept", Answers: answers}, nil
}
