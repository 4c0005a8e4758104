// Package pin remembers each tool's definition the first time a server
// shows it, and reports every later change: a server that rewrites a
// tool's description after a person approved it (a "rug pull") is caught
// by the next tools/list the proxy sees.
//
// A definition is pinned by the SHA-256 of the canonical JSON (RFC 8785) of
// its name, title, description, inputSchema, outputSchema and annotations,
// so the order of keys and whitespace never count as a change. The pins of
// one server live in one file of [Store.Dir], named by the digest of the
// server's description (a command line or URL may hold secrets), written
// whole and renamed into place under a lock, so that several proxies can
// observe the same server at once.
package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/mcpctl/mcpctl/internal/linediff"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/textguard"
)

// pinned reports the members of a tool definition that are pinned: what
// a model is shown and what the host checks calls against. Others, such
// as _meta and icons, may change from one listing to the next. A member
// named as one of them in another case is pinned too: a host decoding
// with Go's encoding/json, which matches names regardless of case, reads
// "Description" as the description.
func pinned(member string) bool {
	for _, p := range [...]string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"} {
		if strings.EqualFold(member, p) {
			return true
		}
	}
	return false
}

// Definition is a tool definition in canonical form.
type Definition struct {
	// Name is the tool's name.
	Name string
	// JSON is the canonical JSON of its pinned members.
	JSON json.RawMessage
	// SHA256 is the hex SHA-256 of JSON.
	SHA256 string
}

// Canonical returns the canonical form of a tool definition as tools/list
// gives it. A definition that is not an object with a string name is an
// error.
func Canonical(def json.RawMessage) (Definition, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(def, &members); err != nil {
		return Definition{}, &InvalidError{Reason: "not a JSON object: " + err.Error()}
	}
	var name string
	if err := json.Unmarshal(members["name"], &name); err != nil || name == "" {
		return Definition{}, &InvalidError{Reason: "no name"}
	}
	for k := range members {
		if !pinned(k) {
			delete(members, k)
		}
	}
	// Marshalling the map sorts its keys and checks the members; JCS then
	// sorts the keys inside them and settles numbers and escapes.
	sorted, err := json.Marshal(members)
	if err != nil {
		return Definition{}, &InvalidError{Name: name, Reason: err.Error()}
	}
	canon, err := signing.JCS(sorted)
	if err != nil {
		// Not I-JSON (a duplicate key, a number out of range): the sorted
		// form is still the same for the same definition.
		canon = sorted
	}
	sum := sha256.Sum256(canon)
	return Definition{Name: name, JSON: canon, SHA256: hex.EncodeToString(sum[:])}, nil
}

// InvalidError says why a tool definition cannot be pinned.
type InvalidError struct {
	Name   string
	Reason string
}

func (e *InvalidError) Error() string {
	if e.Name != "" {
		return "tool definition " + e.Name + ": " + e.Reason
	}
	return "tool definition: " + e.Reason
}

// Diff is a unified diff of two definitions' indented canonical JSON,
// headed "pinned" and "current", with hidden characters written out as
// \u{...} (see [textguard.Safe]): a change in invisible text would
// otherwise show as two equal lines. It is empty when they are equal.
func Diff(old, new json.RawMessage) string {
	return textguard.Safe(linediff.Unified("pinned", indent(old), "current", indent(new)))
}

// indent writes a definition as indented canonical JSON, ending in a
// newline.
func indent(def json.RawMessage) string {
	if len(def) == 0 {
		return ""
	}
	canon, err := signing.JCS(def)
	if err != nil {
		canon = def
	}
	var b bytes.Buffer
	if json.Indent(&b, canon, "", "  ") != nil {
		return strings.TrimSuffix(string(canon), "\n") + "\n"
	}
	b.WriteByte('\n')
	return b.String()
}

// Key is the name of a server's pin file: the hex SHA-256 of the server's
// description (its command line or URL), which may hold secrets.
func Key(server string) string {
	sum := sha256.Sum256([]byte(server))
	return hex.EncodeToString(sum[:])
}

// ShortKeyLen is how many hex digits of a [Key] lists show and commands
// accept, as a short Git commit id.
const ShortKeyLen = 12
