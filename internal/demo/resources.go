package demo

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

const (
	readmeURI         = "demo://readme"
	readmeTitle       = "Demo README"
	readmeDescription = "What the demo server offers, in Markdown."
	logoURI           = "demo://logo.png"
	greetingTemplate  = "demo://greeting/{name}"
	greetingPrefix    = "demo://greeting/"
)

const readme = `# mcpctl demo server

This server runs inside mcpctl. It needs no installation and no network, and it
always gives the same answers, so it is a safe place to try every command.

## Tools

| tool | what it shows |
|---|---|
| echo, upper | plain text in, plain text out |
| add, weather, count_words | structured content checked against an output schema |
| random_number | defaults in an input schema (min, max, seed) |
| image, audio | binary content (PNG, WAV) |
| resource_link, embedded | links to resources and resources inlined in a result |
| fail | a tool error (isError: true) |
| sleep | progress notifications and cancellation |

There are twelve tools and the server sends eight per page, so listing them
takes two tools/list requests.

## Resources

- demo://readme: this document.
- demo://logo.png: a small PNG image.
- demo://greeting/{name}: a greeting for anyone, e.g. demo://greeting/Ada.

## Prompts

- review_code: asks for a code review (arguments: code, language).
- summarize: asks for a summary (arguments: text, style).
`

// resource is an entry of resources/list.
type resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int    `json:"size,omitempty"`
}

// resourceTemplate is an entry of resources/templates/list.
type resourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// resourceContents is one item of a resources/read result, and the resource
// of an embedded resource block: text or blob.
type resourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
}

// readResult is a resources/read result.
type readResult struct {
	Contents []*resourceContents `json:"contents"`
}

// resources returns the fixed resources, sorted by URI.
func resources() []resource {
	return []resource{{
		URI:         logoURI,
		Name:        "logo.png",
		Title:       "Demo logo",
		Description: "The demo server's logo, a 32x32 PNG image.",
		MIMEType:    "image/png",
	}, {
		URI:         readmeURI,
		Name:        "readme",
		Title:       readmeTitle,
		Description: readmeDescription,
		MIMEType:    "text/markdown",
		Size:        len(readme),
	}}
}

func resourceTemplates() []resourceTemplate {
	return []resourceTemplate{{
		URITemplate: greetingTemplate,
		Name:        "greeting",
		Title:       "Greeting",
		Description: "A one-line greeting for the person named in the URI.",
		MIMEType:    "text/plain",
	}}
}

// readResource answers resources/read.
func readResource(uri string) (*readResult, error) {
	switch uri {
	case readmeURI:
		return &readResult{Contents: []*resourceContents{{URI: readmeURI, MIMEType: "text/markdown", Text: readme}}}, nil
	case logoURI:
		data, err := logoPNG()
		if err != nil {
			return nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("drawing the logo: %v", err)}
		}
		return &readResult{Contents: []*resourceContents{{URI: logoURI, MIMEType: "image/png", Blob: data}}}, nil
	}
	return greeting(uri)
}

// resourceNotFound is the protocol's error for an unknown resource URI.
func resourceNotFound(uri string) *Error {
	data, _ := json.Marshal(map[string]string{"uri": uri}) // a string map always marshals
	return &Error{Code: CodeResourceNotFound, Message: "Resource not found", Data: data}
}

func greeting(uri string) (*readResult, error) {
	raw, ok := strings.CutPrefix(uri, greetingPrefix)
	name, err := url.PathUnescape(raw)
	if !ok || err != nil || name == "" || strings.Contains(name, "/") {
		return nil, resourceNotFound(uri)
	}
	return &readResult{Contents: []*resourceContents{
		{URI: uri, MIMEType: "text/plain", Text: "Hello, " + name + "! Welcome to the mcpctl demo server.\n"},
	}}, nil
}

// summaryStyles lists the styles the summarize prompt accepts; the first is
// the default.
func summaryStyles() []string { return []string{"brief", "detailed", "bullets"} }

// styleInstruction says how the summarize prompt asks for style.
func styleInstruction(style string) (string, bool) {
	switch style {
	case "brief":
		return "in one or two sentences", true
	case "detailed":
		return "in a few paragraphs, keeping every important point", true
	case "bullets":
		return "as a short bulleted list", true
	}
	return "", false
}

// prompt is an entry of prompts/list.
type prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []promptArgument `json:"arguments,omitempty"`
}

type promptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// promptResult is a prompts/get result.
type promptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []promptMessage `json:"messages"`
}

type promptMessage struct {
	Role    string      `json:"role"`
	Content textContent `json:"content"`
}

func promptText(role, s string) promptMessage {
	return promptMessage{Role: role, Content: textContent{Type: "text", Text: s}}
}

// prompts returns the prompts, sorted by name.
func prompts() []prompt {
	styles := summaryStyles()
	return []prompt{{
		Name:        "review_code",
		Title:       "Review code",
		Description: "Asks the model to review a piece of code for bugs, clarity and error handling.",
		Arguments: []promptArgument{
			{Name: "code", Title: "Code", Description: "The code to review.", Required: true},
			{Name: "language", Title: "Language", Description: "Programming language of the code, e.g. Go."},
		},
	}, {
		Name:        "summarize",
		Title:       "Summarize text",
		Description: "Asks the model to summarize a text.",
		Arguments: []promptArgument{
			{Name: "text", Title: "Text", Description: "The text to summarize.", Required: true},
			{Name: "style", Title: "Style", Description: "One of " + strings.Join(styles, ", ") + " (default " + styles[0] + ")."},
		},
	}}
}

// getPrompt answers prompts/get.
func getPrompt(name string, args map[string]string) (*promptResult, error) {
	switch name {
	case "review_code":
		return reviewCode(args)
	case "summarize":
		return summarize(args)
	}
	return nil, invalidParams("unknown prompt %q", name)
}

// missingArgument is the error for a prompt called without a required
// argument.
func missingArgument(prompt, arg string) error {
	return invalidParams("prompt %q: missing required argument %q", prompt, arg)
}

func reviewCode(args map[string]string) (*promptResult, error) {
	code := args["code"]
	if code == "" {
		return nil, missingArgument("review_code", "code")
	}
	lang := args["language"]
	what := "code"
	if lang != "" {
		what = lang + " code"
	}
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return &promptResult{
		Description: "Code review of " + what,
		Messages: []promptMessage{
			promptText("user", "Please review the following "+what+
				". Point out bugs, unclear names and missing error handling, most important first.\n\n"+
				fence+strings.ToLower(lang)+"\n"+code+"\n"+fence),
			promptText("assistant", "I'll review the "+what+", starting with anything that is incorrect."),
		},
	}, nil
}

func summarize(args map[string]string) (*promptResult, error) {
	text := args["text"]
	if text == "" {
		return nil, missingArgument("summarize", "text")
	}
	style := args["style"]
	if style == "" {
		style = summaryStyles()[0]
	}
	instruction, ok := styleInstruction(style)
	if !ok {
		return nil, invalidParams("prompt \"summarize\": unknown style %q (want brief, detailed or bullets)", style)
	}
	return &promptResult{
		Description: "A " + style + " summary",
		Messages: []promptMessage{
			promptText("user", "Summarize the following text "+instruction+".\n\n"+text),
			promptText("assistant", "Here is the summary:"),
		},
	}, nil
}

// completeParams are the params of completion/complete.
type completeParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
}

// complete suggests values for prompt arguments and for the greeting
// template's {name}.
func complete(p completeParams) any {
	var candidates []string
	ref, arg := p.Ref, p.Argument
	switch {
	case ref.Type == "ref/prompt" && ref.Name == "review_code" && arg.Name == "language":
		candidates = []string{"Go", "JavaScript", "Python", "Rust", "Shell", "TypeScript"}
	case ref.Type == "ref/prompt" && ref.Name == "summarize" && arg.Name == "style":
		candidates = summaryStyles()
	case ref.Type == "ref/resource" && ref.URI == greetingTemplate && arg.Name == "name":
		candidates = []string{"Ada", "Alan", "Barbara", "Grace", "Ken", "Linus", "Margaret"}
	}
	values := []string{} // never null on the wire
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), strings.ToLower(arg.Value)) {
			values = append(values, c)
		}
	}
	type completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	}
	return map[string]completion{"completion": {Values: values, Total: len(values)}}
}
