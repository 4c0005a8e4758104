package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// argsFlag is the ArgError.Arg of problems with ArgOptions.ArgsJSON.
const argsFlag = "--args"

// ArgOptions holds what [ParseArgs] needs besides the arguments and the schema.
type ArgOptions struct {
	// Stdin is read when ArgsJSON is "-". Nil means there is no standard input.
	Stdin io.Reader
	// ReadFile reads the files named by key=@path, key:=@path and --args
	// @path. Nil means the file system, read with MaxSize as its bound.
	ReadFile func(name string) ([]byte, error)
	// MaxSize, when positive, is the most bytes a file or standard input
	// may hold: the arguments go out in one message, which the message-size
	// limit (--max-message-size) bounds, so a larger one is refused, as an
	// [*ArgError] wrapping a [*FileTooLargeError], before it is read whole.
	MaxSize int64
	// ArgsJSON is the value of the --args flag: a JSON object, "@path" of a
	// file holding one, or "-" to read one from Stdin. Empty means none.
	ArgsJSON string
	// Mismatches, when not nil, makes a key=value or key=@path whose text
	// does not fit its property's type an argument failing the schema
	// rather than a usage error: the text is kept as a string in the
	// result (what --no-validate sends), and a violation at the property's
	// path, keyword "type", is appended here, to be reported with the
	// others validation finds (see [MergeViolations]). Nil makes it an
	// [*ArgError].
	Mismatches *[]Violation
}

// ArgError reports an argument that cannot be turned into a value. It is a
// usage error: the caller maps it to exit code 2.
type ArgError struct {
	// Arg is the argument's key; the whole argument when it has no key; or
	// "--args" for a problem with ArgOptions.ArgsJSON.
	Arg string
	// Msg says what is wrong, without naming the argument.
	Msg string
	// Err is the underlying cause (a file system or JSON error), or nil.
	Err error
}

// Error reads like `argument "days": "1.5" is not an integer`, or
// `--args: want a JSON object, got array` for the flag.
func (e *ArgError) Error() string {
	if e.Arg == argsFlag {
		return argsFlag + ": " + e.Msg
	}
	return fmt.Sprintf("argument %q: %s", e.Arg, e.Msg)
}

// Unwrap returns the underlying cause, so errors.Is(err, fs.ErrNotExist)
// works for a missing file.
func (e *ArgError) Unwrap() error { return e.Err }

// ParseArgs builds a tool's arguments object from key=value, key:=json,
// key=@file and key:=@file arguments (see the package documentation), typed
// by inputSchema, merged over the object given by opts.ArgsJSON.
//
// The result is never nil; numbers keep the digits they were written with
// (int64 for integer properties, json.Number otherwise), so marshalling it
// sends what the user typed. Every error is an [*ArgError]. A schema that
// does not compile (see [Compile]) types nothing: values stay strings, and
// reporting the schema is left to validation. A caller that validates the
// arguments too should compile the schema once and use [Schema.ParseArgs].
func ParseArgs(args []string, inputSchema json.RawMessage, opts ArgOptions) (map[string]any, error) {
	var v *argView
	if !isNull(inputSchema) {
		if s, err := Compile(inputSchema); err == nil {
			v = s.view()
		}
	}
	return parseArgs(args, v, opts)
}

// ParseArgs is the package's [ParseArgs] with this schema as the input
// schema.
func (s *Schema) ParseArgs(args []string, opts ArgOptions) (map[string]any, error) {
	return parseArgs(args, s.view(), opts)
}

func parseArgs(args []string, view *argView, opts ArgOptions) (map[string]any, error) {
	out := map[string]any{}
	if opts.ArgsJSON != "" {
		var err error
		if out, err = argsObject(opts); err != nil {
			return nil, err
		}
	}
	given := argPaths{}
	for _, a := range args {
		key, isJSON, value, ok := splitArg(a)
		if !ok {
			return nil, &ArgError{Arg: a, Msg: "expected key=value, key:=json or key=@file"}
		}
		path, leaf := view.resolve(key)
		if err := given.add(key, path); err != nil {
			return nil, err
		}
		var (
			v   any
			err error
		)
		if isJSON {
			v, err = jsonArg(key, value, opts)
		} else {
			v, err = valueArg(key, value, typeOf(leaf, 0), opts)
			var mm *typeMismatch
			if errors.As(err, &mm) {
				if opts.Mismatches == nil {
					return nil, mm.ArgError
				}
				*opts.Mismatches = append(*opts.Mismatches, Violation{Path: pointerOf(path), Keyword: "type", Msg: mm.msg})
				v, err = mm.text, nil
			}
		}
		if err != nil {
			return nil, err
		}
		if err := setPath(out, key, path, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// argPaths are the property paths the arguments given so far set, and
// every path they set something inside.
type argPaths struct {
	set    map[string]string // joined path → the key that set it
	inside map[string]string // joined proper prefix → a key that set something in it
}

// add records the path key sets, refusing a key given twice and a key
// that sets a whole object another key sets a field of (either way round).
func (g *argPaths) add(key string, path []string) error {
	if g.set == nil {
		g.set, g.inside = map[string]string{}, map[string]string{}
	}
	join := func(p []string) string { return strings.Join(p, "\x00") }
	full := join(path)
	if _, dup := g.set[full]; dup {
		return &ArgError{Arg: key, Msg: "given more than once"}
	}
	if other, ok := g.inside[full]; ok {
		return &ArgError{Arg: key, Msg: fmt.Sprintf("sets the whole object %s sets a field of; give one or the other", other)}
	}
	for i := 1; i < len(path); i++ {
		if other, ok := g.set[join(path[:i])]; ok {
			return &ArgError{Arg: key, Msg: fmt.Sprintf("sets a field of %s, given whole; give one or the other", other)}
		}
	}
	g.set[full] = key
	for i := 1; i < len(path); i++ {
		g.inside[join(path[:i])] = key
	}
	return nil
}

// setPath sets the property at path in out to v, creating the objects on
// the way, or filling those --args gave.
func setPath(out map[string]any, key string, path []string, v any) error {
	m := out
	for i, seg := range path[:len(path)-1] {
		next, ok := m[seg]
		if !ok {
			obj := map[string]any{}
			m[seg], m = obj, obj
			continue
		}
		obj, ok := next.(map[string]any)
		if !ok {
			return &ArgError{Arg: key, Msg: fmt.Sprintf("%s is %s in --args, not an object to set a field in", strings.Join(path[:i+1], "."), article(kindOf(next)))}
		}
		m = obj
	}
	m[path[len(path)-1]] = v
	return nil
}

// pointerOf is the JSON pointer of a property path.
func pointerOf(path []string) string {
	var b strings.Builder
	for _, seg := range path {
		b.WriteString("/" + escapePointer(seg))
	}
	return b.String()
}

// CheckFileSizes refuses, before anything else is done, the files named by
// key=@path, key:=@path and --args @path (opts.ArgsJSON) that hold more
// than opts.MaxSize bytes, so a command can fail at once rather than after
// connecting to a server. A file it cannot stat is left to [ParseArgs] to
// report. Every error is an [*ArgError].
func CheckFileSizes(args []string, opts ArgOptions) error {
	if opts.MaxSize <= 0 || opts.ReadFile != nil {
		return nil
	}
	check := func(arg, name string) error {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() && fi.Size() > opts.MaxSize {
			return tooLarge(arg, name, fi.Size(), opts.MaxSize)
		}
		return nil
	}
	if name, ok := strings.CutPrefix(opts.ArgsJSON, "@"); ok && name != "" {
		if err := check(argsFlag, name); err != nil {
			return err
		}
	}
	for _, a := range args {
		key, _, value, ok := splitArg(a)
		if name, file := strings.CutPrefix(value, "@"); ok && file && name != "" {
			if err := check(key, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitArg splits an argument at its first "=", which belongs to ":=" when a
// colon comes right before it.
func splitArg(a string) (key string, isJSON bool, value string, ok bool) {
	i := strings.IndexByte(a, '=')
	if i < 0 {
		return "", false, "", false
	}
	key, value = a[:i], a[i+1:]
	if k, found := strings.CutSuffix(key, ":"); found {
		key, isJSON = k, true
	}
	return key, isJSON, value, key != ""
}

// jsonArg is the value of key:=json or key:=@path.
func jsonArg(key, value string, opts ArgOptions) (any, error) {
	data, where, hint := []byte(value), "", fmt.Sprintf(" (for a string, write %s=…)", key)
	if name, ok := strings.CutPrefix(value, "@"); ok {
		var err error
		if data, err = readArgFile(key, name, opts); err != nil {
			return nil, err
		}
		where, hint = fmt.Sprintf(" in file %q", name), ""
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, &ArgError{Arg: key, Msg: fmt.Sprintf("invalid JSON%s: %v%s", where, err, hint), Err: err}
	}
	return v, nil
}

// valueArg is the value of key=value or key=@path, typed as t.
func valueArg(key, value string, t valueType, opts ArgOptions) (any, error) {
	var (
		v    any
		err  error
		name string
		text = value
	)
	if n, ok := strings.CutPrefix(value, "@"); ok {
		name = n
		var rerr error
		if text, rerr = readArgText(key, name, opts); rerr != nil {
			return nil, rerr
		}
		v, err = fileValue(text, t)
	} else {
		if strings.HasPrefix(strings.TrimLeft(value, `\`), "@") && value[0] == '\\' {
			value = value[1:] // \@x is the text @x; \\@x is \@x
		}
		text = value
		v, _, err = coerce(value, t)
	}
	what := "value"
	if name != "" {
		what = fmt.Sprintf("file %q", name)
	}
	if err != nil {
		msg := err.Error()
		if name != "" {
			msg = fmt.Sprintf("file %q: %s", name, msg)
		}
		ae := &ArgError{Arg: key, Msg: msg, Err: err}
		if !utf8.ValidString(text) {
			return nil, ae
		}
		return nil, &typeMismatch{ArgError: ae, text: text, msg: msg}
	}
	if str, ok := v.(string); ok && !utf8.ValidString(str) {
		return nil, &ArgError{Arg: key, Msg: what + " is not UTF-8 text; a JSON string cannot hold it"}
	}
	return v, nil
}

// typeMismatch is a value whose text does not fit its property's type: an
// [*ArgError] unless the caller collects such values as violations.
type typeMismatch struct {
	*ArgError
	text string // the value's text (a file's whole contents)
	msg  string
}

func (m *typeMismatch) Unwrap() error { return m.ArgError }

// fileValue types the contents of a key=@path file. A string keeps the exact
// contents; other types are parsed after dropping one trailing newline, which
// editors and echo add.
func fileValue(content string, t valueType) (any, error) {
	if t.textOnly() {
		return content, nil
	}
	text, found := strings.CutSuffix(content, "\n")
	if found {
		text = strings.TrimSuffix(text, "\r")
	}
	v, asText, err := coerce(text, t)
	if err != nil {
		return nil, err
	}
	if asText {
		return content, nil // a union fell back to string
	}
	return v, nil
}

// FileTooLargeError is a file or standard input holding more than
// [ArgOptions.MaxSize] bytes.
type FileTooLargeError struct {
	// Size is the file's size, or 0 when reading passed the limit without
	// knowing it (a pipe has no size to ask first).
	Size int64
	// Limit is ArgOptions.MaxSize.
	Limit int64
}

// Error reads like "300 MiB, over the message-size limit of 256 MiB
// (--max-message-size)".
func (e *FileTooLargeError) Error() string {
	size := formatSize(e.Size)
	if e.Size == 0 {
		size = "more than " + formatSize(e.Limit)
	}
	return fmt.Sprintf("%s, over the message-size limit of %s (--max-message-size)", size, formatSize(e.Limit))
}

// formatSize writes n bytes in the largest binary unit, as
// --max-message-size takes them.
func formatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// readArgFile reads the file of an @path argument.
func readArgFile(arg, name string, opts ArgOptions) ([]byte, error) {
	if opts.ReadFile == nil {
		var b bytes.Buffer
		if err := readBounded(arg, name, opts.MaxSize, func(n int64) { b.Grow(int(n)) }, &b); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	if name == "" {
		return nil, &ArgError{Arg: arg, Msg: "missing file name after @"}
	}
	data, err := opts.ReadFile(name)
	if err != nil {
		return nil, readError(arg, name, err)
	}
	if opts.MaxSize > 0 && int64(len(data)) > opts.MaxSize {
		return nil, tooLarge(arg, name, int64(len(data)), opts.MaxSize)
	}
	return data, nil
}

// readArgText reads the file of a key=@path argument as text. From the
// file system it is read straight into the string, so a large file is
// held once, not once as bytes and again as their string.
func readArgText(arg, name string, opts ArgOptions) (string, error) {
	if opts.ReadFile != nil {
		data, err := readArgFile(arg, name, opts)
		return string(data), err
	}
	var b strings.Builder
	if err := readBounded(arg, name, opts.MaxSize, func(n int64) { b.Grow(int(n)) }, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// readBounded copies the file name into w, refusing it when it holds more
// than limit bytes (when limit is positive): at once when its size says
// so, else as soon as the read passes the limit. grow is told the size
// first, so w allocates once.
func readBounded(arg, name string, limit int64, grow func(int64), w io.Writer) error {
	if name == "" {
		return &ArgError{Arg: arg, Msg: "missing file name after @"}
	}
	f, err := os.Open(name)
	if err != nil {
		return readError(arg, name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if limit > 0 && fi.Size() > limit {
			return tooLarge(arg, name, fi.Size(), limit)
		}
		grow(fi.Size())
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	n, err := io.Copy(w, r)
	if err != nil {
		return readError(arg, name, err)
	}
	if limit > 0 && n > limit {
		return tooLarge(arg, name, 0, limit)
	}
	return nil
}

func readError(arg, name string, err error) error {
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err // the path is already in the message
	}
	return &ArgError{Arg: arg, Msg: fmt.Sprintf("reading file %q: %v", name, cause), Err: err}
}

func tooLarge(arg, name string, size, limit int64) error {
	te := &FileTooLargeError{Size: size, Limit: limit}
	where := fmt.Sprintf("file %q", name)
	if name == "-" && arg == argsFlag {
		where = "standard input"
	}
	return &ArgError{Arg: arg, Msg: fmt.Sprintf("%s is %v", where, te), Err: te}
}

// argsObject reads the object given by --args.
func argsObject(opts ArgOptions) (map[string]any, error) {
	var (
		data  []byte
		where string
	)
	switch {
	case opts.ArgsJSON == "-":
		if opts.Stdin == nil {
			return nil, &ArgError{Arg: argsFlag, Msg: "no standard input to read"}
		}
		r := opts.Stdin
		if opts.MaxSize > 0 {
			r = io.LimitReader(r, opts.MaxSize+1)
		}
		var err error
		if data, err = io.ReadAll(r); err != nil {
			return nil, &ArgError{Arg: argsFlag, Msg: fmt.Sprintf("reading standard input: %v", err), Err: err}
		}
		if opts.MaxSize > 0 && int64(len(data)) > opts.MaxSize {
			return nil, tooLarge(argsFlag, "-", 0, opts.MaxSize)
		}
		where = " on standard input"
	case strings.HasPrefix(opts.ArgsJSON, "@"):
		name := opts.ArgsJSON[1:]
		var err error
		if data, err = readArgFile(argsFlag, name, opts); err != nil {
			return nil, err
		}
		where = fmt.Sprintf(" in file %q", name)
	default:
		data = []byte(opts.ArgsJSON)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, &ArgError{Arg: argsFlag, Msg: fmt.Sprintf("invalid JSON%s: %v", where, err), Err: err}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &ArgError{Arg: argsFlag, Msg: fmt.Sprintf("want a JSON object%s, got %s", where, kindOf(v))}
	}
	return m, nil
}

// quote shows a value in a message, shortened so a large file stays readable.
func quote(s string) string {
	const limit = 60
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}
