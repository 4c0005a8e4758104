package testserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The long-names mode: a surface named the way server-everything names
// things, for the golden tables of mcpctl list at 80 and 200 columns.
// Tool names are long and kebab-case, titles mostly restate them
// ("Toggle Simulated Logging"), descriptions run to a sentence or two,
// and some tools have several optional arguments; resource URIs are long
// too. Every tool answers with its name; the surface is the point.
//
// Tools: echo, get-sum, get-env, get-tiny-image, get-annotated-message,
// get-resource-links, get-structured-content, gzip-file-as-resource,
// toggle-simulated-logging, toggle-subscriber-updates,
// trigger-long-running-operation, trigger-sampling-request,
// trigger-elicitation-request. Prompts: simple-prompt, args-prompt,
// resource-prompt. Resources: two static documents and one template.
func longNamesMode(ctx context.Context, e *env) int {
	s := newServer("long-names", nil)
	for _, t := range longNameTools() {
		name := t.Name
		s.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(name), nil
		})
	}
	for _, r := range []*mcp.Resource{
		{URI: "demo://resource/static/document/architecture.md", Name: "architecture.md", Title: "Architecture", MIMEType: "text/markdown",
			Description: "The architecture of the example server: transports, handlers and the order in which they run."},
		{URI: "demo://resource/static/document/extension.md", Name: "extension.md", MIMEType: "text/markdown",
			Description: "How to extend the example server with tools, resources and prompts of your own."},
	} {
		uri := r.URI
		s.AddResource(r, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: "# " + uri}}}, nil
		})
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "demo://resource/dynamic/text/{resourceId}", Name: "Dynamic Text Resource",
		MIMEType: "text/plain", Description: "Plain text resources generated on request, one for every resource id."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: req.Params.URI}}}, nil
		})
	answer := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt"}}}}, nil
	}
	s.AddPrompt(&mcp.Prompt{Name: "simple-prompt", Title: "Simple Prompt", Description: "A prompt with no arguments."}, answer)
	s.AddPrompt(&mcp.Prompt{Name: "args-prompt", Title: "Arguments Prompt", Description: "A prompt with two arguments, one required and one optional.",
		Arguments: []*mcp.PromptArgument{
			{Name: "city", Description: "Name of the city", Required: true},
			{Name: "state", Description: "Name of the state or province"},
		}}, answer)
	s.AddPrompt(&mcp.Prompt{Name: "resource-prompt", Description: "A prompt that embeds the resource of the given type and id in its messages.",
		Arguments: []*mcp.PromptArgument{
			{Name: "resourceType", Description: "Type of resource to fetch: Text or Blob", Required: true},
			{Name: "resourceId", Description: "Id of the resource to fetch", Required: true},
		}}, answer)
	return e.exitStatus(e.serve(ctx, s))
}

// longNameTools are the long-names mode's tools.
func longNameTools() []*mcp.Tool {
	tool := func(name, title, desc, schema string) *mcp.Tool {
		if schema == "" {
			schema = `{"type":"object"}`
		}
		return &mcp.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema)}
	}
	return []*mcp.Tool{
		tool("echo", "Echo Tool", "Echoes back the input string.",
			`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
		tool("get-sum", "Get Sum", "Returns the sum of two numbers.",
			`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		tool("get-env", "Print Environment Tool", "Returns all environment variables of the server process, helpful for debugging MCP server configuration.", ""),
		tool("get-tiny-image", "Get Tiny Image", "Returns a tiny MCP logo image.", ""),
		tool("get-annotated-message", "Get Annotated Message", "Demonstrates how annotations can be used to provide metadata about content.",
			`{"type":"object","properties":{"messageType":{"type":"string","enum":["error","success","debug"]},"includeImage":{"type":"boolean"}},"required":["messageType"]}`),
		tool("get-resource-links", "Get Resource Links", "Returns up to ten resource links that reference different types of resources.",
			`{"type":"object","properties":{"count":{"type":"integer","minimum":1,"maximum":10}}}`),
		tool("get-structured-content", "Get Structured Content", "Returns structured content along with an output schema for client data validation.",
			`{"type":"object","properties":{"location":{"type":"string","enum":["New York","Chicago","Los Angeles"]}},"required":["location"]}`),
		tool("gzip-file-as-resource", "GZip File as Resource", "Compresses a single file using gzip compression. Depending upon the selected output type, returns either the compressed data as a gzipped resource or a resource link, allowing it to be downloaded in a subsequent request during the current session.",
			`{"type":"object","properties":{"name":{"type":"string"},"data":{"type":"string","format":"uri"},"outputType":{"type":"string","enum":["resourceLink","resource"]}},"required":["name","data"]}`),
		tool("toggle-simulated-logging", "Toggle Simulated Logging", "Toggles simulated, random-leveled logging on or off.", ""),
		tool("toggle-subscriber-updates", "Toggle Subscriber Updates", "Toggles simulated resource subscription updates on or off.", ""),
		tool("trigger-long-running-operation", "Trigger Long Running Operation", "Demonstrates a long running operation with progress updates.",
			`{"type":"object","properties":{"duration":{"type":"number","default":10},"steps":{"type":"number","default":5}}}`),
		tool("trigger-sampling-request", "Trigger Sampling Request", "Trigger a Request from the Server for LLM Sampling.",
			`{"type":"object","properties":{"prompt":{"type":"string"},"maxTokens":{"type":"number","default":100}},"required":["prompt"]}`),
		tool("trigger-elicitation-request", "Trigger Elicitation Request", "Trigger a Request from the Server for User Elicitation.", ""),
	}
}
