package signing

import (
	"fmt"

	"github.com/gowebpki/jcs"
)

// Canonical form names, as given to [Canonical] and to mcpctl's --canonical flag.
const (
	// FormJCS is RFC 8785, the JSON Canonicalization Scheme. It is the default.
	FormJCS = "jcs"
	// FormPython is what Python prints for json.dumps(json.loads(data), sort_keys=True).
	FormPython = "python"
)

// Canonical returns the canonical form of the JSON text data in the named
// form: [FormJCS] or [FormPython]. An empty form means [FormJCS].
func Canonical(form string, data []byte) ([]byte, error) {
	switch form {
	case FormJCS, "":
		return JCS(data)
	case FormPython:
		return Python(data)
	default:
		return nil, fmt.Errorf("unknown canonical form %q: use %q or %q", form, FormJCS, FormPython)
	}
}

// JCS returns the RFC 8785 canonical form of the JSON text data: no
// insignificant whitespace, object members sorted by the UTF-16 code units of
// their names, strings with only the escapes RFC 8785 requires, and numbers
// formatted as ECMAScript formats an IEEE 754 double (so 1E30 becomes 1e+30
// and 4.50 becomes 4.5). Input that is not I-JSON is refused: duplicate
// member names, lone surrogates, invalid UTF-8, and numbers out of the range
// of a double.
//
// The work is done by github.com/gowebpki/jcs, derived from the reference
// implementation by the RFC's author; the tests in this package hold it to the
// RFC's examples.
func JCS(data []byte) ([]byte, error) {
	out, err := jcs.Transform(data)
	if err != nil {
		return nil, fmt.Errorf("jcs canonical form: %w", err)
	}
	return out, nil
}
