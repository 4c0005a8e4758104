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
