package schema

import (
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
	// @path. Nil means os.ReadFile.
	ReadFile func(name string) ([]byte, error)
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
	if opts.ReadFile == nil {
		opts.ReadFile = os.ReadFile
	}
	out := map[string]any{}
	if opts.ArgsJSON != "" {
		var err error
		if out, err = argsObject(opts); err != nil {
			return nil, err
		}
	}
	seen := make(map[string]bool, len(args))
	for _, a := range args {
		key, isJSON, value, ok := splitArg(a)
		if !ok {
			return nil, &ArgError{Arg: a, Msg: "expected key=value, key:=json or key=@file"}
		}
		if seen[key] {
			return nil, &ArgError{Arg: key, Msg: "given more than once"}
		}
		seen[key] = true
		var (
			v   any
			err error
		)
		if isJSON {
			v, err = jsonArg(key, value, opts.ReadFile)
		} else {
			v, err = valueArg(key, value, view.propertyType(key), opts.ReadFile)
			var mm *typeMismatch
			if errors.As(err, &mm) {
				if opts.Mismatches == nil {
					return nil, mm.ArgError
				}
				*opts.Mismatches = append(*opts.Mismatches, Violation{Path: "/" + escapePointer(key), Keyword: "type", Msg: mm.msg})
				v, err = mm.text, nil
			}
		}
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	return out, nil
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
func jsonArg(key, value string, readFile func(string) ([]byte, error)) (any, error) {
	data, where, hint := []byte(value), "", fmt.Sprintf(" (for a string, write %s=…)", key)
	if name, ok := strings.CutPrefix(value, "@"); ok {
		var err error
		if data, err = readArgFile(key, name, readFile); err != nil {
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
func valueArg(key, value string, t valueType, readFile func(string) ([]byte, error)) (any, error) {
	var (
		v    any
		err  error
		name string
		text = value
	)
	if n, ok := strings.CutPrefix(value, "@"); ok {
		name = n
		data, rerr := readArgFile(key, name, readFile)
		if rerr != nil {
			return nil, rerr
		}
		text = string(data)
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

// readArgFile reads the file of an @path argument.
func readArgFile(arg, name string, readFile func(string) ([]byte, error)) ([]byte, error) {
	if name == "" {
		return nil, &ArgError{Arg: arg, Msg: "missing file name after @"}
	}
	data, err := readFile(name)
	if err != nil {
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err // the path is already in the message
		}
		return nil, &ArgError{Arg: arg, Msg: fmt.Sprintf("reading file %q: %v", name, cause), Err: err}
	}
	return data, nil
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
		var err error
		if data, err = io.ReadAll(opts.Stdin); err != nil {
			return nil, &ArgError{Arg: argsFlag, Msg: fmt.Sprintf("reading standard input: %v", err), Err: err}
		}
		where = " on standard input"
	case strings.HasPrefix(opts.ArgsJSON, "@"):
		name := opts.ArgsJSON[1:]
		var err error
		if data, err = readArgFile(argsFlag, name, opts.ReadFile); err != nil {
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
