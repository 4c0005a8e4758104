package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WeatherForecastInput are the arguments of the weather-forecast tool.
// The tool's inputSchema is derived from this type: json tags name the
// properties (omitempty makes one optional), jsonschema tags describe them.
type WeatherForecastInput struct {
	City  string   `json:"city" jsonschema:"The city"`
	Days  int      `json:"days,omitempty" jsonschema:"How many days, 1 to 7"`
	Units string   "json:\"units,omitempty\" jsonschema:\"\\\"metric\\\" or \\\"imperial\\\"; a `quoted` word\""
	Tags  []string `json:"tags,omitempty"`
}

// WeatherForecastOutput is the result of the weather-forecast tool.
// The tool's outputSchema is derived from this type, and the value the
// handler returns is sent as structuredContent (and as JSON text for older
// clients).
type WeatherForecastOutput struct {
	Summary string    `json:"summary" jsonschema:"One line for people"`
	Temps   []float64 `json:"temps"`
	Rain    bool      `json:"rain"`
}

// addWeatherForecastTool registers the weather-forecast tool on s.
func addWeatherForecastTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "weather-forecast",
		Description: "Forecasts the weather of a city for the next days.",
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  new(true),
		},
	}, handleWeatherForecast)
}

// handleWeatherForecast runs the weather-forecast tool.
// The SDK has already checked the arguments against the inputSchema, and
// checks the output against the outputSchema. An error it returns reaches
// the client as a result with isError: true.
func handleWeatherForecast(ctx context.Context, req *mcp.CallToolRequest, in WeatherForecastInput) (*mcp.CallToolResult, WeatherForecastOutput, error) {
	// TODO(weather-forecast): do the tool's work here and fill in out.
	// This stub returns zero values, a valid result the generated test
	// accepts.
	var out WeatherForecastOutput
	return nil, out, nil
}
