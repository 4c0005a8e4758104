package transport

// ViolationKind says which server misbehaviour a [Violation] reports.
type ViolationKind int

const (
	// ViolationStdoutLine is a line a stdio server wrote to stdout that is
	// not a JSON object or array; [Violation.Line] holds it.
	ViolationStdoutLine ViolationKind = iota + 1
	// ViolationHTTP is an HTTP server's misbehaviour that does not end the
	// session: an event that is not JSON-RPC, a body where none belongs, a
	// session id with characters outside visible ASCII. [Violation.Detail]
	// says what the server did.
	ViolationHTTP
	// ViolationTooLarge is a message over the size limit that answered no
	// pending request and was skipped. It breaks no rule of the protocol;
	// it is reported so that the user knows a message went missing.
	// [Violation.Detail] says which.
	ViolationTooLarge
)

// Violation is something a server sent that the transport skipped while
// the session goes on. Transports hand it to their options' OnViolation
// as data; how it reads to a user is the caller's to decide.
type Violation struct {
	Kind ViolationKind
	// Detail is a one-line description, redacted with the transport's
	// Redactor, for the HTTP kinds.
	Detail string
	// Line is the stdout line as the server wrote it, at most 200 bytes
	// of it, for [ViolationStdoutLine].
	Line []byte
}
