package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpctl/mcpctl/schema"
)

func ExampleParseArgs() {
	inputSchema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"days": {"type": "integer"},
			"metric": {"type": "boolean"},
			"scale": {"type": "number"}
		}
	}`)
	args, err := schema.ParseArgs(
		[]string{"city=Paris", "days=3", "metric=true", "scale=2.50", `tags:=["a","b"]`, `note=\@home`},
		inputSchema, schema.ArgOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(args)
	fmt.Println(string(out))

	_, err = schema.ParseArgs([]string{"days=1.5"}, inputSchema, schema.ArgOptions{})
	fmt.Println(err)
	// Output:
	// {"city":"Paris","days":3,"metric":true,"note":"@home","scale":2.50,"tags":["a","b"]}
	// argument "days": "1.5" is not an integer
}

func ExampleProperties() {
	props, err := schema.Properties(json.RawMessage(`{
		"type": "object",
		"properties": {
			"units": {"enum": ["metric", "imperial"]},
			"city": {"type": "string", "description": "City name"},
			"days": {"type": ["integer", "null"]}
		},
		"required": ["city"]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range props {
		fmt.Printf("%s %s required=%v %q\n", p.Name, p.Type, p.Required, p.Description)
	}
	// Output:
	// city string required=true "City name"
	// units string required=false ""
	// days integer|null required=false ""
}

func ExampleSchema_Validate() {
	inputSchema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"days": {"type": "integer", "minimum": 1},
			"unit": {"enum": ["c", "f"]},
			"color": {"type": "string"}
		},
		"required": ["city"],
		"additionalProperties": false
	}`)
	s, err := schema.Compile(inputSchema)
	if err != nil {
		fmt.Println(err)
		return
	}
	args, err := schema.ParseArgs([]string{"days=0", "unit=k", "colour=red"}, inputSchema, schema.ArgOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range s.Validate(args) {
		fmt.Println(v)
	}
	// Output:
	// /: additional property "colour" is not allowed; did you mean "color"?
	// /city: required property is missing
	// /days: must be >= 1, got 0
	// /unit: must be one of "c", "f", got "k"
}

func ExampleCompile() {
	_, err := schema.Compile(json.RawMessage(`{"$ref": "https://example.com/weather.json"}`))
	fmt.Println(err)
	// Output:
	// schema refers to "https://example.com/weather.json", which mcpctl does not fetch
}

func ExampleSuggest() {
	tools := []string{"get_weather", "get_forecast", "echo"}
	fmt.Println(schema.Suggest("get_wether", tools))
	fmt.Println(schema.Suggest("GET_FORECAST", tools))
	fmt.Printf("%q\n", schema.Suggest("delete_all", tools))
	// Output:
	// get_weather
	// get_forecast
	// ""
}

func ExampleChecker_CheckResult() {
	var c schema.Checker // one per command; it compiles what it checks, once
	result := []byte(`{"content": [{"type": "image", "data": "iVBORw0KGgo="}]}`)
	violations, err := c.CheckResult("2025-11-25", "tools/call", result)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range violations {
		fmt.Println(v)
	}
	// Output:
	// /content/0/mimeType: required by ImageContent
}
