// Package schema is where mcpctl deals with JSON Schemas: it turns
// command-line arguments into a tool's arguments object, typed by the tool's
// inputSchema ([ParseArgs]), lists an input schema's properties for display
// ([Properties]), compiles schemas ([Compile]) and validates values against
// them ([Schema.Validate]), with "did you mean" hints for misspelt names
// ([Suggest]), and checks what a server sends against the official MCP
// schema of the negotiated revision ([Checker]).
//
// # Validation
//
// [Compile] takes a schema as the server sent it. Without "$schema" it is
// JSON Schema 2020-12, as MCP specifies; "$schema" may name 2019-09,
// draft-07, draft-06 or draft-04, and any other dialect is an error.
// References inside the document are resolved; mcpctl never fetches one
// outside it (no network, no files), and such a schema does not compile.
// The formats email, uri, date and date-time are checked; other formats are
// annotations. [Schema.Validate] reports every [Violation] with the JSON
// pointer of the offending value and a message saying what was expected and
// what was found:
//
//	/city: required property is missing
//	/days: must be >= 1, got 0
//	/unit: must be one of "c", "f", got "k"
//	/: additional property "colour" is not allowed; did you mean "color"?
//
// # Arguments
//
// Arguments follow the httpie convention:
//
//	key=value      typed by the property's schema (see below)
//	key:=json      a raw JSON value: n:=3, tags:='["a","b"]', opts:='{"x":1}'
//	key=@path      the contents of a file, typed like key=value
//	key:=@path     a JSON value read from a file
//	key=\@text     the literal text "@text" (one leading backslash before @ is dropped)
//
// An argument is split at its first "=" ("key:=" when a colon comes right
// before it), so values may contain "=" and ":=" freely. A key given twice is
// an error. The --args flag ([ArgOptions.ArgsJSON]) gives a whole JSON object
// (literal, @path or "-" for standard input); key=value arguments are merged
// over it.
//
// key=value is typed by the "type" of the property in the input schema:
// integer (int64, "1.5" is rejected), number ([encoding/json.Number], so "2.50"
// is sent as 2.50), boolean (true, false, 1 or 0, any case), null (only
// "null"), array and object (the value must be JSON of that kind); string,
// unknown properties and schemas without a type keep the text as it is. A
// union ("type": ["integer", "string"], or anyOf/oneOf of simple types) tries
// integer, number, boolean, null, array and object in that order and falls
// back to the text if string is allowed; so with a union that allows null,
// "null" is null, and key:='"null"' passes the string. A property with only
// enum (or const) is matched against its members. Typing reads the compiled
// schema, the one validation uses, so "$ref"s are followed as the validator
// resolves them; a schema that does not compile types nothing (every value
// stays text) and [Compile] says why.
//
// For key=@path, a string property receives the file's exact contents; for
// other types one trailing newline is trimmed before the text is typed.
//
// # Nested fields
//
// A dotted key sets a field of a nested object, named as `mcpctl describe`
// names nested fields: metadata.location=Paris gives
// {"metadata": {"location": "Paris"}}, typed by the nested property's
// schema (metadata.count=3 sends the integer 3 when count is an integer).
// Fields set this way are merged into the object --args gives, and
// key:=json still sets a whole object (metadata:='{"location":"Paris"}');
// setting a whole object and a field of it in one call is an error. The
// rule for a key holding dots, applied at each level:
//
//   - a property the schema declares by that exact name wins: with a
//     property "a.b", a.b=1 sets it, not field b of a;
//   - else the key nests into the longest dotted prefix that names a
//     declared property describing an object (by "type" or "properties"),
//     and the rest is resolved inside it by the same rule;
//   - else the key is itself, dots and all. Without a schema (prompt
//     arguments, sign request) dots never nest.
//
// # Unknown arguments
//
// [Schema.UnknownArgs] lists the keys the schema does not declare, at every
// level it describes, however they were given (key=value, a dotted key,
// key:=json or the --args object). This is mcpctl's rule, stricter than
// JSON Schema, where a missing additionalProperties allows anything: a key
// is refused unless declared (in properties or patternProperties) or the
// object's schema explicitly allows others (additionalProperties or
// unevaluatedProperties true or a schema). A nested object whose schema
// declares no properties at all is free-form. mcpctl call and validate
// apply the rule; their --allow-unknown lifts it, which does not lift an
// explicit additionalProperties: false (--no-validate sends anyway).
package schema
