package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// tool is a demo tool: its definition as tools/list shows it, and what a
// call runs.
type tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  annotations     `json:"annotations"`

	call func(ctx context.Context, c *toolCall) (*toolResult, error)
}

// annotations are a tool's behaviour hints.
type annotations struct {
	ReadOnlyHint   bool `json:"readOnlyHint"`
	IdempotentHint bool `json:"idempotentHint"`
	OpenWorldHint  bool `json:"openWorldHint"`
}

// toolCall is what a tool's handler gets: arguments already checked against
// the input schema, with its defaults filled in.
type toolCall struct {
	args          map[string]any
	progressToken json.RawMessage // nil when the request carries none
	notify        Notifier        // nil drops notifications
}

// decode decodes the arguments into v, a pointer to the tool's argument
// struct.
func (c *toolCall) decode(v any) error {
	data, err := json.Marshal(c.args)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		return fmt.Errorf("decoding the arguments: %v", err)
	}
	return nil
}

// toolResult is a tools/call result.
type toolResult struct {
	Content           []any `json:"content"`
	StructuredContent any   `json:"structuredContent,omitempty"`
	IsError           bool  `json:"isError,omitempty"`
}

// Content blocks, as the protocol spells them.
type (
	textContent struct {
		Type string `json:"type"` // "text"
		Text string `json:"text"`
	}
	binaryContent struct {
		Type     string `json:"type"` // "image" or "audio"
		Data     []byte `json:"data"`
		MIMEType string `json:"mimeType"`
	}
	resourceLinkContent struct {
		Type        string `json:"type"` // "resource_link"
		URI         string `json:"uri"`
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mimeType,omitempty"`
	}
	embeddedResource struct {
		Type     string            `json:"type"` // "resource"
		Resource *resourceContents `json:"resource"`
	}
)

// toolError is the result of a call that failed: isError, with the reason
// as text, so a model can read it and try again.
func toolError(err error) *toolResult {
	res := text(err.Error())
	res.IsError = true
	return res
}

// handler adapts a handler with typed arguments to a tool's call function.
func handler[In any](h func(context.Context, *toolCall, In) (*toolResult, error)) func(context.Context, *toolCall) (*toolResult, error) {
	return func(ctx context.Context, c *toolCall) (*toolResult, error) {
		var in In
		if err := c.decode(&in); err != nil {
			return nil, err
		}
		return h(ctx, c, in)
	}
}

// tools returns the demo tools sorted by name, as tools/list sends them.
// Each call builds them anew; the input schemas are checked by
// [Server.callTool] (which fills in their defaults) before a handler runs,
// so the handlers only check what a schema cannot say.
//
// Schemas are written as JSON rather than derived from Go types so that
// tools/list shows exactly what is written here: titles, descriptions,
// bounds and defaults included.
func tools() []*tool {
	ts := []*tool{{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns the given message unchanged, as text.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"message": {"type": "string", "title": "Message", "description": "Text to send back."}
			},
			"required": ["message"],
			"additionalProperties": false
		}`),
		Annotations: readOnly(),
		call:        handler(echo),
	}, {
		Name:        "add",
		Title:       "Add two numbers",
		Description: "Adds two numbers. Returns the sum as text and as structured content {\"sum\": number}.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"a": {"type": "number", "title": "First addend"},
				"b": {"type": "number", "title": "Second addend"}
			},
			"required": ["a", "b"],
			"additionalProperties": false
		}`),
		OutputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"sum": {"type": "number", "description": "a + b"}
			},
			"required": ["sum"],
			"additionalProperties": false
		}`),
		Annotations: readOnly(),
		call:        handler(add),
	}, {
		Name:  "weather",
		Title: "Weather forecast",
		Description: "Returns a made-up but repeatable weather forecast for a city " +
			"(the same city always gets the same weather). Temperatures are in degrees Celsius. " +
			"Returns a text summary and structured content.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"city": {"type": "string", "title": "City", "description": "Name of the city.", "minLength": 1},
				"days": {"type": "integer", "title": "Days", "description": "Number of days to forecast.", "minimum": 1, "maximum": 7, "default": 1}
			},
			"required": ["city"],
			"additionalProperties": false
		}`),
		OutputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"city": {"type": "string"},
				"days": {"type": "integer"},
				"forecast": {
					"type": "array",
					"items": {
						"type": "object",
						"properties": {
							"day": {"type": "integer", "description": "1 is today."},
							"high": {"type": "integer", "description": "Highest temperature, °C."},
							"low": {"type": "integer", "description": "Lowest temperature, °C."},
							"conditions": {"type": "string"}
						},
						"required": ["day", "high", "low", "conditions"]
					}
				}
			},
			"required": ["city", "days", "forecast"]
		}`),
		Annotations: readOnly(),
		call:        handler(weather),
	}, {
		Name:        "fail",
		Title:       "Fail on purpose",
		Description: "Always fails: returns a tool error (isError: true) whose text is the given reason.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"reason": {"type": "string", "title": "Reason", "description": "Error text to return.", "default": "the demo tool failed on purpose"}
			},
			"additionalProperties": false
		}`),
		Annotations: readOnly(),
		call:        handler(fail),
	}, {
		Name:        "image",
		Title:       "Image",
		Description: "Returns a 16x16 PNG colour gradient as image content.",
		InputSchema: noArguments(),
		Annotations: readOnly(),
		call:        handler(imageTool),
	}, {
		Name:        "audio",
		Title:       "Audio",
		Description: "Returns a quarter-second 440 Hz tone (WAV, 8 kHz, 16-bit mono) as audio content.",
		InputSchema: noArguments(),
		Annotations: readOnly(),
		call:        handler(audioTool),
	}, {
		Name:        "resource_link",
		Title:       "Resource link",
		Description: "Returns a resource_link content block pointing at " + readmeURI + ".",
		InputSchema: noArguments(),
		Annotations: readOnly(),
		call:        handler(resourceLink),
	}, {
		Name:        "embedded",
		Title:       "Embedded resource",
		Description: "Returns the contents of " + readmeURI + " as an embedded resource content block.",
		InputSchema: noArguments(),
		Annotations: readOnly(),
		call:        handler(embedded),
	}, {
		Name:  "sleep",
		Title: "Sleep",
		Description: "Waits for the given number of milliseconds, then says so. Sends ten progress " +
			"notifications on the way when the request carries a progress token, and stops early when cancelled.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"ms": {"type": "integer", "title": "Milliseconds", "description": "How long to wait.", "minimum": 0, "maximum": 600000}
			},
			"required": ["ms"],
			"additionalProperties": false
		}`),
		Annotations: readOnly(),
		call:        handler(sleep),
	}, {
		Name:        "upper",
		Title:       "Upper case",
		Description: "Returns the text in upper case.",
		InputSchema: textArgument("Text to convert."),
		Annotations: readOnly(),
		call:        handler(upper),
	}, {
		Name:        "count_words",
		Title:       "Count words",
		Description: "Counts the words, lines and characters (Unicode code points) in a text. Returns a text summary and structured content.",
		InputSchema: textArgument("Text to count."),
		OutputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"words": {"type": "integer", "description": "Runs of non-space characters."},
				"lines": {"type": "integer", "description": "Lines, counting a last line without a newline."},
				"characters": {"type": "integer", "description": "Unicode code points."}
			},
			"required": ["words", "lines", "characters"],
			"additionalProperties": false
		}`),
		Annotations: readOnly(),
		call:        handler(countWords),
	}, {
		Name:  "random_number",
		Title: "Random number",
		Description: "Returns a pseudo-random integer between min and max (inclusive). " +
			"The same seed always gives the same number.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"min": {"type": "integer", "title": "Minimum", "minimum": -1000000000, "maximum": 1000000000, "default": 1},
				"max": {"type": "integer", "title": "Maximum", "minimum": -1000000000, "maximum": 1000000000, "default": 100},
				"seed": {"type": "integer", "title": "Seed", "minimum": 0, "default": 42}
			},
			"additionalProperties": false
		}`),
		Annotations: readOnly(),
		call:        handler(randomNumber),
	}}
	slices.SortFunc(ts, func(a, b *tool) int { return strings.Compare(a.Name, b.Name) })
	return ts
}

// readOnly returns the annotations every demo tool shares: none changes
// anything, calling one twice gives the same effect, and none reaches outside
// the process.
func readOnly() annotations {
	return annotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: false}
}

func noArguments() json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`)
}

func textArgument(description string) json.RawMessage {
	d, _ := json.Marshal(description) // a string always marshals
	return json.RawMessage(`{
		"type": "object",
		"properties": {
			"text": {"type": "string", "title": "Text", "description": ` + string(d) + `}
		},
		"required": ["text"],
		"additionalProperties": false
	}`)
}

// text returns a result holding one text block.
func text(s string) *toolResult {
	return &toolResult{Content: []any{textContent{Type: "text", Text: s}}}
}

type echoArgs struct {
	Message string `json:"message"`
}

func echo(_ context.Context, _ *toolCall, in echoArgs) (*toolResult, error) {
	return text(in.Message), nil
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOutput struct {
	Sum float64 `json:"sum"`
}

func add(_ context.Context, _ *toolCall, in addArgs) (*toolResult, error) {
	sum := in.A + in.B
	if math.IsInf(sum, 0) {
		return nil, fmt.Errorf("the sum of %s and %s is too large for a 64-bit float",
			formatNumber(in.A), formatNumber(in.B))
	}
	res := text(formatNumber(sum))
	res.StructuredContent = addOutput{Sum: sum}
	return res, nil
}

// formatNumber formats v the way JSON does: integers without a fractional
// part, exponents only for very large or very small magnitudes.
func formatNumber(v float64) string {
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

type weatherArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

type weatherReport struct {
	City     string        `json:"city"`
	Days     int           `json:"days"`
	Forecast []dayForecast `json:"forecast"`
}

type dayForecast struct {
	Day        int    `json:"day"`
	High       int    `json:"high"`
	Low        int    `json:"low"`
	Conditions string `json:"conditions"`
}

func weather(_ context.Context, _ *toolCall, in weatherArgs) (*toolResult, error) {
	conditions := [...]string{"sunny", "partly cloudy", "cloudy", "light rain", "showers", "thunderstorms", "windy", "fog"}
	city := strings.TrimSpace(in.City)
	if city == "" {
		return nil, errors.New("city must not be blank")
	}
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(city)))
	seed := h.Sum64()

	report := weatherReport{City: city, Days: in.Days, Forecast: make([]dayForecast, 0, in.Days)}
	var summary strings.Builder
	fmt.Fprintf(&summary, "Weather for %s, %d day(s):", city, in.Days)
	for day := 1; day <= in.Days; day++ {
		rng := rand.New(rand.NewPCG(seed, uint64(day)))
		f := dayForecast{
			Day:        day,
			High:       8 + rng.IntN(22),
			Conditions: conditions[rng.IntN(len(conditions))],
		}
		f.Low = f.High - 4 - rng.IntN(8)
		report.Forecast = append(report.Forecast, f)
		fmt.Fprintf(&summary, "\nDay %d: %s, high %d°C, low %d°C", f.Day, f.Conditions, f.High, f.Low)
	}
	res := text(summary.String())
	res.StructuredContent = report
	return res, nil
}

type failArgs struct {
	Reason string `json:"reason"`
}

func fail(_ context.Context, _ *toolCall, in failArgs) (*toolResult, error) {
	res := text(in.Reason)
	res.IsError = true
	return res, nil
}

func imageTool(context.Context, *toolCall, struct{}) (*toolResult, error) {
	data, err := gradientPNG(16)
	if err != nil {
		return nil, fmt.Errorf("drawing the image: %w", err)
	}
	return &toolResult{Content: []any{binaryContent{Type: "image", Data: data, MIMEType: "image/png"}}}, nil
}

func audioTool(context.Context, *toolCall, struct{}) (*toolResult, error) {
	data := toneWAV(440, 250*time.Millisecond)
	return &toolResult{Content: []any{binaryContent{Type: "audio", Data: data, MIMEType: "audio/wav"}}}, nil
}

func resourceLink(context.Context, *toolCall, struct{}) (*toolResult, error) {
	return &toolResult{Content: []any{resourceLinkContent{
		Type:        "resource_link",
		URI:         readmeURI,
		Name:        "readme",
		Title:       readmeTitle,
		Description: readmeDescription,
		MIMEType:    "text/markdown",
	}}}, nil
}

func embedded(context.Context, *toolCall, struct{}) (*toolResult, error) {
	return &toolResult{Content: []any{embeddedResource{
		Type:     "resource",
		Resource: &resourceContents{URI: readmeURI, MIMEType: "text/markdown", Text: readme},
	}}}, nil
}

type sleepArgs struct {
	MS int `json:"ms"`
}

// sleepSteps is how many progress notifications sleep sends.
const sleepSteps = 10

func sleep(ctx context.Context, c *toolCall, in sleepArgs) (*toolResult, error) {
	total := time.Duration(in.MS) * time.Millisecond
	steps := 1
	if c.progressToken != nil && c.notify != nil && total > 0 {
		steps = sleepSteps
	}
	timer := time.NewTimer(total / time.Duration(steps))
	defer timer.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
		if steps > 1 {
			done := in.MS * i / steps
			err := c.notify(ctx, "notifications/progress", map[string]any{
				"progressToken": c.progressToken,
				"progress":      done,
				"total":         in.MS,
				"message":       fmt.Sprintf("slept %d of %d ms", done, in.MS),
			})
			if err != nil {
				return nil, fmt.Errorf("sending progress: %w", err)
			}
		}
		if i == steps {
			return text(fmt.Sprintf("slept %d ms", in.MS)), nil
		}
		timer.Reset(total / time.Duration(steps))
	}
}

type textArgs struct {
	Text string `json:"text"`
}

func upper(_ context.Context, _ *toolCall, in textArgs) (*toolResult, error) {
	return text(strings.ToUpper(in.Text)), nil
}

type wordCount struct {
	Words      int `json:"words"`
	Lines      int `json:"lines"`
	Characters int `json:"characters"`
}

func countWords(_ context.Context, _ *toolCall, in textArgs) (*toolResult, error) {
	n := wordCount{
		Words:      len(strings.Fields(in.Text)),
		Lines:      strings.Count(in.Text, "\n"),
		Characters: utf8.RuneCountInString(in.Text),
	}
	if in.Text != "" && !strings.HasSuffix(in.Text, "\n") {
		n.Lines++
	}
	res := text(fmt.Sprintf("%d words, %d lines, %d characters", n.Words, n.Lines, n.Characters))
	res.StructuredContent = n
	return res, nil
}

type randomArgs struct {
	Min  int64 `json:"min"`
	Max  int64 `json:"max"`
	Seed int64 `json:"seed"`
}

func randomNumber(_ context.Context, _ *toolCall, in randomArgs) (*toolResult, error) {
	if in.Min > in.Max {
		return nil, fmt.Errorf("min (%d) is greater than max (%d)", in.Min, in.Max)
	}
	rng := rand.New(rand.NewPCG(uint64(in.Seed), 0))
	n := in.Min + rng.Int64N(in.Max-in.Min+1)
	return text(strconv.FormatInt(n, 10)), nil
}
