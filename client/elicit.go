package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Elicitation answers a server's elicitation/create requests, in both eras
// (client/elicitation.mdx): without asking anyone, for scripts and CI
// (Action and Answers), or through Ask and OpenURL, which a terminal
// provides.
type Elicitation struct {
	// Action is "accept", "decline" or "cancel", the answer to every form
	// when Ask is nil.
	Action string
	// Answers are the field values sent with accept. Fields the requested
	// schema gives a default for and Answers leaves out get that default
	// (SEP-1034: clients SHOULD pre-fill defaults). Answers for fields the
	// form does not have are left out. When the result cannot satisfy the
	// form — a required field with neither answer nor default, a value
	// the field does not allow — mcpctl declines instead, and says why
	// through Warn.
	Answers map[string]any
	// Ask, when set, answers form requests (a person filling in the form).
	Ask func(ctx context.Context, req *ElicitRequest) (ElicitResult, error)
	// OpenURL, when set, answers URL-mode requests with the action to
	// send: it shows the URL, asks for consent and opens it, or declines.
	// Without it such requests are refused (-32602).
	OpenURL func(ctx context.Context, req *ElicitRequest) (action string, err error)
	// DeclareURL declares URL mode (with OpenURL set): only where someone
	// can consent and a browser can open, since an OpenURL that can only
	// print the URL and decline is no answer worth declaring.
	DeclareURL bool
	// Warn, when set, receives one line for each form declined because
	// the answers given cannot satisfy it.
	Warn func(msg string)
}

// ElicitRequest is an elicitation/create request as mcpctl reads it.
type ElicitRequest struct {
	// Mode is "form" (also when the server sent none) or "url".
	Mode    string
	Message string
	// URL and ElicitationID are those of a URL-mode request.
	URL           string
	ElicitationID string
	// Fields are the form's fields, in the order of the requested schema.
	Fields []FormField
}

// ElicitResult is the answer to an elicitation request.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// FormField is one property of a form's requestedSchema: a string, number,
// integer or boolean, a single choice (enum, oneOf of consts) or a
// multiple choice (an array of such), with the constraints the spec lets a
// form carry.
type FormField struct {
	Name        string
	Title       string
	Description string
	// Type is string, number, integer, boolean or array (Multi).
	Type     string
	Required bool
	// Default is the schema's default, nil when HasDefault is false.
	Default    any
	HasDefault bool
	// Options are the allowed values of a choice, with their titles.
	Options []Option
	// Multi says the field is an array of Options.
	Multi bool
	// Format is email, uri, date or date-time for a string.
	Format               string
	Pattern              string
	MinLength, MaxLength *int
	Minimum, Maximum     *float64
	MinItems, MaxItems   *int
}

// Option is one allowed value of a choice field.
type Option struct {
	Value string
	Title string // empty when the schema gives none
}

// Capability is what a client declares for elicitation: form mode, and URL
// mode when DeclareURL and OpenURL are set.
func (e *Elicitation) Capability() map[string]any {
	c := map[string]any{"form": map[string]any{}}
	if e.DeclareURL && e.OpenURL != nil {
		c["url"] = map[string]any{}
	}
	return c
}

// Handler answers elicitation/create.
func (e *Elicitation) Handler() RequestHandler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		req, err := ParseElicitRequest(params)
		if err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "elicitation/create params: " + err.Error()}
		}
		switch req.Mode {
		case "form":
		case "url":
			if e.OpenURL == nil {
				return nil, &RPCError{Code: CodeInvalidParams, Message: `elicitation mode "url" was not declared by this client (it declares form only)`}
			}
			action, err := e.OpenURL(ctx, req)
			if err != nil {
				return nil, err
			}
			return ElicitResult{Action: action}, nil
		default:
			return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q was not declared by this client", req.Mode)}
		}
		if e.Ask != nil {
			return e.Ask(ctx, req)
		}
		if e.Action != "accept" {
			return ElicitResult{Action: e.Action}, nil
		}
		content, problems := req.Fill(e.Answers)
		if len(problems) > 0 {
			if e.Warn != nil {
				e.Warn(fmt.Sprintf("declined the server's form %q: the answers cannot satisfy it: %s", oneLine(req.Message, 80), strings.Join(problems, "; ")))
			}
			return ElicitResult{Action: "decline"}, nil
		}
		return ElicitResult{Action: "accept", Content: content}, nil
	}
}

// Fill returns the content of an accepted form: each field's answer, or
// else its default. problems lists, one entry per field, those that are
// required and have neither ("missing required field name") and the
// values a field does not allow ("integer: 500 is above the maximum 100").
func (r *ElicitRequest) Fill(answers map[string]any) (content map[string]any, problems []string) {
	content = map[string]any{}
	var missing []string
	for _, f := range r.Fields {
		v, ok := answers[f.Name]
		if !ok && f.HasDefault {
			v, ok = f.Default, true
		}
		if !ok {
			if f.Required {
				missing = append(missing, f.Name)
			}
			continue
		}
		if err := f.Check(v); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", f.Name, err))
			continue
		}
		content[f.Name] = v
	}
	if len(missing) > 0 {
		word := "field"
		if len(missing) > 1 {
			word = "fields"
		}
		problems = append([]string{fmt.Sprintf("missing required %s %s (no answer and no default)", word, strings.Join(missing, ", "))}, problems...)
	}
	return content, problems
}

// elicitParams is the wire form of elicitation/create's params.
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// fieldSchema is what mcpctl reads of one property of a requestedSchema.
type fieldSchema struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	Format      string          `json:"format"`
	Pattern     string          `json:"pattern"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Enum        []any           `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []constOption   `json:"oneOf"`
	AnyOf       []constOption   `json:"anyOf"`
	Items       *fieldSchema    `json:"items"`
}

type constOption struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// ParseElicitRequest reads the params of elicitation/create. A missing
// mode is form mode; a form's properties keep the schema's order.
func ParseElicitRequest(params json.RawMessage) (*ElicitRequest, error) {
	var p elicitParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	req := &ElicitRequest{Mode: p.Mode, Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID}
	if req.Mode == "" {
		req.Mode = "form"
	}
	if req.Mode != "form" || len(p.RequestedSchema) == 0 {
		return req, nil
	}
	var sch struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &sch); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	names, err := objectKeys(sch.Properties)
	if err != nil {
		return nil, fmt.Errorf("requestedSchema.properties: %w", err)
	}
	var props map[string]fieldSchema
	if len(names) > 0 {
		if err := json.Unmarshal(sch.Properties, &props); err != nil {
			return nil, fmt.Errorf("requestedSchema.properties: %w", err)
		}
	}
	for _, name := range names {
		req.Fields = append(req.Fields, newField(name, props[name], slices.Contains(sch.Required, name)))
	}
	return req, nil
}

func newField(name string, s fieldSchema, required bool) FormField {
	f := FormField{Name: name, Title: s.Title, Description: s.Description, Type: s.Type, Required: required,
		Format: s.Format, Pattern: s.Pattern, MinLength: s.MinLength, MaxLength: s.MaxLength,
		Minimum: s.Minimum, Maximum: s.Maximum, MinItems: s.MinItems, MaxItems: s.MaxItems}
	if len(s.Default) > 0 && string(s.Default) != "null" {
		d := json.NewDecoder(bytes.NewReader(s.Default))
		if d.Decode(&f.Default) == nil {
			f.HasDefault = true
		}
	}
	choices := s
	if s.Type == "array" && s.Items != nil {
		f.Multi = true
		choices = *s.Items
	}
	for i, v := range choices.Enum {
		o := Option{Value: fmt.Sprint(v)}
		if i < len(choices.EnumNames) {
			o.Title = choices.EnumNames[i]
		}
		f.Options = append(f.Options, o)
	}
	for _, c := range append(choices.OneOf, choices.AnyOf...) {
		if c.Const != nil {
			f.Options = append(f.Options, Option{Value: fmt.Sprint(c.Const), Title: c.Title})
		}
	}
	return f
}

// Check reports whether v is a value the field allows, and if not why, in
// words a user can act on.
func (f FormField) Check(v any) error {
	if f.Multi {
		list, ok := v.([]any)
		if !ok {
			if ss, isStrings := v.([]string); isStrings {
				for _, s := range ss {
					list = append(list, s)
				}
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("want a list of choices, got %s", describeValue(v))
		}
		if f.MinItems != nil && len(list) < *f.MinItems {
			return fmt.Errorf("choose at least %d", *f.MinItems)
		}
		if f.MaxItems != nil && len(list) > *f.MaxItems {
			return fmt.Errorf("choose at most %d", *f.MaxItems)
		}
		for _, item := range list {
			if err := f.checkChoice(item); err != nil {
				return err
			}
		}
		return nil
	}
	if len(f.Options) > 0 {
		return f.checkChoice(v)
	}
	switch f.Type {
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false, got %s", describeValue(v))
		}
	case "number", "integer":
		n, ok := number(v)
		if !ok {
			return fmt.Errorf("want a number, got %s", describeValue(v))
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return fmt.Errorf("want a whole number, got %v", n)
		}
		if f.Minimum != nil && n < *f.Minimum {
			return fmt.Errorf("%v is below the minimum %v", n, *f.Minimum)
		}
		if f.Maximum != nil && n > *f.Maximum {
			return fmt.Errorf("%v is above the maximum %v", n, *f.Maximum)
		}
	default: // string, or a schema without a type: text
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want text, got %s", describeValue(v))
		}
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength {
			return fmt.Errorf("want at least %d characters, got %d", *f.MinLength, n)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return fmt.Errorf("want at most %d characters, got %d", *f.MaxLength, n)
		}
		if f.Pattern != "" {
			// A pattern Go cannot compile (ECMA-only syntax) is not held
			// against the answer: the server checks it anyway.
			if re, err := regexp.Compile(f.Pattern); err == nil && !re.MatchString(s) {
				return fmt.Errorf("%q does not match the pattern %s", s, f.Pattern)
			}
		}
		if err := checkFormat(f.Format, s); err != nil {
			return err
		}
	}
	return nil
}

func (f FormField) checkChoice(v any) error {
	s, ok := v.(string)
	if !ok {
		if n, isNum := number(v); isNum {
			s, ok = strconv.FormatFloat(n, 'f', -1, 64), true
		} else if b, isBool := v.(bool); isBool {
			s, ok = strconv.FormatBool(b), true
		}
	}
	if ok {
		for _, o := range f.Options {
			if o.Value == s {
				return nil
			}
		}
	}
	values := make([]string, len(f.Options))
	for i, o := range f.Options {
		values[i] = o.Value
	}
	return fmt.Errorf("%s is not one of %s", describeValue(v), strings.Join(values, ", "))
}

// Parse turns text typed for the field into its value, checked: a number
// for number and integer, yes/no (y, true, 1, …) for boolean, an option's
// value, title or 1-based index for a choice, and a comma-separated list
// of those for a multiple choice.
func (f FormField) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	var v any
	switch {
	case f.Multi:
		list := []any{}
		for _, part := range strings.Split(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				list = append(list, f.option(part))
			}
		}
		v = list
	case len(f.Options) > 0:
		v = f.option(text)
	case f.Type == "boolean":
		switch strings.ToLower(text) {
		case "y", "yes", "true", "1", "on":
			v = true
		case "n", "no", "false", "0", "off":
			v = false
		default:
			return nil, fmt.Errorf("want yes or no, got %q", text)
		}
	case f.Type == "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want a whole number, got %q", text)
		}
		v = n
	case f.Type == "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, fmt.Errorf("want a number, got %q", text)
		}
		v = n
	default:
		v = text
	}
	if err := f.Check(v); err != nil {
		return nil, err
	}
	return v, nil
}

// option finds the option text names (its value, its title, or its 1-based
// index); text itself when none matches, for Check to refuse.
func (f FormField) option(text string) string {
	for _, o := range f.Options {
		if o.Value == text {
			return o.Value
		}
	}
	for _, o := range f.Options {
		if o.Title != "" && strings.EqualFold(o.Title, text) {
			return o.Value
		}
	}
	if i, err := strconv.Atoi(text); err == nil && i >= 1 && i <= len(f.Options) {
		return f.Options[i-1].Value
	}
	return text
}

func checkFormat(format, s string) error {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return fmt.Errorf("%q is not an email address", s)
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return fmt.Errorf("%q is not an absolute URI", s)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("%q is not a date-time (RFC 3339, e.g. 2026-01-02T15:04:05Z)", s)
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func describeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	case bool:
		return "the boolean " + strconv.FormatBool(v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	if n, ok := number(v); ok {
		return "the number " + strconv.FormatFloat(n, 'f', -1, 64)
	}
	return fmt.Sprintf("%v", v)
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return s
}

// objectKeys returns the member names of the JSON object raw, in order;
// none for an empty or null raw.
func objectKeys(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
