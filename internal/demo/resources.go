package demo

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

func addResources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI:         readmeURI,
		Name:        "readme",
		Title:       readmeTitle,
		Description: readmeDescription,
		MIMEType:    "text/markdown",
		Size:        int64(len(readme)),
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: readmeURI, MIMEType: "text/markdown", Text: readme},
		}}, nil
	})

	s.AddResource(&mcp.Resource{
		URI:         logoURI,
		Name:        "logo.png",
		Title:       "Demo logo",
		Description: "The demo server's logo, a 32x32 PNG image.",
		MIMEType:    "image/png",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		data, err := logoPNG()
		if err != nil {
			return nil, fmt.Errorf("drawing the logo: %w", err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: logoURI, MIMEType: "image/png", Blob: data},
		}}, nil
	})

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: greetingTemplate,
		Name:        "greeting",
		Title:       "Greeting",
		Description: "A one-line greeting for the person named in the URI.",
		MIMEType:    "text/plain",
	}, greeting)
}

func greeting(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	raw, ok := strings.CutPrefix(uri, greetingPrefix)
	name, err := url.PathUnescape(raw)
	if !ok || err != nil || name == "" || strings.Contains(name, "/") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
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

func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name:        "review_code",
		Title:       "Review code",
		Description: "Asks the model to review a piece of code for bugs, clarity and error handling.",
		Arguments: []*mcp.PromptArgument{
			{Name: "code", Title: "Code", Description: "The code to review.", Required: true},
			{Name: "language", Title: "Language", Description: "Programming language of the code, e.g. Go."},
		},
	}, reviewCode)

	styles := summaryStyles()
	s.AddPrompt(&mcp.Prompt{
		Name:        "summarize",
		Title:       "Summarize text",
		Description: "Asks the model to summarize a text.",
		Arguments: []*mcp.PromptArgument{
			{Name: "text", Title: "Text", Description: "The text to summarize.", Required: true},
			{Name: "style", Title: "Style", Description: "One of " + strings.Join(styles, ", ") + " (default " + styles[0] + ")."},
		},
	}, summarize)
}

// missingArgument is the error for a prompt called without a required
// argument; the SDK leaves that check to the handler.
func missingArgument(prompt, arg string) error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("prompt %q: missing required argument %q", prompt, arg),
	}
}

func reviewCode(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	code := req.Params.Arguments["code"]
	if code == "" {
		return nil, missingArgument("review_code", "code")
	}
	lang := req.Params.Arguments["language"]
	what := "code"
	if lang != "" {
		what = lang + " code"
	}
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return &mcp.GetPromptResult{
		Description: "Code review of " + what,
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "Please review the following " + what +
				". Point out bugs, unclear names and missing error handling, most important first.\n\n" +
				fence + strings.ToLower(lang) + "\n" + code + "\n" + fence}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "I'll review the " + what + ", starting with anything that is incorrect."}},
		},
	}, nil
}

func summarize(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	text := req.Params.Arguments["text"]
	if text == "" {
		return nil, missingArgument("summarize", "text")
	}
	style := req.Params.Arguments["style"]
	if style == "" {
		style = summaryStyles()[0]
	}
	instruction, ok := styleInstruction(style)
	if !ok {
		return nil, &jsonrpc.Error{
			Code:    jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("prompt \"summarize\": unknown style %q (want brief, detailed or bullets)", style),
		}
	}
	return &mcp.GetPromptResult{
		Description: "A " + style + " summary",
		Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "Summarize the following text " + instruction + ".\n\n" + text}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "Here is the summary:"}},
		},
	}, nil
}

// complete suggests values for prompt arguments and for the greeting
// template's {name}.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var candidates []string
	ref, arg := req.Params.Ref, req.Params.Argument
	switch {
	case ref == nil:
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
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
