package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// argForm is the form of a prompt's arguments or a resource template's
// variables: a line of text each, with the server's completions
// (completion/complete, as `mcpctl complete` asks) offered as you type.
type argForm struct {
	title  string
	prompt *client.Prompt           // a prompt's form
	tmpl   *client.ResourceTemplate // or a template's
	fields []argField
	focus  int
	// sugg are the completions of the focused field's value, asked for
	// at suggFor; pick is the one chosen with ↓/↑, -1 for none.
	sugg    []string
	suggFor string
	pick    int
	more    bool
	problem []string
}

type argField struct {
	name, desc string
	required   bool
	input      textinput.Model
}

func promptForm(st *styles, p *client.Prompt) *argForm {
	f := &argForm{title: "Prompt " + oneLine(p.Name), prompt: p, pick: -1}
	for _, a := range p.Arguments {
		f.fields = append(f.fields, argField{name: a.Name, desc: a.Description, required: a.Required, input: newInput(st, "")})
	}
	f.focusField(0)
	f.validate()
	return f
}

func templateForm(st *styles, t *client.ResourceTemplate) *argForm {
	f := &argForm{title: "Read " + oneLine(t.URITemplate), tmpl: t, pick: -1}
	for _, v := range render.TemplateVariables(t.URITemplate) {
		f.fields = append(f.fields, argField{name: v, required: true, input: newInput(st, "")})
	}
	f.focusField(0)
	f.validate()
	return f
}

func (f *argForm) focusField(i int) {
	if len(f.fields) == 0 {
		return
	}
	f.focus = (i + len(f.fields)) % len(f.fields)
	for j := range f.fields {
		f.fields[j].input.Blur()
	}
	f.fields[f.focus].input.Focus()
	f.sugg, f.pick, f.more = nil, -1, false
}

// values are the fields filled in.
func (f *argForm) values() map[string]string {
	v := map[string]string{}
	for _, fld := range f.fields {
		if s := fld.input.Value(); s != "" {
			v[fld.name] = s
		}
	}
	return v
}

func (f *argForm) validate() {
	f.problem = f.problem[:0]
	for _, fld := range f.fields {
		if fld.required && fld.input.Value() == "" {
			f.problem = append(f.problem, "/"+oneLine(fld.name)+": required")
		}
	}
}

// uri is the template expanded with the values given (RFC 6570).
func (f *argForm) uri() (string, error) {
	t, err := uritemplate.New(f.tmpl.URITemplate)
	if err != nil {
		return "", fmt.Errorf("the URI template does not parse: %w", err)
	}
	vars := uritemplate.Values{}
	for k, v := range f.values() {
		vars.Set(k, uritemplate.String(v))
	}
	return t.Expand(vars)
}

func (f *argForm) view(st *styles, width int) []string {
	lines := []string{st.heading.Render(fit(f.title, width)), ""}
	for i := range f.fields {
		fld := &f.fields[i]
		mark := "  "
		if i == f.focus {
			mark = "> "
		}
		label := oneLine(fld.name)
		if fld.required {
			label += "*"
		}
		lines = append(lines, fit(mark+st.key.Render(label), width))
		fld.input.Width = max(10, width-6)
		lines = append(lines, fit("    "+fld.input.View(), width))
		if fld.desc != "" {
			lines = append(lines, st.dim.Render(fit("    "+oneLine(fld.desc), width)))
		}
		if i == f.focus && len(f.sugg) > 0 {
			for j, s := range f.sugg {
				if j == 8 {
					lines = append(lines, st.dim.Render(fmt.Sprintf("      … %d more", len(f.sugg)-j)))
					break
				}
				if j == f.pick {
					lines = append(lines, st.cursor.Render(fit("    ▸ "+oneLine(s), width)))
				} else {
					lines = append(lines, fit("      "+oneLine(s), width))
				}
			}
			if f.more {
				lines = append(lines, st.dim.Render("      (the server has more)"))
			}
		}
	}
	if f.tmpl != nil {
		if u, err := f.uri(); err == nil {
			lines = append(lines, "", fit("  URI: "+oneLine(u), width))
		}
	}
	lines = append(lines, "")
	if len(f.problem) == 0 {
		lines = append(lines, st.ok.Render("✓ valid"))
	}
	for _, p := range f.problem {
		lines = append(lines, st.err.Render(fit("✗ "+p, width)))
	}
	return lines
}

// completedMsg is the server's completions of a field's value.
type completedMsg struct {
	form   *argForm
	field  int
	value  string
	values []string
	more   bool
	err    error
}

// complete asks the server to complete the focused field's value, the
// other fields given as context, when it declared completions.
func (m *Model) complete(f *argForm) tea.Cmd {
	if m.sess == nil || !m.sess.HasCapability("completions") || len(f.fields) == 0 {
		return nil
	}
	fld := f.fields[f.focus]
	value := fld.input.Value()
	var ref client.CompletionRef
	if f.prompt != nil {
		ref = client.PromptRef(f.prompt.Name)
	} else {
		ref = client.TemplateRef(f.tmpl.URITemplate)
	}
	given := f.values()
	delete(given, fld.name)
	ctx, s, field, name := m.ctx, m.sess, f.focus, fld.name
	return func() tea.Msg {
		res, err := s.Complete(ctx, ref, name, value, given)
		msg := completedMsg{form: f, field: field, value: value, err: err}
		if err == nil {
			msg.values = res.Completion.Values
			msg.more = res.Completion.HasMore || (res.Completion.Total != nil && *res.Completion.Total > len(res.Completion.Values))
		}
		return msg
	}
}

// completed shows completions still wanted: those of the form on screen,
// for the field focused, as it stands.
func (m *Model) completed(msg completedMsg) {
	f := m.argForm
	if f != msg.form || f.focus != msg.field || f.fields[f.focus].input.Value() != msg.value {
		return
	}
	if msg.err != nil {
		m.status = "completion: " + oneLine(msg.err.Error())
		return
	}
	f.sugg, f.suggFor, f.more, f.pick = msg.values, msg.value, msg.more, -1
}

// argFormKey handles a key in a prompt or template form: ↓/↑ choose a
// completion and tab takes it (else tab moves to the next field), enter
// gets the prompt or reads the resource.
func (m *Model) argFormKey(k tea.KeyMsg) tea.Cmd {
	f := m.argForm
	switch k.String() {
	case "esc":
		m.mode, m.argForm = modeBrowse, nil
		return nil
	case "enter", "ctrl+s":
		if len(f.problem) > 0 {
			m.status = fmt.Sprintf("not sent: %d problem(s) with the arguments", len(f.problem))
			return nil
		}
		return m.fetchArgForm(f)
	case "down", "up":
		if len(f.sugg) > 0 {
			d := 1
			if k.String() == "up" {
				d = -1
			}
			f.pick = max(-1, min(len(f.sugg)-1, f.pick+d))
			return nil
		}
		if k.String() == "down" {
			f.focusField(f.focus + 1)
		} else {
			f.focusField(f.focus - 1)
		}
		return m.complete(f)
	case "tab":
		if f.pick >= 0 && len(f.fields) > 0 {
			in := &f.fields[f.focus].input
			in.SetValue(f.sugg[f.pick])
			in.CursorEnd()
			f.validate()
			f.sugg, f.pick = nil, -1
			return nil
		}
		f.focusField(f.focus + 1)
		return m.complete(f)
	case "shift+tab":
		f.focusField(f.focus - 1)
		return m.complete(f)
	}
	if len(f.fields) == 0 {
		return nil
	}
	in := &f.fields[f.focus].input
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(k)
	f.validate()
	if in.Value() != before {
		return tea.Batch(cmd, m.complete(f))
	}
	return cmd
}

// fetchArgForm gets the prompt, or reads the template's resource.
func (m *Model) fetchArgForm(f *argForm) tea.Cmd {
	if f.prompt != nil {
		return m.getPrompt(f.prompt.Name, f.values())
	}
	uri, err := f.uri()
	if err != nil {
		m.status = "not read: " + oneLine(err.Error())
		return nil
	}
	return m.readResource(uri)
}

// shown is a prompt's messages or a resource's contents on screen.
type shown struct {
	title    string
	desc     string
	messages []client.PromptMessage
	blocks   []client.Content
	raw      json.RawMessage
	err      error
}

// shownMsg is a prompt got or a resource read.
type shownMsg struct{ s shown }

func (m *Model) getPrompt(name string, args map[string]string) tea.Cmd {
	if m.busy != "" {
		m.status = "a request is in flight"
		return nil
	}
	m.busy = "getting prompt " + oneLine(name) + "…"
	ctx, s := m.ctx, m.sess
	return func() tea.Msg {
		res, err := s.GetPrompt(ctx, name, args)
		sh := shown{title: "Prompt " + oneLine(name), err: err}
		if res != nil {
			sh.desc, sh.messages, sh.raw = res.Description, res.Messages, res.Raw
		}
		return shownMsg{sh}
	}
}

func (m *Model) readResource(uri string) tea.Cmd {
	if m.busy != "" {
		m.status = "a request is in flight"
		return nil
	}
	m.busy = "reading " + oneLine(uri) + "…"
	ctx, s := m.ctx, m.sess
	return func() tea.Msg {
		res, err := s.ReadResource(ctx, uri)
		sh := shown{title: "Resource " + oneLine(uri), err: err}
		if res != nil {
			// Each item of contents renders like an embedded resource
			// block, as `mcpctl read` renders it.
			for i := range res.Contents {
				sh.blocks = append(sh.blocks, client.Content{Type: "resource", Resource: &res.Contents[i]})
			}
			sh.raw = res.Raw
		}
		return shownMsg{sh}
	}
}

func (m *Model) showShown(s shown) {
	m.busy = ""
	back := modeBrowse
	if m.argForm != nil {
		back = modeArgForm
	}
	m.text = textView{title: s.title, content: &s, back: back}
	m.mode = modeText
	m.refreshText()
}

// shownLines renders a prompt as `mcpctl prompt` prints it, a resource as
// `mcpctl read` does, or the raw JSON of either.
func (m *Model) shownLines(s *shown, raw bool) []string {
	var b bytes.Buffer
	if s.err != nil {
		fmt.Fprintln(&b, m.st.err.Render("error: "+oneLine(s.err.Error())))
	}
	p := &render.Printer{Out: &b, ErrOut: &b, TTY: true, Color: m.opts.Color, Width: m.width}
	var err error
	switch {
	case s.raw == nil:
	case raw:
		var ind bytes.Buffer
		if json.Indent(&ind, s.raw, "", "  ") != nil {
			ind.Write(s.raw)
		}
		b.WriteString(render.Sanitize(ind.String()))
	case s.messages != nil:
		if s.desc != "" {
			err = p.Fields([][2]string{{"Description", s.desc}})
		}
		if err == nil {
			err = p.Messages(s.messages, render.ContentOptions{})
		}
	default:
		_, err = p.Content(s.blocks, render.ContentOptions{Bare: len(s.blocks) == 1})
	}
	if err != nil {
		fmt.Fprintln(&b, m.st.err.Render(oneLine(err.Error())))
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}
