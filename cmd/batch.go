package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/transport"
)

// maxParallel bounds --parallel: more calls at once than this would only
// queue in the server.
const maxParallel = 256

// batchWindowFactor sets the reorder window of --parallel N: at most
// N×batchWindowFactor calls are started ahead of the oldest one not yet
// printed, so at most that many results wait in memory for their turn.
const batchWindowFactor = 4

// batchReadAhead is how many input lines the reader may hold ahead of the
// calls.
const batchReadAhead = 64

// batchLineHelp is the form of a batch line, quoted by errors about one.
const batchLineHelp = `{"tool": NAME, "arguments": {...}}`

func addBatchFlags(cmd *cobra.Command, opts *CallOptions) {
	cmd.Flags().StringVar(&opts.Batch, "batch", "", `Run the calls in an NDJSON `+"`file`"+` (- for stdin), one `+batchLineHelp+` a line, in one session; prints one JSON result a line`)
	cmd.Flags().IntVar(&opts.Parallel, "parallel", 1, "With --batch, how many calls run at once (results keep the input's order)")
}

// validateBatch checks the flags of `call --batch`; args are the
// positional arguments left once the server command is taken out.
func (o *CallOptions) validateBatch(args []string) error {
	switch {
	case o.Batch == "":
		return flagErrorf("--parallel needs --batch FILE (or --batch - for stdin)")
	case len(args) > 0:
		return flagErrorf("--batch takes the tools and their arguments from its lines, not from the command line (got %q); a line is %s", args[0], batchLineHelp)
	case o.ArgsJSON != "":
		return flagErrorf("--args cannot be used with --batch: each line gives its own arguments")
	case o.SaveDir != "":
		return flagErrorf("--save-dir cannot be used with --batch: results are printed as JSON, media included")
	case o.Parallel < 1 || o.Parallel > maxParallel:
		return flagErrorf("--parallel must be between 1 and %d, got %d", maxParallel, o.Parallel)
	}
	if err := o.Output.validate(); err != nil {
		return err
	}
	if o.Output.Format == "yaml" || o.Output.JQ != "" {
		return flagErrorf("--batch prints one JSON object a line (NDJSON); -o yaml and --jq do not apply")
	}
	if err := checkLogLevelFlag(o.LogLevel); err != nil {
		return err
	}
	// Loads the keys now: the calls of --parallel sign at once.
	return o.Sign.validate()
}

// batchRun runs `mcpctl call --batch`: every line of the input is one
// tools/call, made in one session, its outcome printed as one JSON line in
// input order:
//
//	{"line": N, "tool": NAME, "result": <CallToolResult>}
//	{"line": N, "tool": NAME, "error": "one line", "exit": CODE}
//
// A result that is not a success carries "exit" too (4 for isError, 5 with
// an "error" for a structuredContent that breaks the outputSchema). A line
// that cannot be used (not JSON, no tool, an unknown tool, arguments that
// break the inputSchema) is an error for that line, and the batch goes on.
// Blank lines are skipped (they still count in the line numbers).
//
// The run exits with the most severe code met (see [batchSeverity]). On
// Ctrl-C reading stops, the calls in flight are cancelled, the results
// that came before are printed, and the run exits 130.
//
// Memory stays bounded: results are written as they come; with --parallel
// N at most N×[batchWindowFactor] wait for an earlier one to be printed.
func batchRun(ctx context.Context, opts *CallOptions) error {
	f := opts.Factory
	in, total, closeIn, err := openBatch(f, opts.Batch)
	if err != nil {
		return err
	}
	defer closeIn()

	opts.Server.Lazy = true
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := applyLogLevel(ctx, f, s, opts.LogLevel); err != nil {
		return err
	}
	tools, err := s.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("listing the tools of %s for the batch: %w", s.name, err)
	}

	// A line is one request: the limit of one message applies to it.
	limit := opts.Server.MaxMessageSize
	if limit <= 0 {
		limit = transport.DefaultMaxMessageSize
	}
	b := &batch{
		f: f, opts: opts, s: s,
		tools:    make(map[string]*client.Tool, len(tools)),
		prepared: map[string]*batchTool{},
		out:      newBatchWriter(f.IOStreams.Out, f.IOStreams.IsStdoutTTY()),
		progress: newBatchProgress(f.IOStreams, total),
		codes:    map[int]int{},
	}
	for i := range tools {
		b.tools[tools[i].Name] = &tools[i]
	}
	lines := make(chan batchLine, batchReadAhead)
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	// The reader also prepares each line (decodes and checks its
	// arguments), so that work overlaps the call before it instead of
	// waiting for it: prepare runs on the reader's goroutine only.
	go readBatch(readCtx, newLineReader(in, limit), lines, &b.progress.read, b.prepare)

	if opts.Parallel > 1 {
		err = b.runParallel(ctx, lines)
	} else {
		err = b.runSequential(ctx, lines)
	}
	stopReading()
	if ferr := b.out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing the results: %w", ferr)
	}
	b.progress.clear()
	if err != nil {
		return err
	}
	return b.verdict()
}

// openBatch opens the input of --batch. total is its number of calls
// when that is cheap to know in advance (a regular file, and a terminal to
// show progress on), or 0.
func openBatch(f *Factory, name string) (in io.Reader, total int, closeIn func(), err error) {
	if name == "-" {
		return f.IOStreams.In, 0, func() {}, nil
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, &FlagError{Err: fmt.Errorf("--batch: %w", err)}
	}
	if f.IOStreams.IsStderrTTY() {
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			total = countLines(file)
			if _, err := file.Seek(0, io.SeekStart); err != nil {
				file.Close()
				return nil, 0, nil, fmt.Errorf("--batch: rewinding %s: %w", name, err)
			}
		}
	}
	return file, total, func() { file.Close() }, nil
}

// countLines counts the lines of r that are not blank, as the batch
// makes one call for each.
func countLines(r io.Reader) int {
	buf := make([]byte, 64*1024)
	n, filled := 0, false // filled: the current line has a non-space byte
	for {
		k, err := r.Read(buf)
		for _, c := range buf[:k] {
			switch c {
			case '\n':
				if filled {
					n++
				}
				filled = false
			case ' ', '\t', '\r':
			default:
				filled = true
			}
		}
		if err != nil {
			break
		}
	}
	if filled {
		n++
	}
	return n
}

// batch is one run of `call --batch`.
type batch struct {
	f        *Factory
	opts     *CallOptions
	s        *session
	tools    map[string]*client.Tool
	prepared map[string]*batchTool // by tool name, built on first use
	out      *batchWriter
	progress *batchProgress

	// Written by emit only (one goroutine at a time).
	codes   map[int]int // exit code → lines that ended with it
	lines   int         // results printed
	pending int         // the first line that did not finish, after an interruption
}

// batchTool is what the calls of one tool share: the tool, its compiled
// checks and whether it runs as a task.
type batchTool struct {
	tool        *client.Tool
	checkArgs   func(map[string]any, []schema.Violation) error
	checkResult func(*client.CallToolResult) error
	asTask      bool
	planErr     error
}

// batchJob is one line of the batch on its way to the output.
type batchJob struct {
	line  int
	tool  string
	bt    *batchTool
	args  json.RawMessage
	out   batchOutcome
	ready bool          // out is final before any call (a line that cannot be used)
	done  chan struct{} // closed when out is final (--parallel)
}

// batchOutcome is what one line printed: a result, an error, or both (a
// result that breaks the outputSchema), and its exit code.
type batchOutcome struct {
	result json.RawMessage
	err    error
	code   int
	// unfinished marks a call cancelled by Ctrl-C: nothing is printed.
	unfinished bool
}

// runSequential makes the calls one after the other.
func (b *batch) runSequential(ctx context.Context, lines <-chan batchLine) error {
	for {
		var l batchLine
		var ok bool
		select {
		case <-ctx.Done():
			return b.interrupted(ctx, 0)
		case l, ok = <-lines:
		}
		if !ok {
			return nil
		}
		if l.fatal != nil {
			return l.fatal
		}
		j := l.job
		if !j.ready {
			b.call(ctx, j)
		}
		if j.out.unfinished {
			return b.interrupted(ctx, j.line)
		}
		if err := b.emit(j); err != nil {
			return err
		}
	}
}

// runParallel runs up to opts.Parallel calls at once; one goroutine prints
// their outcomes in input order.
func (b *batch) runParallel(ctx context.Context, lines <-chan batchLine) error {
	n := b.opts.Parallel
	order := make(chan *batchJob, n*batchWindowFactor)
	slots := make(chan struct{}, n)
	printed := make(chan error, 1)
	go func() {
		var err error
		for j := range order {
			<-j.done
			if err != nil {
				continue
			}
			if j.out.unfinished {
				if b.pending == 0 {
					b.pending = j.line
				}
				continue
			}
			err = b.emit(j)
		}
		printed <- err
	}()

	var fatal error
read:
	for {
		var l batchLine
		var ok bool
		select {
		case <-ctx.Done():
			break read
		case l, ok = <-lines:
		}
		if !ok {
			break
		}
		if l.fatal != nil {
			fatal = l.fatal
			break
		}
		j := l.job
		j.done = make(chan struct{})
		select {
		case order <- j:
		case <-ctx.Done():
			break read
		}
		if j.ready {
			close(j.done)
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			j.out.unfinished = true
			close(j.done)
			break read
		}
		go func() {
			defer func() { <-slots; close(j.done) }()
			b.call(ctx, j)
		}()
	}
	close(order)
	err := <-printed
	switch {
	case fatal != nil:
		return fatal
	case ctx.Err() != nil:
		return b.interrupted(ctx, b.pending)
	}
	return err
}

// interrupted is the error of a batch stopped by Ctrl-C; line is the first
// line that did not finish, or 0 if none had started.
func (b *batch) interrupted(ctx context.Context, line int) error {
	msg := fmt.Sprintf("the batch stopped after %d result", b.lines)
	if b.lines != 1 {
		msg += "s"
	}
	if line > 0 {
		msg += fmt.Sprintf(" (line %d and later did not finish)", line)
	}
	return fmt.Errorf("%s: %w", msg, context.Cause(ctx))
}

// prepare turns one input line into a job: its tool found, its arguments
// decoded and checked against the tool's inputSchema. A line that cannot
// be called gets its final outcome here. Only readBatch's goroutine calls
// it (b.prepared is its own), ahead of the calls.
func (b *batch) prepare(l batchLine) *batchJob {
	j := &batchJob{line: l.n}
	fail := func(err error) *batchJob {
		j.out = batchOutcome{err: err, code: exitCode(err, false)}
		j.ready = true
		return j
	}
	if l.err != nil {
		return fail(l.err)
	}
	name, args, err := parseBatchLine(l.data)
	j.tool = name
	if err != nil {
		return fail(err)
	}
	bt, err := b.toolFor(name)
	if err != nil {
		return fail(err)
	}
	j.bt = bt
	if !b.opts.NoValidate {
		var decoded map[string]any
		if len(args) > 0 {
			if decoded, err = decodeArguments(args); err != nil {
				return fail(err)
			}
		}
		if err := bt.checkArgs(decoded, nil); err != nil {
			return fail(err)
		}
	}
	j.args = args
	return j
}

// toolFor returns what calls of the tool named share, built on first use.
func (b *batch) toolFor(name string) (*batchTool, error) {
	if bt, ok := b.prepared[name]; ok {
		return bt, nil
	}
	tool, ok := b.tools[name]
	if !ok {
		tools := make([]client.Tool, 0, len(b.tools))
		for _, t := range b.tools {
			tools = append(tools, *t)
		}
		return nil, unknownToolError(name, tools)
	}
	mode := client.TaskAuto
	if b.opts.Task {
		mode = client.TaskAsk
	}
	bt := &batchTool{tool: tool, checkArgs: argumentsCheck(b.f, tool, b.opts.Server.Strict), checkResult: resultCheck(b.f, tool)}
	bt.asTask, bt.planErr = b.s.PlanTask(tool, mode)
	if bt.planErr != nil {
		var se *client.TaskSupportError
		if errors.As(bt.planErr, &se) && se.Asked {
			bt.planErr = &FlagError{Err: fmt.Errorf("--task: %w", bt.planErr)}
		}
	}
	if b.opts.NoValidate {
		bt.checkArgs = nil
	}
	b.prepared[name] = bt
	return bt, nil
}

// call makes the job's call and records its outcome.
func (b *batch) call(ctx context.Context, j *batchJob) {
	bt := j.bt
	if bt.planErr != nil {
		j.out = batchOutcome{err: bt.planErr, code: exitCode(bt.planErr, false)}
		return
	}
	if ctx.Err() != nil {
		j.out.unfinished = true
		return
	}
	var nonce string
	co := client.CallOptions{Sign: b.opts.Sign.signHook(&nonce)}
	if b.opts.Sign.verifying() { // for the audit trail's verdict
		ctx = withResultVerifier(ctx, func(raw json.RawMessage) error {
			return b.opts.Sign.verifyResult(bt.tool.Name, &client.CallToolResult{Raw: raw}, nonce)
		})
	}
	var res *client.CallToolResult
	var err error
	if bt.asTask {
		res, err = b.s.CallToolTask(ctx, bt.tool.Name, j.args, co, client.TaskOptions{})
	} else {
		res, err = b.s.CallToolWith(ctx, bt.tool.Name, j.args, co)
	}
	if err == nil {
		err = b.opts.Sign.verifyResult(bt.tool.Name, res, nonce)
		if err != nil {
			res = nil // a result whose signature fails is not shown
		}
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			j.out.unfinished = true
			return
		}
		j.out = batchOutcome{err: err, code: exitCode(err, false)}
		return
	}
	j.out.result = res.Raw
	if res.IsError {
		j.out.code = ExitToolError
		return
	}
	if err := bt.checkResult(res); err != nil {
		j.out.err, j.out.code = err, exitCode(err, false)
	}
}

// emit prints one job's outcome and counts it.
func (b *batch) emit(j *batchJob) error {
	line := appendBatchOutcome(b.out.buf(), j.line, j.tool, &j.out, b.f.Redactor())
	if err := b.out.writeLine(line); err != nil {
		return fmt.Errorf("writing the result of line %d: %w", j.line, err)
	}
	b.codes[j.out.code]++
	b.lines++
	b.progress.done()
	return nil
}

// verdict is the batch's error: nil when every line succeeded, else an
// [ExitCodeError] with the most severe code met and a count of each.
func (b *batch) verdict() error {
	worst, failed := ExitOK, 0
	codes := make([]int, 0, len(b.codes))
	for code, n := range b.codes {
		if code == ExitOK {
			continue
		}
		failed += n
		codes = append(codes, code)
		if batchSeverity(code) > batchSeverity(worst) {
			worst = code
		}
	}
	if worst == ExitOK {
		return nil
	}
	sort.Slice(codes, func(i, k int) bool { return batchSeverity(codes[i]) > batchSeverity(codes[k]) })
	parts := make([]string, len(codes))
	for i, code := range codes {
		parts[i] = fmt.Sprintf("%d with exit %d", b.codes[code], code)
	}
	noun := "line"
	if b.lines != 1 {
		noun += "s"
	}
	return &ExitCodeError{Code: worst, Msg: fmt.Sprintf("batch: %d of %d %s failed (%s); the exit code is the most severe, %d",
		failed, b.lines, noun, strings.Join(parts, ", "), worst)}
}

// batchSeverity ranks an exit code for a batch's verdict: the batch exits
// with the code of the highest rank any line met. From the most severe:
//
//	130  interrupted: results are missing
//	6    a signature failed: a result cannot be trusted
//	8    authorization failed
//	1    connection, transport, protocol or internal error: the session broke
//	     (any code not listed here ranks just below 1)
//	7    a call timed out: no answer
//	9    the policy refused a call (nothing sent)
//	2    a line could not be used (not JSON, no such tool): the input is wrong
//	3    the server answered a JSON-RPC error
//	5    validation: arguments broke the inputSchema (nothing sent), or a
//	     result broke the outputSchema
//	4    the tool ran and reported isError: true
//	0    success
//
// The further a failure is from the tool itself, the more it says about
// the whole batch, and the higher it ranks: a tool's own error is the
// mildest, a broken session or an untrustworthy result the gravest.
func batchSeverity(code int) int {
	switch code {
	case ExitOK:
		return 0
	case ExitToolError:
		return 1
	case ExitValidation:
		return 2
	case ExitRPCError:
		return 3
	case ExitUsage:
		return 4
	case ExitPolicy:
		return 5
	case ExitTimeout:
		return 6
	case ExitError:
		return 8
	case ExitAuth:
		return 9
	case ExitSignature:
		return 10
	case ExitInterrupted:
		return 11
	}
	return 7
}

// parseBatchLine reads one line of a batch: the tool's name and its
// arguments, as given (nil when absent or null). The name is returned
// whenever it could be read, for the error line.
func parseBatchLine(data []byte) (tool string, args json.RawMessage, err error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		var te *json.UnmarshalTypeError
		if err == nil || errors.As(err, &te) {
			err = fmt.Errorf("got %s", jsonKind(bytes.TrimSpace(data)[0]))
		}
		return "", nil, &FlagError{Err: fmt.Errorf("the line is not a JSON object %s: %w", batchLineHelp, err)}
	}
	if raw, ok := fields["tool"]; ok {
		if err := json.Unmarshal(raw, &tool); err != nil {
			return "", nil, &FlagError{Err: fmt.Errorf(`"tool" must be a string, the name of a tool (a line is %s)`, batchLineHelp)}
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
		return tool, nil, &FlagError{Err: fmt.Errorf("unknown %s %s (a line is %s)", noun, strings.Join(keys, ", "), batchLineHelp)}
	}
	if tool == "" {
		return "", nil, &FlagError{Err: fmt.Errorf(`the line names no "tool" (a line is %s)`, batchLineHelp)}
	}
	args = fields["arguments"]
	if string(args) == "null" {
		args = nil
	}
	if len(args) > 0 && args[0] != '{' {
		return tool, nil, &FlagError{Err: fmt.Errorf(`"arguments" must be a JSON object, got %s`, jsonKind(args[0]))}
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
		return nil, &FlagError{Err: fmt.Errorf(`decoding "arguments": %w`, err)}
	}
	return m, nil
}

// appendBatchOutcome appends the JSON line of one outcome to dst. The
// result is the server's bytes, compacted only if they span lines.
func appendBatchOutcome(dst []byte, line int, tool string, o *batchOutcome, red *transport.Redactor) []byte {
	dst = append(dst, `{"line":`...)
	dst = strconv.AppendInt(dst, int64(line), 10)
	if tool != "" {
		dst = append(dst, `,"tool":`...)
		dst = appendJSONString(dst, tool)
	}
	if o.result != nil {
		dst = append(dst, `,"result":`...)
		if bytes.ContainsAny(o.result, "\r\n") {
			var buf bytes.Buffer
			if err := json.Compact(&buf, o.result); err == nil {
				dst = append(dst, buf.Bytes()...)
			} else {
				dst = append(dst, "null"...)
			}
		} else {
			dst = append(dst, o.result...)
		}
	}
	if o.err != nil {
		dst = append(dst, `,"error":`...)
		dst = appendJSONString(dst, oneLine(red.String(o.err.Error())))
	}
	if o.code != ExitOK {
		dst = append(dst, `,"exit":`...)
		dst = strconv.AppendInt(dst, int64(o.code), 10)
	}
	return append(dst, "}\n"...)
}

// oneLine joins the lines of a message (a list of schema violations) with
// "; ".
func oneLine(msg string) string {
	if !strings.ContainsAny(msg, "\r\n") {
		return msg
	}
	parts := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	msg = strings.Join(parts, "; ")
	return strings.ReplaceAll(msg, ":; ", ": ")
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced, and nothing else
// escaped (encoding/json would also escape <, > and &).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// batchLine is one line of the input: its number (from 1) and its bytes
// without the line end, or why it cannot be used. fatal ends the batch (the
// input could not be read).
type batchLine struct {
	n     int
	data  []byte
	err   error
	fatal error
	job   *batchJob // the line prepared, when readBatch was given a prepare
}

// lineReader splits its input into lines of at most max bytes; a longer
// line is reported as such and skipped to its end, never held whole.
type lineReader struct {
	r   *bufio.Reader
	max int64
	n   int
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024), max: max}
}

// next returns the next line that is not blank, or io.EOF at the end.
func (lr *lineReader) next() (batchLine, error) {
	for {
		l, err := lr.line()
		if err != nil {
			return l, err
		}
		if l.err != nil || len(bytes.TrimSpace(l.data)) > 0 {
			return l, nil
		}
	}
}

// line reads one line, blank or not.
func (lr *lineReader) line() (batchLine, error) {
	var data []byte
	var size int64 // bytes read for this line, its end included
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= lr.max+2 { // the line and its end, \r\n
			data = append(data, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && size == 0 {
			return batchLine{}, io.EOF
		}
		if err != nil && err != io.EOF {
			return batchLine{}, err
		}
		break
	}
	lr.n++
	if size > lr.max+2 {
		return batchLine{n: lr.n, err: &FlagError{Err: fmt.Errorf("the line is longer than the limit of %s (--max-message-size)", transport.FormatSize(lr.max))}}, nil
	}
	data = bytes.TrimSuffix(data, []byte{'\n'})
	data = bytes.TrimSuffix(data, []byte{'\r'})
	if int64(len(data)) > lr.max {
		return batchLine{n: lr.n, err: &FlagError{Err: fmt.Errorf("the line is longer than the limit of %s (--max-message-size)", transport.FormatSize(lr.max))}}, nil
	}
	return batchLine{n: lr.n, data: data}, nil
}

// readBatch reads lines into out until the input ends, reading fails or
// ctx is done, and closes out. read counts the lines read (for progress).
//
// It runs on its own goroutine so that Ctrl-C stops a batch waiting for
// input; a read blocked on a terminal or pipe then stays blocked until
// the process exits.
func readBatch(ctx context.Context, lr *lineReader, out chan<- batchLine, read *atomic.Int64, prepare func(batchLine) *batchJob) {
	defer close(out)
	for {
		l, err := lr.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			l = batchLine{fatal: fmt.Errorf("reading the batch after line %d: %w", lr.n, err)}
		} else {
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
		if err != nil {
			return
		}
	}
}

// batchWriter writes result lines. On a terminal each line is flushed as
// it is written; to a pipe or a file lines are buffered and flushed at
// most [batchFlushEvery] after the first one waiting, so a reader of the
// pipe sees each result soon, without a write per line when results come
// quickly.
type batchWriter struct {
	tty bool

	mu      sync.Mutex
	w       *bufio.Writer
	scratch []byte
	armed   bool  // a flush is scheduled
	err     error // of a scheduled flush
}

// batchFlushEvery is how long a buffered result line may wait.
const batchFlushEvery = 50 * time.Millisecond

func newBatchWriter(w io.Writer, tty bool) *batchWriter {
	return &batchWriter{w: bufio.NewWriterSize(w, 64*1024), tty: tty}
}

// buf returns a scratch buffer to build a line in, valid until the next
// writeLine. Only the goroutine that calls writeLine may use it.
func (bw *batchWriter) buf() []byte { return bw.scratch[:0] }

func (bw *batchWriter) writeLine(line []byte) error {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	bw.scratch = line
	if bw.err != nil {
		return bw.err
	}
	if _, err := bw.w.Write(line); err != nil {
		return err
	}
	if bw.tty {
		return bw.w.Flush()
	}
	if !bw.armed {
		bw.armed = true
		time.AfterFunc(batchFlushEvery, bw.scheduled)
	}
	return nil
}

// scheduled is the flush writeLine schedules.
func (bw *batchWriter) scheduled() {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	bw.armed = false
	if err := bw.w.Flush(); err != nil && bw.err == nil {
		bw.err = err
	}
}

// Flush writes what is buffered.
func (bw *batchWriter) Flush() error {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	if bw.err != nil {
		return bw.err
	}
	return bw.w.Flush()
}

// batchProgress shows "N/M done" on stderr when it is a terminal. M is
// the input's line count when known in advance, else the lines read so far.
type batchProgress struct {
	ios   *IOStreams
	on    bool
	total int
	read  atomic.Int64
	n     int
	shown bool
	last  time.Time
}

// batchProgressEvery is how often the progress line is redrawn at most.
const batchProgressEvery = 100 * time.Millisecond

func newBatchProgress(ios *IOStreams, total int) *batchProgress {
	return &batchProgress{ios: ios, on: ios.IsStderrTTY(), total: total}
}

// done counts one printed result.
func (p *batchProgress) done() {
	p.n++
	if !p.on {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= batchProgressEvery {
		p.last = now
		total := int64(p.total)
		if total == 0 {
			total = p.read.Load()
		}
		fmt.Fprintf(p.ios.ErrOut, "\r%d/%d done\x1b[K", p.n, max(total, int64(p.n)))
		p.shown = true
	}
}

// clear removes the progress line.
func (p *batchProgress) clear() {
	if p.shown {
		fmt.Fprint(p.ios.ErrOut, "\r\x1b[K")
		p.shown = false
	}
}
