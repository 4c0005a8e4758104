package client

import (
	"encoding/json"
	"fmt"
	"slices"
)

// LatestProtocolVersion is the newest revision of the legacy era, the one
// offered in initialize.
const LatestProtocolVersion = "2025-11-25"

// KnownProtocolVersions returns every revision mcpctl speaks, newest
// first: the one list of them. Every other list (the embedded official
// schemas, the test servers', the transport's [transport.StatelessRevision])
// is this one or is checked against it by a test. A fresh copy on each
// call, so a caller cannot change what the client accepts.
func KnownProtocolVersions() []string {
	return []string{ModernProtocolVersion, LatestProtocolVersion, "2025-06-18", "2025-03-26", "2024-11-05"}
}

// SupportedProtocolVersions returns every revision a server may answer
// initialize with (those of the legacy era), newest first; a fresh copy on
// each call.
func SupportedProtocolVersions() []string {
	return slices.DeleteFunc(KnownProtocolVersions(), IsModern)
}

// ModernProtocolVersions returns the modern-era revisions mcpctl speaks,
// newest first; a fresh copy on each call.
func ModernProtocolVersions() []string {
	return slices.DeleteFunc(KnownProtocolVersions(), func(v string) bool { return !IsModern(v) })
}

// batchesAllowed reports whether a protocol revision lets a JSON-RPC batch
// (an array of messages) go over the wire: only 2025-03-26 does, whose
// schema has JSONRPCBatchRequest and JSONRPCBatchResponse; 2025-06-18
// removed them, and 2024-11-05 never had them.
func batchesAllowed(version string) bool { return version == "2025-03-26" }

// The protocol types below follow the names of the MCP schema. They are
// lenient: each list item and result keeps the exact JSON it was decoded from
// in Raw, so unknown fields survive and -o json prints what the server sent.
// Schemas stay json.RawMessage.

// Implementation describes a client or server (clientInfo / serverInfo).
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
}

// InitializeResult is the server's answer to initialize.
type InitializeResult struct {
	ProtocolVersion string                     `json:"protocolVersion"`
	Capabilities    map[string]json.RawMessage `json:"capabilities"`
	ServerInfo      Implementation             `json:"serverInfo"`
	Instructions    string                     `json:"instructions,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// ToolAnnotations are hints about a tool's behaviour. They are untrusted.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool is one entry of tools/list.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// DisplayName is the name a user should see: title, then annotations.title,
// then name (server/tools.mdx).
func (t *Tool) DisplayName() string {
	switch {
	case t.Title != "":
		return t.Title
	case t.Annotations != nil && t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return t.Name
}

// Resource is one entry of resources/list.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        *int64 `json:"size,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// PromptArgument describes one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// ResourceContents is one item of resources/read contents, or the resource
// of an embedded resource content block. Exactly one of Text and Blob is set
// by a well-behaved server; Blob is base64.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// Content is one content block of a tool result or prompt message. Type is
// one of text, image, audio, resource_link, resource; unknown types are kept
// in Raw and shown as JSON.
type Content struct {
	Type string `json:"type"`
	// text. A text longer than [MaxDecodedText] bytes in JSON is not
	// decoded when the block is: Text stays empty and only TextRaw holds
	// it, so that a 100 MB text costs its size once, not twice. Use
	// [Content.TextString] for the text whatever its size; render prints
	// TextRaw without decoding it whole.
	Text string `json:"text,omitempty"`
	// TextRaw is the "text" member of a text block as the server sent it,
	// a JSON string literal with its quotes, when the block was decoded
	// from JSON; it shares the bytes of the result (no copy).
	TextRaw json.RawMessage `json:"-"`
	// image, audio: base64 data
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// resource_link
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// resource (embedded)
	Resource *ResourceContents `json:"resource,omitempty"`
	// Annotations are the block's hints to the client (any type).
	Annotations *ContentAnnotations `json:"annotations,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// ContentAnnotations are the annotations of a content block: who it is
// for, how much it matters (0 to 1) and when it last changed.
type ContentAnnotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`

	Raw json.RawMessage `json:"-"`
}

// PromptMessage is one message of a prompts/get result.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`

	Raw json.RawMessage `json:"-"`
}

// The methods below keep the decoded JSON in Raw and write it back verbatim,
// which is what makes these types lenient.

type (
	initializeResultAlias   InitializeResult
	toolAlias               Tool
	resourceAlias           Resource
	resourceTemplateAlias   ResourceTemplate
	promptAlias             Prompt
	contentAlias            Content
	callToolResultAlias     CallToolResult
	readResourceResultAlias ReadResourceResult
	getPromptResultAlias    GetPromptResult
)

// keepRaw decodes data into into and keeps data itself in raw without
// copying it: a 50 MB result then costs its size once, not twice. This is safe
// because the client decodes with json.Unmarshal from buffers it never reuses;
// do not decode these types with a json.Decoder, whose buffer is reused.
func keepRaw[A any](data []byte, into *A, raw *json.RawMessage) error {
	if err := json.Unmarshal(data, into); err != nil {
		return err
	}
	*raw = data
	return nil
}

func rawOr(raw json.RawMessage, v any) ([]byte, error) {
	if raw != nil {
		return raw, nil
	}
	return json.Marshal(v)
}

// UnmarshalJSON keeps data in Raw.
func (r *InitializeResult) UnmarshalJSON(data []byte) error {
	return keepRaw(data, (*initializeResultAlias)(r), &r.Raw)
}

// MarshalJSON writes Raw when set.
func (r InitializeResult) MarshalJSON() ([]byte, error) {
	return rawOr(r.Raw, initializeResultAlias(r))
}

// UnmarshalJSON keeps data in Raw.
func (t *Tool) UnmarshalJSON(data []byte) error { return keepRaw(data, (*toolAlias)(t), &t.Raw) }

// MarshalJSON writes Raw when set.
func (t Tool) MarshalJSON() ([]byte, error) { return rawOr(t.Raw, toolAlias(t)) }

// UnmarshalJSON keeps data in Raw.
func (r *Resource) UnmarshalJSON(data []byte) error {
	return keepRaw(data, (*resourceAlias)(r), &r.Raw)
}

// MarshalJSON writes Raw when set.
func (r Resource) MarshalJSON() ([]byte, error) { return rawOr(r.Raw, resourceAlias(r)) }

// UnmarshalJSON keeps data in Raw.
func (r *ResourceTemplate) UnmarshalJSON(data []byte) error {
	return keepRaw(data, (*resourceTemplateAlias)(r), &r.Raw)
}

// MarshalJSON writes Raw when set.
func (r ResourceTemplate) MarshalJSON() ([]byte, error) {
	return rawOr(r.Raw, resourceTemplateAlias(r))
}

// UnmarshalJSON keeps data in Raw.
func (p *Prompt) UnmarshalJSON(data []byte) error { return keepRaw(data, (*promptAlias)(p), &p.Raw) }

// MarshalJSON writes Raw when set.
func (p Prompt) MarshalJSON() ([]byte, error) { return rawOr(p.Raw, promptAlias(p)) }

// MaxDecodedText is the size, in bytes of JSON, above which a text block's
// text is left in [Content.TextRaw] rather than decoded into Content.Text.
const MaxDecodedText = 1 << 20

// UnmarshalJSON keeps data in Raw for types mcpctl does not know, and a
// text block's text in TextRaw, decoding it into Text only when it is at
// most MaxDecodedText bytes: a decoded copy of a 100 MB text would double
// what the result costs.
func (c *Content) UnmarshalJSON(data []byte) error {
	var shadow struct {
		*contentAlias
		// At a shallower depth than contentAlias.Text, so it wins.
		Text rawRef `json:"text"`
	}
	shadow.contentAlias = (*contentAlias)(c)
	if err := json.Unmarshal(data, &shadow); err != nil {
		return err
	}
	text := json.RawMessage(shadow.Text)
	if len(text) == 0 || string(text) == "null" {
		return nil
	}
	switch {
	case text[0] != '"':
		// Not a string: encoding/json says so.
	case c.Type == "text":
		c.TextRaw = text
		if len(text) > MaxDecodedText {
			return nil
		}
	}
	switch c.Type {
	case "text", "image", "audio", "resource_link", "resource":
	default:
		c.Raw = data
	}
	return json.Unmarshal(text, &c.Text)
}

// TextString returns the text of a text block: Text, or TextRaw decoded
// when Text was left empty because the text is large.
func (c *Content) TextString() (string, error) {
	if c.Text != "" || len(c.TextRaw) == 0 {
		return c.Text, nil
	}
	var s string
	if err := json.Unmarshal(c.TextRaw, &s); err != nil {
		return "", fmt.Errorf("decoding the text of a %s block: %w", c.Type, err)
	}
	return s, nil
}

// MarshalJSON writes Raw when set, and a large text from TextRaw.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Raw == nil && c.Text == "" && len(c.TextRaw) > 0 {
		return json.Marshal(struct {
			contentAlias
			Text json.RawMessage `json:"text"`
		}{contentAlias(c), c.TextRaw})
	}
	return rawOr(c.Raw, contentAlias(c))
}

// rawRef is a json.RawMessage that keeps the bytes it is decoded from
// instead of copying them (json.RawMessage copies), under the same rule as
// keepRaw.
type rawRef []byte

func (r *rawRef) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// UnmarshalJSON keeps data in Raw, and structuredContent and _meta as
// sub-slices of data: a 100 MB structuredContent is not copied.
func (r *CallToolResult) UnmarshalJSON(data []byte) error {
	var shadow struct {
		Content           []Content `json:"content"`
		StructuredContent rawRef    `json:"structuredContent"`
		IsError           bool      `json:"isError"`
		Meta              rawRef    `json:"_meta"`
	}
	if err := json.Unmarshal(data, &shadow); err != nil {
		return err
	}
	*r = CallToolResult{
		Content:           shadow.Content,
		StructuredContent: json.RawMessage(shadow.StructuredContent),
		IsError:           shadow.IsError,
		Meta:              json.RawMessage(shadow.Meta),
		Raw:               data,
	}
	return nil
}

// MarshalJSON writes Raw when set.
func (r CallToolResult) MarshalJSON() ([]byte, error) { return rawOr(r.Raw, callToolResultAlias(r)) }

// UnmarshalJSON keeps data in Raw.
func (r *ReadResourceResult) UnmarshalJSON(data []byte) error {
	return keepRaw(data, (*readResourceResultAlias)(r), &r.Raw)
}

// MarshalJSON writes Raw when set.
func (r ReadResourceResult) MarshalJSON() ([]byte, error) {
	return rawOr(r.Raw, readResourceResultAlias(r))
}

// UnmarshalJSON keeps data in Raw.
func (r *GetPromptResult) UnmarshalJSON(data []byte) error {
	return keepRaw(data, (*getPromptResultAlias)(r), &r.Raw)
}

// MarshalJSON writes Raw when set.
func (r GetPromptResult) MarshalJSON() ([]byte, error) { return rawOr(r.Raw, getPromptResultAlias(r)) }
