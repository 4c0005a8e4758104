// Package render turns the plain values commands produce into output:
//
//   - on a terminal, styled text and tables ([Printer.Table],
//     [Printer.Columns]) that fit the terminal width by wrapping columns at
//     word boundaries, names never cut;
//   - when piped, plain tab-separated text with full values and no header,
//     so that cut, awk and grep work on it;
//   - JSON ([Printer.JSON]), indented, with key order kept for raw messages,
//     always valid UTF-8, and never much larger than its input however
//     deeply it nests;
//   - MCP content blocks ([Printer.Content], [Printer.Messages]): text is
//     written as is (or from its raw JSON, [Printer.TextJSON],
//     [WriteJSONString]); images, audio and blobs are decoded into files
//     and a line says where they went;
//   - descriptions of one tool, prompt, resource or template
//     ([Printer.DescribeTool] and the like), a tool's schemas as tables
//     of fields ([SchemaFields], [SchemaType]).
//
// A [Printer] carries the facts about its destination (TTY, colour, width)
// that commands take from their IO streams. Its styles are defined once, in
// styles.go, and rendered through lipgloss renderers bound to the real
// writers with the colour profile set from those facts: when colour is off
// the profile is plain ASCII, so piped output and NO_COLOR never contain
// escape sequences, and lipgloss never probes the terminal.
//
// Data goes to Out; warnings ([Printer.Warning], [Warning], [ErrorLine])
// go to ErrOut. [StderrWriter] dims a server's stderr lines on a colour
// terminal. Repeated warnings are counted rather than repeated by a
// [Warner].
//
// Terminal safety: whatever a server sends is printed to a terminal only
// with its control characters made visible ([Sanitize]): content blocks,
// table cells, fields, JSON strings, server stderr and, through
// [Printer.Untrusted] and [Printer.UntrustedErr], what commands print
// themselves. Out counts as a terminal when it is a TTY or has colour
// forced on. Piped output is byte-exact, except that JSON output is always
// valid UTF-8 ([Printer.JSON]).
package render
