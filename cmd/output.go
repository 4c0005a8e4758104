package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/render"
)

// OutputOptions are the output flags shared by commands that print results:
// -o text|json|yaml, --json and --jq. Commands print their data through
// [OutputOptions.write] when [OutputOptions.structured] says so.
type OutputOptions struct {
	Format string // "text", "json" or "yaml"
	JSON   bool
	// JQ is a jq expression applied to the JSON output (--jq).
	JQ string
	// ExitStatus (--exit-status) fails the run with exit 1 when the last
	// output of JQ is false or null, or when there is none, as jq -e does
	// (jq exits 4 for no output, but 4 is mcpctl's isError code).
	ExitStatus bool
}

// addOutputFlags registers the output flags on cmd; `mcpctl help output`
// documents them.
func addOutputFlags(cmd *cobra.Command, o *OutputOptions) {
	inTopic(cmd, topicOutput, func() { registerOutputFlags(cmd, o) })
}

// registerOutputFlags is [addOutputFlags] without the help topic.
func registerOutputFlags(cmd *cobra.Command, o *OutputOptions) {
	cmd.Flags().StringVarP(&o.Format, "output", "o", "text", "Output `format`: text, json or yaml")
	markSetting(cmd, "output")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "Print the protocol result as JSON (same as -o json)")
	cmd.Flags().StringVar(&o.JQ, "jq", "", "Filter the JSON output with the jq `expression` (implies -o json; strings are printed raw)")
	// No -e shorthand as in jq: -e is the stdio server's environment.
	cmd.Flags().BoolVar(&o.ExitStatus, "exit-status", false, "With --jq: exit 1 when the last output is false or null, or when there is none (as jq -e)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]cobra.Completion{"text", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("jq", cobra.NoFileCompletions)
}

// checkOutputFlags refuses output flags that contradict each other on the
// command line (--json -o yaml, --jq with -o text) rather than let one
// silently win. It runs before the settings fill -o in: an -o from
// MCPCTL_OUTPUT or the config file gives way to --json and --jq.
func checkOutputFlags(fs *pflag.FlagSet) error {
	if !fs.Changed("output") {
		return nil
	}
	format := fs.Lookup("output").Value.String()
	switch {
	case fs.Changed("json") && format != "json":
		return flagErrorf("--json and -o %s ask for different output: give one of them", format)
	case fs.Changed("jq") && format == "text":
		return flagErrorf("--jq filters JSON output, but -o text asks for text: drop -o text (or use -o yaml to print the result as YAML)")
	}
	return nil
}

func (o *OutputOptions) validate() error {
	if o.JSON {
		o.Format = "json"
	}
	switch o.Format {
	case "text", "json", "yaml":
	default:
		return flagErrorf("invalid --output %q: expected text, json or yaml", o.Format)
	}
	if o.ExitStatus && o.JQ == "" {
		return flagErrorf("--exit-status tests the output of --jq: give a --jq expression, e.g. --jq '.isError | not' --exit-status")
	}
	if o.JQ != "" {
		if o.Format == "text" {
			o.Format = "json"
		}
		if _, err := compileJQ(o.JQ); err != nil {
			return err
		}
	}
	return nil
}

// structured reports whether the command prints data (JSON or YAML) rather
// than text.
func (o *OutputOptions) structured() bool { return o.Format == "json" || o.Format == "yaml" }

// write prints v, a value for encoding/json or a json.RawMessage kept as
// the server sent it, in the chosen format, through the jq filter if any.
func (o *OutputOptions) write(p *render.Printer, v any) error {
	if o.JQ == "" && o.Format != "yaml" {
		return p.JSON(v)
	}
	data, err := marshalJSON(v)
	if err != nil {
		return err
	}
	if o.JQ == "" {
		return writeYAML(p.Out, data)
	}
	code, err := compileJQ(o.JQ)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // big integers stay exact
	var input any
	if err := dec.Decode(&input); err != nil {
		return fmt.Errorf("decoding the output for --jq: %w", err)
	}
	iter := code.Run(input)
	var last any
	outputs := 0
	for {
		res, ok := iter.Next()
		if !ok {
			return o.exitStatus(outputs, last)
		}
		if _, isErr := res.(error); !isErr {
			last = res
			outputs++
		}
		switch res := res.(type) {
		case error:
			var halt *gojq.HaltError
			if errors.As(res, &halt) && halt.Value() == nil {
				return nil
			}
			return &FlagError{Err: fmt.Errorf("--jq %s: %w", o.JQ, res)}
		case string:
			// Like gh, strings are printed raw: --jq '.tools[].name' gives
			// one name per line.
			if _, err := fmt.Fprintln(p.Out, res); err != nil {
				return err
			}
			continue
		}
		out, err := gojq.Marshal(res)
		if err != nil {
			return fmt.Errorf("--jq %s: %w", o.JQ, err)
		}
		if o.Format == "yaml" {
			err = writeYAML(p.Out, out)
		} else {
			err = p.JSON(json.RawMessage(out))
		}
		if err != nil {
			return err
		}
	}
}

// exitStatus is the outcome of --exit-status for a jq run that printed
// outputs values, the last being last: an [ExitCodeError] with exit 1 and
// no message (the output said it) when that is false or null or there was
// nothing.
func (o *OutputOptions) exitStatus(outputs int, last any) error {
	if !o.ExitStatus {
		return nil
	}
	if outputs == 0 || last == nil || last == false {
		return &ExitCodeError{Code: ExitError}
	}
	return nil
}

// compileJQ parses and compiles a jq expression; a bad one is a usage
// error naming the problem.
func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		var perr *gojq.ParseError
		if errors.As(err, &perr) {
			return nil, flagErrorf("invalid --jq expression %q: %v (at byte %d)", expr, err, perr.Offset)
		}
		return nil, flagErrorf("invalid --jq expression %q: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, flagErrorf("invalid --jq expression %q: %v", expr, err)
	}
	return code, nil
}

// marshalJSON encodes v as render.Printer.JSON does: raw messages as they
// are, no HTML escaping.
func marshalJSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if len(bytes.TrimSpace(raw)) == 0 {
			return []byte("null"), nil
		}
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// writeYAML prints JSON data as YAML, keeping the order of object keys:
// the JSON is read token by token into a yaml.Node tree rather than into
// maps.
func writeYAML(w io.Writer, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	node, err := yamlNode(dec)
	if err != nil {
		return fmt.Errorf("converting the output to YAML: %w", err)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return err
	}
	return enc.Close()
}

// yamlNode reads one JSON value from dec.
func yamlNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if tok == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for dec.More() {
			if n.Kind == yaml.MappingNode {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key.(string)})
			}
			child, err := yamlNode(dec)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, child)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle // {} and []
		}
		return n, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: tok}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(tok.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: tok.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(tok)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
