package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

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
