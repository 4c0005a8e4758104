package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mcpctl/mcpctl/transport"
)

// line is one line of the input: its number (from 1) and its bytes without
// the line end, or why it cannot be used. fatal ends the batch (the input
// could not be read).
type line struct {
	n     int
	data  []byte
	err   error
	fatal error
	job   *job // the line prepared, when readLines was given a prepare
}

// readLines reads the lines of lr that are not blank into out until the
// input ends, reading fails or ctx is done, and closes out. read counts the
// lines sent (for progress). Blank lines count in the numbering only; a line
// over the limit is a usage error for that line.
//
// It runs on its own goroutine so that cancelling stops a batch waiting for
// input; a read blocked on a terminal or pipe then stays blocked until the
// process exits.
func readLines(ctx context.Context, lr *transport.LineReader, out chan<- line, read *atomic.Int64, prepare func(line) *job) {
	defer close(out)
	n := 0
	for {
		data, err := lr.Next()
		var tooLarge *transport.MessageTooLargeError
		var l line
		switch {
		case err == nil:
			n++
			data = bytes.TrimSuffix(data, []byte{'\r'})
			if len(bytes.TrimSpace(data)) == 0 {
				continue
			}
			l = line{n: n, data: data}
		case errors.As(err, &tooLarge):
			n++
			l = line{n: n, err: &ExitCodeError{Code: exitUsage, Err: err}}
		case errors.Is(err, io.EOF):
			return
		default:
			l = line{fatal: fmt.Errorf("reading the batch after line %d: %w", n, err)}
		}
		if l.fatal == nil {
			read.Add(1)
			if prepare != nil {
				l.job = prepare(l)
			}
		}
		select {
		case out <- l:
		case <-ctx.Done():
			return
		}
		if l.fatal != nil {
			return
		}
	}
}

// parseLine reads one line of a batch: the tool's name and its arguments,
// as given (nil when absent or null). The name is returned whenever it
// could be read, for the error line.
func parseLine(data []byte) (tool string, args json.RawMessage, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		var te *json.UnmarshalTypeError
		if err == nil || errors.As(err, &te) {
			err = fmt.Errorf("got %s", jsonKind(bytes.TrimSpace(data)[0]))
		}
		return "", nil, usageError("the line is not a JSON object %s: %w", LineForm, err)
	}
	if raw, ok := fields["tool"]; ok {
		if err := json.Unmarshal(raw, &tool); err != nil {
			return "", nil, usageError(`"tool" must be a string, the name of a tool (a line is %s)`, LineForm)
		}
	}
	if len(fields) > 2 || len(fields) == 2 && fields["arguments"] == nil {
		keys := make([]string, 0, len(fields))
		for k := range fields {
			if k != "tool" && k != "arguments" {
				keys = append(keys, strconv.Quote(k))
			}
		}
		sort.Strings(keys)
		noun := "key"
		if len(keys) > 1 {
			noun += "s"
		}
		return tool, nil, usageError("unknown %s %s (a line is %s)", noun, strings.Join(keys, ", "), LineForm)
	}
	if tool == "" {
		return "", nil, usageError(`the line names no "tool" (a line is %s)`, LineForm)
	}
	args = fields["arguments"]
	if string(args) == "null" {
		args = nil
	}
	if len(args) > 0 && args[0] != '{' {
		return tool, nil, usageError(`"arguments" must be a JSON object, got %s`, jsonKind(args[0]))
	}
	return tool, args, nil
}

// jsonKind names the kind of the JSON value starting with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// decodeArguments decodes an arguments object for validation, numbers
// kept exact as schema.ParseArgs keeps them.
func decodeArguments(args json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, usageError(`decoding "arguments": %w`, err)
	}
	return m, nil
}
