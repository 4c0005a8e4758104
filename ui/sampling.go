package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// Sample answers a sampling/createMessage request with a form on the
// screen: the request's messages, and an answer the person types or loads
// from a file. It waits for the person, or for ctx (then it declines).
func (f *Feed) Sample(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	reply := make(chan sampleReply, 1)
	f.push(sampleMsg{params: params, reply: reply})
	select {
	case r := <-reply:
		return r.result, r.err
	case <-ctx.Done():
		return nil, client.DeclineSampling()
	}
}

// sampleMsg is a sampling request; reply takes the answer.
type sampleMsg struct {
	params json.RawMessage
	reply  chan<- sampleReply
}

type sampleReply struct {
	result json.RawMessage
	err    error
}

// sampleForm shows one sampling request: its messages as `mcpctl prompt`
// renders a prompt's, and two fields, the answer (text, or @FILE holding a
// CreateMessageResult) and the model named in it.
type sampleForm struct {
	msg    sampleMsg
	lines  []string // the request as shown
	answer textinput.Model
	model  textinput.Model
	focus  int
	err    string
}

func newSampleForm(st *styles, msg sampleMsg, color bool, width int) *sampleForm {
	f := &sampleForm{msg: msg, answer: newInput(st, ""), model: newInput(st, "human")}
	f.answer.Focus()
	f.lines = sampleLines(msg.params, color, width)
	return f
}

// sampleLines renders the request: system prompt, messages by role, model
// preferences and the token limit.
func sampleLines(params json.RawMessage, color bool, width int) []string {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemPrompt     string          `json:"systemPrompt"`
		MaxTokens        int             `json:"maxTokens"`
		ModelPreferences json.RawMessage `json:"modelPreferences"`
	}
	if err := json.Unmarshal(params, &req); err != nil {
		return []string{"the request's params do not decode: " + oneLine(err.Error())}
	}
	var b bytes.Buffer
	p := &render.Printer{Out: &b, ErrOut: &b, TTY: true, Color: color, Width: width}
	if req.SystemPrompt != "" {
		fmt.Fprintln(&b, "system: "+render.Sanitize(req.SystemPrompt))
	}
	msgs := make([]client.PromptMessage, 0, len(req.Messages))
	for _, m := range req.Messages {
		pm := client.PromptMessage{Role: m.Role}
		// A content array (tool use in newer revisions) shows as its JSON.
		if json.Unmarshal(m.Content, &pm.Content) != nil {
			pm.Content = client.Content{Type: "text", Text: string(m.Content)}
		}
		msgs = append(msgs, pm)
	}
	if err := p.Messages(msgs, render.ContentOptions{}); err != nil {
		fmt.Fprintln(&b, oneLine(err.Error()))
	}
	if len(req.ModelPreferences) > 0 {
		fmt.Fprintln(&b, "model preferences: "+render.Sanitize(string(req.ModelPreferences)))
	}
	fmt.Fprintf(&b, "max tokens: %d\n", req.MaxTokens)
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

func (f *sampleForm) view(st *styles, width int) []string {
	lines := []string{st.heading.Render(fit("The server asks for an LLM completion (sampling)", width)), ""}
	for _, l := range f.lines {
		lines = append(lines, fit("  "+l, width))
	}
	lines = append(lines, "")
	for i, fld := range []struct {
		label string
		in    *textinput.Model
	}{{"answer (text, or @FILE of a CreateMessageResult)", &f.answer}, {"model", &f.model}} {
		mark := "  "
		if i == f.focus {
			mark = "> "
		}
		fld.in.Width = max(10, width-6)
		lines = append(lines, fit(mark+st.key.Render(fld.label), width), fit("    "+fld.in.View(), width))
	}
	if f.err != "" {
		lines = append(lines, "", st.err.Render(fit("✗ "+f.err, width)))
	}
	return lines
}

// result is the CreateMessageResult the form answers: the file's when the
// answer is @FILE, else the text typed as the assistant's message.
func (f *sampleForm) result() (json.RawMessage, error) {
	text := f.answer.Value()
	if name, ok := strings.CutPrefix(text, "@"); ok {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		answer, err := client.SampleResults(name, data)
		if err != nil {
			return nil, err
		}
		return answer(context.Background(), f.msg.params)
	}
	model := strings.TrimSpace(f.model.Value())
	if model == "" {
		model = "human"
	}
	return json.Marshal(map[string]any{"role": "assistant", "model": model, "stopReason": "endTurn",
		"content": map[string]any{"type": "text", "text": text}})
}

// sampleKey handles a key while a sampling request waits: enter answers
// (an empty answer is not sent), ctrl+d or esc declines.
func (m *Model) sampleKey(k tea.KeyMsg) tea.Cmd {
	f := m.samples[0]
	done := func(r sampleReply, what string) {
		f.msg.reply <- r
		m.samples = m.samples[1:]
		m.addEvent(time.Now(), "sampling request "+what)
	}
	switch k.String() {
	case "esc", "ctrl+d":
		done(sampleReply{err: client.DeclineSampling()}, "declined")
	case "tab", "shift+tab", "down", "up":
		f.focus = 1 - f.focus
		f.answer.Blur()
		f.model.Blur()
		if f.focus == 0 {
			f.answer.Focus()
		} else {
			f.model.Focus()
		}
	case "enter", "ctrl+s":
		if strings.TrimSpace(f.answer.Value()) == "" {
			f.err = "type an answer, or @FILE; ctrl+d declines"
			return nil
		}
		res, err := f.result()
		if err != nil {
			f.err = oneLine(err.Error())
			return nil
		}
		done(sampleReply{result: res}, "answered")
	default:
		var cmd tea.Cmd
		if f.focus == 0 {
			f.answer, cmd = f.answer.Update(k)
		} else {
			f.model, cmd = f.model.Update(k)
		}
		f.err = ""
		return cmd
	}
	return nil
}
