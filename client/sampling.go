package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// CodeUserRejected is the error a client answers sampling/createMessage
// with when the user rejected the request (client/sampling.mdx).
const CodeUserRejected = -1

// SampleFunc produces the CreateMessageResult for the params of one
// sampling/createMessage request. An *RPCError is sent as it is; any other
// error as an internal error carrying its first line.
type SampleFunc func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)

// Sampling answers a server's sampling/createMessage requests, in both
// eras, from Answer: canned results ([SampleResults]), a command
// ([SampleCommand]), a refusal ([SampleDecline]), or a person typing.
type Sampling struct {
	// Answer produces each result.
	Answer SampleFunc
	// Check, when set, validates a result before it is sent (against the
	// official CreateMessageResult schema); its error is sent instead, and
	// reported through Warn.
	Check func(result json.RawMessage) error
	// Warn, when set, receives a one-line account of each request that is
	// answered with an error, so the user sees why the tool failed.
	Warn func(msg string)
}

// Capability is what a client declares for sampling: plain sampling, with
// neither context inclusion nor tool use.
func (s *Sampling) Capability() map[string]any { return map[string]any{} }

// Handler answers sampling/createMessage.
func (s *Sampling) Handler() RequestHandler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		res, err := s.Answer(ctx, params)
		if err == nil && s.Check != nil {
			err = s.Check(res)
			if err != nil {
				err = fmt.Errorf("the answer is not a valid CreateMessageResult: %w", err)
			}
		}
		if err == nil {
			return res, nil
		}
		var rpc *RPCError
		if !errors.As(err, &rpc) {
			rpc = &RPCError{Code: CodeInternalError, Message: "mcpctl could not answer sampling/createMessage: " + firstLine(err.Error())}
		}
		if s.Warn != nil && rpc.Code != CodeUserRejected {
			s.Warn("sampling/createMessage: " + rpc.Message)
		}
		return nil, rpc
	}
}

// DeclineSampling is the answer to a sampling request the user rejected.
func DeclineSampling() *RPCError {
	return &RPCError{Code: CodeUserRejected, Message: "User rejected sampling request"}
}

// SampleDecline answers every request with [DeclineSampling].
func SampleDecline() SampleFunc {
	return func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, DeclineSampling()
	}
}

// SampleResults answers requests with the results in data, in order: one
// JSON object (any layout), or NDJSON of them. name, the file they came
// from, names it in errors: in a value that is not a JSON object, and in
// the error answered once every result has been used.
func SampleResults(name string, data []byte) (SampleFunc, error) {
	var results []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: result %d is not JSON: %w", name, n, err)
		}
		if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '{' {
			return nil, fmt.Errorf("%s: result %d is not a JSON object (want a CreateMessageResult such as {\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"…\"},\"model\":\"canned\"})", name, n)
		}
		results = append(results, v)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("%s holds no result (want a CreateMessageResult JSON object, or NDJSON of them)", name)
	}
	var (
		mu   sync.Mutex
		next int
	)
	return func(context.Context, json.RawMessage) (json.RawMessage, error) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(results) {
			return nil, fmt.Errorf("%s: all %d canned results were used; add a line for each sampling request", name, len(results))
		}
		next++
		return results[next-1], nil
	}, nil
}

// SampleCommand answers each request by running argv (no shell): the
// request's params go to its stdin as JSON, its stdout is the
// CreateMessageResult. A non-zero exit (with the last line it wrote on
// stderr), output that is not a JSON object, or running longer than
// timeout is an error. environ is the command's environment (nil: mcpctl's).
func SampleCommand(argv []string, environ []string, timeout time.Duration) SampleFunc {
	return func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = environ
		cmd.Stdin = bytes.NewReader(params)
		var stdout, stderr bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		cmd.WaitDelay = time.Second
		err := cmd.Run()
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s ran longer than %s (raise --timeout)", argv[0], timeout)
		}
		if err != nil {
			msg := fmt.Sprintf("%s: %v", argv[0], err)
			if last := lastLine(stderr.String()); last != "" {
				msg += " (stderr: " + last + ")"
			}
			return nil, errors.New(msg)
		}
		out := bytes.TrimSpace(stdout.Bytes())
		if len(out) == 0 || out[0] != '{' || !json.Valid(out) {
			return nil, fmt.Errorf("%s did not print a JSON object on stdout (got %q)", argv[0], truncate(out, 80))
		}
		return out, nil
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func lastLine(s string) string {
	var last string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			last = t
		}
	}
	return last
}
