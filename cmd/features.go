package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/auth"
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
	cf := &clientFeatures{Capabilities: map[string]any{}, Handlers: map[string]client.RequestHandler{}}
	p := f.prompter(o)
	if len(o.Roots) > 0 {
		var list []client.Root
		for _, dir := range o.Roots {
			r, err := client.RootFromDir(dir)
			if err != nil {
				return nil, flagErrorf("--root: %v", err)
			}
			list = append(list, r)
		}
		roots := client.NewRoots(list)
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

// prompter asks the person at the terminal: one question at a time, since
// the server may ask several things at once.
type prompter struct {
	f           *Factory
	server      string
	interactive bool // stdin and stderr are a terminal
	ci          bool // CI=true: no one to consent, no browser
	mu          sync.Mutex
	open        func(url string) error
}

func (f *Factory) prompter(o *ServerOptions) *prompter {
	ios := f.IOStreams
	ci, _ := f.LookupEnv("CI")
	return &prompter{f: f, server: o.describe(), interactive: ios.IsStdinTTY() && ios.IsStderrTTY(),
		ci: strings.EqualFold(ci, "true"), open: auth.BrowserOpener(f.LookupEnv)}
}

func (p *prompter) out() io.Writer { return p.f.IOStreams.ErrOut }

// ask prints question and reads one line; io.EOF (Ctrl-D) is an error.
func (p *prompter) ask(question string) (string, error) {
	fmt.Fprint(p.out(), question)
	line, err := readLine(p.f.IOStreams.In)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		fmt.Fprintln(p.out())
		return "", io.EOF
	}
	return line, err
}

// show is server-supplied text made safe for the terminal.
func show(s string) string { return render.Sanitize(s) }

// sample shows a sampling request and lets the user type the answer: the
// text, then the model name; an empty answer declines.
func (p *prompter) sample(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemPrompt     string `json:"systemPrompt"`
		MaxTokens        int    `json:"maxTokens"`
		ModelPreferences *struct {
			Hints []struct {
				Name string `json:"name"`
			} `json:"hints"`
			CostPriority         *float64 `json:"costPriority"`
			SpeedPriority        *float64 `json:"speedPriority"`
			IntelligencePriority *float64 `json:"intelligencePriority"`
		} `json:"modelPreferences"`
	}
	if err := json.Unmarshal(params, &req); err != nil {
		return nil, &client.RPCError{Code: client.CodeInvalidParams, Message: "sampling/createMessage params: " + err.Error()}
	}
	w := p.out()
	fmt.Fprintf(w, "\n%s asks for an LLM completion (sampling):\n", p.server)
	if req.SystemPrompt != "" {
		fmt.Fprintf(w, "  system: %s\n", show(req.SystemPrompt))
	}
	for _, m := range req.Messages {
		fmt.Fprintf(w, "  %s: %s\n", show(m.Role), show(contentText(m.Content)))
	}
	if mp := req.ModelPreferences; mp != nil {
		var parts []string
		for _, h := range mp.Hints {
			parts = append(parts, "hint "+show(h.Name))
		}
		for _, pr := range []struct {
			name string
			v    *float64
		}{{"cost", mp.CostPriority}, {"speed", mp.SpeedPriority}, {"intelligence", mp.IntelligencePriority}} {
			if pr.v != nil {
				parts = append(parts, fmt.Sprintf("%s %g", pr.name, *pr.v))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  model preferences: %s\n", strings.Join(parts, ", "))
		}
	}
	fmt.Fprintf(w, "  max tokens: %d\n", req.MaxTokens)
	text, err := p.ask("Answer (an empty line declines): ")
	if err != nil || strings.TrimSpace(text) == "" {
		return nil, client.DeclineSampling()
	}
	model, err := p.ask("Model name [human]: ")
	if err != nil {
		return nil, client.DeclineSampling()
	}
	if model = strings.TrimSpace(model); model == "" {
		model = "human"
	}
	return json.Marshal(map[string]any{"role": "assistant", "model": model, "stopReason": "endTurn",
		"content": map[string]any{"type": "text", "text": text}})
}

// contentText shows a sampling message's content: text as it is, other
// blocks by their type.
func contentText(raw json.RawMessage) string {
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		blocks = []json.RawMessage{raw}
	}
	var parts []string
	for _, b := range blocks {
		var c struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(b, &c)
		if c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			parts = append(parts, "["+c.Type+"]")
		}
	}
	return strings.Join(parts, " ")
}

// form asks for a form's fields one by one, each answer checked before
// the next: Enter keeps a default (or leaves an optional field out), and
// the first question offers decline and cancel.
func (p *prompter) form(ctx context.Context, req *client.ElicitRequest) (client.ElicitResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.out()
	fmt.Fprintf(w, "\n%s asks for input: %s\n", p.server, show(req.Message))
	for {
		choice, err := p.ask("Fill in the form? [Y]es, [d]ecline, [c]ancel: ")
		if err != nil {
			return client.ElicitResult{Action: "cancel"}, nil
		}
		switch strings.ToLower(strings.TrimSpace(choice)) {
		case "", "y", "yes":
		case "d", "decline":
			return client.ElicitResult{Action: "decline"}, nil
		case "c", "cancel":
			return client.ElicitResult{Action: "cancel"}, nil
		default:
			continue
		}
		break
	}
	content := map[string]any{}
	for _, fld := range req.Fields {
		fmt.Fprintf(w, "%s\n", fieldLine(fld))
		for {
			line, err := p.ask("> ")
			if err != nil {
				return client.ElicitResult{Action: "cancel"}, nil
			}
			if strings.TrimSpace(line) == "" {
				if fld.HasDefault {
					content[fld.Name] = fld.Default
					break
				}
				if !fld.Required {
					break
				}
				fmt.Fprintln(w, "  required: type a value (Ctrl-D cancels the form)")
				continue
			}
			v, err := fld.Parse(line)
			if err != nil {
				fmt.Fprintf(w, "  %v\n", err)
				continue
			}
			content[fld.Name] = v
			break
		}
	}
	return client.ElicitResult{Action: "accept", Content: content}, nil
}

// fieldLine describes a form field: name (title), type with format or
// range, required mark, choices, default and description.
func fieldLine(fld client.FormField) string {
	var b strings.Builder
	b.WriteString(show(fld.Name))
	if fld.Required {
		b.WriteString("*")
	}
	if fld.Title != "" && fld.Title != fld.Name {
		fmt.Fprintf(&b, " (%s)", show(fld.Title))
	}
	typ := fld.Type
	if typ == "" {
		typ = "string"
	}
	var notes []string
	switch {
	case fld.Multi:
		notes = append(notes, "choose one or more, comma-separated")
	case len(fld.Options) > 0:
		notes = append(notes, "choose one")
	default:
		notes = append(notes, typ)
	}
	if fld.Format != "" {
		notes = append(notes, show(fld.Format))
	}
	if fld.Minimum != nil || fld.Maximum != nil {
		lo, hi := "", ""
		if fld.Minimum != nil {
			lo = fmt.Sprint(*fld.Minimum)
		}
		if fld.Maximum != nil {
			hi = fmt.Sprint(*fld.Maximum)
		}
		notes = append(notes, lo+".."+hi)
	}
	if fld.Required {
		notes = append(notes, "required")
	}
	fmt.Fprintf(&b, " [%s]", strings.Join(notes, ", "))
	if fld.Description != "" {
		b.WriteString(": " + show(fld.Description))
	}
	for i, o := range fld.Options {
		fmt.Fprintf(&b, "\n  %d) %s", i+1, show(o.Value))
		if o.Title != "" {
			fmt.Fprintf(&b, " — %s", show(o.Title))
		}
	}
	if fld.HasDefault {
		d, _ := json.Marshal(fld.Default)
		fmt.Fprintf(&b, "\n  Enter keeps the default %s", show(string(d)))
	} else if !fld.Required {
		b.WriteString("\n  Enter leaves it out")
	}
	return b.String()
}

// openURL answers a URL-mode elicitation: it shows the URL and, at a
// terminal outside CI, asks for consent before opening it in the browser
// (the spec's MUSTs: show the full URL, no prefetching, consent first).
// Elsewhere the URL is printed for the user to open and the request
// declined.
func (p *prompter) openURL(ctx context.Context, req *client.ElicitRequest) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.out()
	fmt.Fprintf(w, "\n%s asks you to open a URL: %s\n  %s\n", p.server, show(req.Message), show(req.URL))
	if !p.interactive || p.ci {
		fmt.Fprintln(w, "mcpctl: not opening it here (no terminal, or CI=true): declined; open it yourself if you trust it")
		return "decline", nil
	}
	answer, err := p.ask("Open it in your browser? [y/N] (d declines, c cancels): ")
	if err != nil {
		return "cancel", nil
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
	case "c", "cancel":
		return "cancel", nil
	default:
		return "decline", nil
	}
	if err := p.open(req.URL); err != nil {
		fmt.Fprintf(w, "mcpctl: %v\n", err)
		return "decline", nil
	}
	return "accept", nil
}
