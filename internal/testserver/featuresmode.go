package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The features mode: tools that need the client features — roots,
// sampling, elicitation in form and URL mode — written once as the
// 2026-07-28 multi-round-trip pattern (a result with inputRequests). The
// SDK serves them in both eras: to a modern client the inputRequests go
// out as an input_required result; to a legacy one the SDK sends them as
// roots/list, sampling/createMessage and elicitation/create requests and
// calls the tool again with the answers.
//
// Its tools:
//   - roots: "roots: URI (NAME)" per root the client exposes.
//   - sample(prompt): asks for a completion of prompt; "sampled: TEXT
//     (model M)".
//   - form: asks for name (required), age (integer 0..150, default 30)
//     and color (red or green, default red); "form: ACTION" and the
//     content as JSON.
//   - link(url): a URL-mode elicitation; "link: ACTION".
func featuresMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	s.AddTool(&mcp.Tool{Name: "roots", Description: "Lists the client's roots.", InputSchema: emptyObject()},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult); ok && res != nil {
				var lines []string
				for _, r := range res.Roots {
					lines = append(lines, fmt.Sprintf("roots: %s (%s)", r.URI, r.Name))
				}
				if len(lines) == 0 {
					lines = append(lines, "roots: none")
				}
				return text(strings.Join(lines, "\n")), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "sample", Description: "Asks the client's LLM to complete a prompt.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			switch res := req.Params.InputResponses["llm"].(type) {
			case *mcp.CreateMessageWithToolsResult:
				return text(fmt.Sprintf("sampled: %s (model %s)", contentTexts(res.Content), res.Model)), nil
			case *mcp.CreateMessageResult:
				return text(fmt.Sprintf("sampled: %s (model %s)", contentTexts([]mcp.Content{res.Content}), res.Model)), nil
			}
			var args struct {
				Prompt string `json:"prompt"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"llm": &mcp.CreateMessageParams{
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: args.Prompt}}},
				MaxTokens: 50,
			}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "form", Description: "Asks the user to fill in a form.", InputSchema: emptyObject()},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res, ok := req.Params.InputResponses["form"].(*mcp.ElicitResult); ok && res != nil {
				return text("form: " + res.Action + " " + sortedJSON(res.Content)), nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"form": &mcp.ElicitParams{
				Message: "Tell us about you",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{` +
					`"name":{"type":"string","title":"Name","minLength":1},` +
					`"age":{"type":"integer","minimum":0,"maximum":150,"default":30},` +
					`"color":{"type":"string","enum":["red","green"],"default":"red"}},` +
					`"required":["name"]}`),
			}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "link", Description: "Asks the user to open a URL.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res, ok := req.Params.InputResponses["link"].(*mcp.ElicitResult); ok && res != nil {
				return text("link: " + res.Action), nil
			}
			var args struct {
				URL string `json:"url"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"link": &mcp.ElicitParams{
				Mode: "url", Message: "Sign in to continue", URL: args.URL, ElicitationID: "link-1",
			}}}, nil
		})
	return e.exitStatus(e.serve(ctx, s))
}

// contentTexts joins the text of content blocks; other blocks show their
// kind.
func contentTexts(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		} else {
			parts = append(parts, fmt.Sprintf("%T", c))
		}
	}
	return strings.Join(parts, " ")
}

// sortedJSON encodes m with its keys in order (as json.Marshal writes
// maps), a nil map as {}.
func sortedJSON(m map[string]any) string {
	if m == nil {
		return "{}"
	}
	b, _ := json.Marshal(m)
	return string(b)
}
