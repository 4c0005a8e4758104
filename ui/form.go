package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/schema"
)

// formField is one field of a form: a line of text, or a choice among
// values (an enum, a boolean) cycled with the arrow keys.
type formField struct {
	name, typ, desc string
	required        bool
	// choices are the values of a choice field as shown; raws their JSON
	// (nil for a field of text). choice is the one chosen, -1 for none.
	choices []string
	raws    []json.RawMessage
	choice  int
	// json says the text is a JSON value (an object, an array, a type the
	// form has no input for).
	json  bool
	input textinput.Model
	// elicit is the field of an elicitation form, which parses its own
	// values.
	elicit *client.FormField
}

// value is the text of the field: its input's, or the chosen value.
func (f *formField) value() string {
	if f.raws != nil {
		if f.choice < 0 {
			return ""
		}
		return f.choices[f.choice]
	}
	return f.input.Value()
}

// form is a call form generated from a tool's inputSchema, or an
// elicitation form from a requestedSchema.
type form struct {
	title   string
	tool    *client.Tool
	sch     *schema.Schema // nil when the inputSchema does not compile
	fields  []formField
	focus   int
	problem []string // what blocks sending, shown as you type
	warn    []string // what does not (format, a schema that does not compile)
	args    map[string]any
	words   []string // the arguments as `mcpctl call` takes them
	elicit  *elicitMsg
	content map[string]any // an elicitation's answer
}

func newInput(st *styles, value string) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Cursor.Style = st.cursor
	in.SetValue(value)
	return in
}

// toolForm builds the call form of t: a field per top-level property of
// its inputSchema, required ones first, defaults filled in. prefill, when
// set, are the `key=value` words of an earlier call to edit.
func toolForm(st *styles, t *client.Tool, sch *schema.Schema, compileErr error, prefill []string) *form {
	f := &form{title: "Call " + oneLine(t.Name), tool: t, sch: sch}
	if compileErr != nil {
		f.warn = append(f.warn, "the inputSchema does not compile (arguments sent unchecked): "+oneLine(compileErr.Error()))
	}
	var props struct {
		Properties map[string]struct {
			Enum []json.RawMessage `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(t.InputSchema, &props)
	given := map[string]string{}
	for _, w := range prefill {
		if k, v, ok := strings.Cut(w, ":="); ok && !strings.Contains(k, "=") {
			given[k] = v
		} else if k, v, ok := strings.Cut(w, "="); ok {
			given[k] = v
		}
	}
	for _, sf := range render.SchemaFields(t.InputSchema) {
		if sf.Depth != 0 {
			continue
		}
		fld := formField{name: sf.Name, typ: sf.Type, desc: sf.Description, required: sf.Required, choice: -1}
		enum := props.Properties[sf.Name].Enum
		switch {
		case len(enum) > 0:
			fld.raws = enum
		case sf.Type == "boolean":
			fld.raws = []json.RawMessage{json.RawMessage("true"), json.RawMessage("false")}
		case sf.Type == "object" || strings.HasPrefix(sf.Type, "array") || strings.Contains(sf.Type, "|") || strings.HasPrefix(sf.Type, "object"):
			fld.json = true
		}
		text := sf.Default
		if v, ok := given[sf.Name]; ok {
			text = v
		}
		for _, r := range fld.raws {
			var s string
			if json.Unmarshal(r, &s) != nil {
				s = string(r)
			}
			fld.choices = append(fld.choices, s)
			if text != "" && (s == text || string(r) == text) {
				fld.choice = len(fld.choices) - 1
			}
		}
		fld.input = newInput(st, text)
		f.fields = append(f.fields, fld)
	}
	f.focusField(0)
	f.validate()
	return f
}

// elicitForm builds the form of an elicitation request.
func elicitForm(st *styles, m elicitMsg) *form {
	f := &form{title: "The server asks: " + oneLine(m.req.Message), elicit: &m}
	for i := range m.req.Fields {
		ff := &m.req.Fields[i]
		fld := formField{name: ff.Name, typ: ff.Type, desc: ff.Description, required: ff.Required, choice: -1, elicit: ff}
		if ff.Title != "" && fld.desc == "" {
			fld.desc = ff.Title
		}
		text := ""
		if ff.HasDefault {
			text = fmt.Sprint(ff.Default)
		}
		if ff.Multi {
			// A multiple choice is typed as its values separated by
			// commas, which is how its default is shown too.
			fld.typ = "array, comma-separated"
			if list, ok := ff.Default.([]any); ok {
				parts := make([]string, len(list))
				for i, v := range list {
					parts[i] = fmt.Sprint(v)
				}
				text = strings.Join(parts, ", ")
			}
		}
		if len(ff.Options) > 0 && !ff.Multi {
			for _, o := range ff.Options {
				fld.choices = append(fld.choices, o.Value)
				raw, _ := json.Marshal(o.Value)
				fld.raws = append(fld.raws, raw)
				if o.Value == text {
					fld.choice = len(fld.choices) - 1
				}
			}
		} else if ff.Type == "boolean" {
			fld.choices = []string{"true", "false"}
			fld.raws = []json.RawMessage{json.RawMessage("true"), json.RawMessage("false")}
			for i, c := range fld.choices {
				if c == text {
					fld.choice = i
				}
			}
		}
		fld.input = newInput(st, text)
		f.fields = append(f.fields, fld)
	}
	f.focusField(0)
	f.validate()
	return f
}

func (f *form) focusField(i int) {
	if len(f.fields) == 0 {
		return
	}
	i = (i + len(f.fields)) % len(f.fields)
	for j := range f.fields {
		f.fields[j].input.Blur()
	}
	f.focus = i
	f.fields[i].input.Focus()
}

// update handles a key in the form; it reports whether the key was taken.
func (f *form) update(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "tab", "down", "ctrl+n":
		f.focusField(f.focus + 1)
		return nil, true
	case "shift+tab", "up", "ctrl+p":
		f.focusField(f.focus - 1)
		return nil, true
	}
	if len(f.fields) == 0 {
		return nil, false
	}
	fld := &f.fields[f.focus]
	if fld.raws != nil {
		switch msg.String() {
		case "left", "h":
			fld.choice--
			if fld.choice < -1 {
				fld.choice = len(fld.raws) - 1
			}
		case "right", "l", " ":
			fld.choice++
			if fld.choice >= len(fld.raws) {
				fld.choice = -1
			}
		case "backspace", "delete":
			fld.choice = -1
		default:
			return nil, false
		}
		f.validate()
		return nil, true
	}
	var cmd tea.Cmd
	fld.input, cmd = fld.input.Update(msg)
	f.validate()
	return cmd, true
}

// validate checks the form as it stands, as `mcpctl call` checks its
// arguments: the same typing of key=value words and the same schema check.
func (f *form) validate() {
	if f.elicit != nil {
		f.validateElicit()
		return
	}
	f.problem = f.problem[:0]
	f.words = f.words[:0]
	for i := range f.fields {
		if w := f.fields[i].word(); w != "" {
			f.words = append(f.words, w)
		}
	}
	var mismatches []schema.Violation
	opts := schema.ArgOptions{Mismatches: &mismatches}
	var (
		args map[string]any
		err  error
	)
	if f.sch != nil {
		args, err = f.sch.ParseArgs(f.words, opts)
	} else {
		args, err = schema.ParseArgs(f.words, nil, opts)
	}
	if err != nil {
		f.problem = append(f.problem, oneLine(err.Error()))
		f.args = nil
		return
	}
	f.args = args
	if f.sch == nil {
		for _, v := range mismatches {
			f.problem = append(f.problem, oneLine(v.String()))
		}
		return
	}
	found, _ := f.sch.ValidateArgs(args, false)
	violations, format := schema.SplitFormat(schema.MergeViolations(mismatches, found))
	for _, v := range violations {
		f.problem = append(f.problem, oneLine(v.String()))
	}
	f.warn = f.warn[:0]
	for _, v := range format {
		f.warn = append(f.warn, oneLine(v.String())+" (format is an annotation: sent anyway)")
	}
}

// word is the field as an argument of `mcpctl call`: key=value typed by
// the schema, key:=json for JSON values, non-string choices, and text that
// call would otherwise read as a file (@…). Empty when the field is empty.
func (fld *formField) word() string {
	v := fld.value()
	if v == "" {
		return ""
	}
	if fld.raws != nil {
		raw := fld.raws[fld.choice]
		var s string
		if json.Unmarshal(raw, &s) == nil && !strings.HasPrefix(s, "@") {
			return fld.name + "=" + s
		}
		return fld.name + ":=" + string(raw)
	}
	if fld.json {
		return fld.name + ":=" + v
	}
	if strings.HasPrefix(v, "@") {
		q, _ := json.Marshal(v)
		return fld.name + ":=" + string(q)
	}
	return fld.name + "=" + v
}

// validateElicit checks an elicitation form field by field, as the
// requested schema's fields parse their values.
func (f *form) validateElicit() {
	f.problem = f.problem[:0]
	content := map[string]any{}
	for i := range f.fields {
		fld := &f.fields[i]
		text := fld.value()
		if text == "" {
			if fld.elicit.HasDefault {
				content[fld.name] = fld.elicit.Default
			} else if fld.required {
				f.problem = append(f.problem, fmt.Sprintf("/%s: required", oneLine(fld.name)))
			}
			continue
		}
		v, err := fld.elicit.Parse(text)
		if err != nil {
			f.problem = append(f.problem, fmt.Sprintf("/%s: %s", oneLine(fld.name), oneLine(err.Error())))
			continue
		}
		content[fld.name] = v
	}
	f.content = content
}

// view draws the form width cells wide, all of it.
func (f *form) view(st *styles, width int) []string {
	head, fields, _, _, foot := f.parts(st, width)
	return append(append(head, fields...), foot...)
}

// viewIn draws the form within height lines: when it is taller, the title
// and the verdict (valid, or what blocks sending) stay in place and the
// fields scroll to keep the focused one in sight, so that a long
// requestedSchema or inputSchema can be filled on a small terminal.
func (f *form) viewIn(st *styles, width, height int) []string {
	head, fields, from, to, foot := f.parts(st, width)
	if len(head)+len(fields)+len(foot) <= height {
		return append(append(head, fields...), foot...)
	}
	// The verdict may take at most a third of the screen; the fields
	// keep the rest, with a line each to say that more are above or below.
	foot = foot[:min(len(foot), max(2, height/3))]
	room := max(3, height-len(head)-len(foot))
	// window is the end of the fields shown from start, with the lines
	// that say more are above or below taken from the room.
	window := func(start int) int {
		avail := room
		if start > 0 {
			avail--
		}
		if start+avail >= len(fields) {
			return len(fields)
		}
		return start + avail - 1
	}
	start := 0
	for start < from && window(start) <= to {
		start++
	}
	end := window(start)
	shown := make([]string, 0, room)
	if start > 0 {
		shown = append(shown, st.dim.Render(fit(fmt.Sprintf("  ↑ %d more lines", start), width)))
	}
	shown = append(shown, fields[start:end]...)
	if end < len(fields) {
		shown = append(shown, st.dim.Render(fit(fmt.Sprintf("  ↓ %d more lines", len(fields)-end), width)))
	}
	return append(append(head, shown...), foot...)
}

// parts are the form's lines: the title, the fields (the focused one's
// lines from from to to, inclusive) and the verdict.
func (f *form) parts(st *styles, width int) (head, lines []string, from, to int, foot []string) {
	head = []string{st.heading.Render(fit(f.title, width)), ""}
	for i := range f.fields {
		fld := &f.fields[i]
		mark := "  "
		if i == f.focus {
			mark = "> "
			from = len(lines)
		}
		label := oneLine(fld.name)
		if fld.required {
			label += "*"
		}
		typ := oneLine(fld.typ)
		if fld.json {
			typ += ", JSON"
		}
		lines = append(lines, fit(mark+st.key.Render(label)+" "+st.dim.Render("("+typ+")"), width))
		var val string
		if fld.raws != nil {
			opts := make([]string, 0, len(fld.choices)+1)
			none := "(none)"
			if fld.choice == -1 {
				none = "[" + none + "]"
			}
			opts = append(opts, none)
			for j, c := range fld.choices {
				c = oneLine(c)
				if j == fld.choice {
					c = "[" + c + "]"
				}
				opts = append(opts, c)
			}
			val = strings.Join(opts, " ") + st.dim.Render("  ←/→")
		} else {
			fld.input.Width = max(10, width-6)
			val = fld.input.View()
		}
		lines = append(lines, fit("    "+val, width))
		if fld.desc != "" {
			lines = append(lines, st.dim.Render(fit("    "+oneLine(fld.desc), width)))
		}
		if i == f.focus {
			to = len(lines) - 1
		}
	}
	foot = []string{""}
	if len(f.problem) == 0 {
		foot = append(foot, st.ok.Render("✓ valid"))
	}
	for _, p := range f.problem {
		foot = append(foot, st.err.Render(fit("✗ "+p, width)))
	}
	for _, w := range f.warn {
		foot = append(foot, st.dim.Render(fit("! "+w, width)))
	}
	return head, lines, from, to, foot
}
