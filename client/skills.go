package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SkillsExtension is the identifier of the skills extension (SEP-2640),
// the key a server declares under capabilities.extensions.
const SkillsExtension = "io.modelcontextprotocol/skills"

// SkillEntry is one skill of a skills/list (or skills/get) result: where
// its SKILL.md is, the frontmatter the server vouches for, and the files
// of the skill with their sizes and digests. A host verifies every file it
// reads against the entry ([VerifySkillFile]).
type SkillEntry struct {
	// URI is the skill's SKILL.md, e.g. skill://pdf-processing/SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is SKILL.md's YAML frontmatter as JSON (name,
	// description, ...), kept as the server sent it.
	Frontmatter json.RawMessage `json:"frontmatter,omitempty"`
	// Resources are the skill's files, SKILL.md included; empty when
	// Dynamic.
	Resources []SkillResource `json:"-"`
	// Dynamic says the server sent resources: "dynamic": the files are not
	// known ahead, so none can be verified by size or digest.
	Dynamic bool `json:"-"`

	// Raw is the entry as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// SkillResource is one file of a skill: its URI, its digest
// ("sha256:<hex>" of its bytes) and its size in bytes.
type SkillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest,omitempty"`
	Size   *int64 `json:"size,omitempty"`
}

// UnmarshalJSON decodes an entry whose resources are a list of files or
// the string "dynamic", and keeps the entry's bytes in Raw.
func (e *SkillEntry) UnmarshalJSON(data []byte) error {
	var w struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = SkillEntry{URI: w.URI, Frontmatter: w.Frontmatter, Raw: slices.Clone(data)}
	switch r := bytes.TrimSpace(w.Resources); {
	case len(r) == 0 || string(r) == "null":
	case r[0] == '"':
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return err
		}
		if s != "dynamic" {
			return fmt.Errorf("skill %q: resources is %q, expected a list of files or \"dynamic\"", w.URI, s)
		}
		e.Dynamic = true
	default:
		if err := json.Unmarshal(r, &e.Resources); err != nil {
			return fmt.Errorf("skill %q: resources: %w", w.URI, err)
		}
	}
	return nil
}

// MarshalJSON returns Raw when the entry came from a server, else the
// entry's fields.
func (e SkillEntry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) > 0 {
		return e.Raw, nil
	}
	m := map[string]any{"uri": e.URI}
	if len(e.Frontmatter) > 0 {
		m["frontmatter"] = e.Frontmatter
	}
	if e.Dynamic {
		m["resources"] = "dynamic"
	} else if e.Resources != nil {
		m["resources"] = e.Resources
	}
	return json.Marshal(m)
}

// Name is the skill's name: frontmatter.name, else the last segment of the
// skill's path (skill://acme/pdf/SKILL.md → pdf).
func (e SkillEntry) Name() string {
	if s := e.FrontmatterString("name"); s != "" {
		return s
	}
	p := strings.TrimSuffix(e.URI, "/SKILL.md")
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[i+1:]
	}
	return p
}

// FrontmatterString returns the frontmatter field key when it is a string,
// else "".
func (e SkillEntry) FrontmatterString(key string) string {
	var fm map[string]json.RawMessage
	if json.Unmarshal(e.Frontmatter, &fm) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(fm[key], &s) != nil {
		return ""
	}
	return s
}

// Resource returns the entry's file whose URI is uri.
func (e SkillEntry) Resource(uri string) (SkillResource, bool) {
	for _, r := range e.Resources {
		if r.URI == uri {
			return r, true
		}
	}
	return SkillResource{}, false
}

// ListSkills returns every skill of skills/list, following pagination to
// the end. It reads no skill file: hosts must not fetch a skill's files
// before the skill is loaded.
func (c *Client) ListSkills(ctx context.Context) ([]SkillEntry, error) {
	return listAll[SkillEntry](ctx, c, "skills/list", "skills", nil)
}

// GetSkill returns the entry of the skill whose SKILL.md is uri
// (skills/get).
func (c *Client) GetSkill(ctx context.Context, uri string) (*SkillEntry, error) {
	raw, err := c.Call(ctx, "skills/get", map[string]string{"uri": uri})
	if err != nil {
		return nil, err
	}
	var res struct {
		Skill *SkillEntry `json:"skill"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &ProtocolError{Method: "skills/get", Msg: "result is not a skills/get result: " + err.Error()}
	}
	if res.Skill == nil {
		return nil, &ProtocolError{Method: "skills/get", Msg: "result has no skill"}
	}
	return res.Skill, nil
}

// ContentBytes returns the bytes of a resources/read content item: the
// UTF-8 text, or the decoded blob.
func ContentBytes(rc ResourceContents) ([]byte, error) {
	switch {
	case rc.Text != nil:
		return []byte(*rc.Text), nil
	case rc.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*rc.Blob)
		if err != nil {
			return nil, fmt.Errorf("%s: blob is not base64: %w", rc.URI, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s: the content has neither text nor blob", rc.URI)
}

// SkillVerifyError is a skill file that does not match its entry; the
// content must not be used.
type SkillVerifyError struct {
	// URI is the file read.
	URI string
	// Msg says what differs.
	Msg string
}

func (e *SkillVerifyError) Error() string {
	return "verifying " + e.URI + " against its skills/list entry: " + e.Msg
}

// VerifySkillFile checks content, the bytes read from uri, against entry:
// the file must be listed in the entry (unless its resources are dynamic),
// its byte length must equal the entry's size and its sha256 the entry's
// digest; for the entry's SKILL.md, the YAML frontmatter must equal the
// entry's frontmatter field by field. The error, a [*SkillVerifyError],
// names what differs; on error the content must not be used.
func VerifySkillFile(entry SkillEntry, uri string, content []byte) error {
	file := uri
	if i := strings.LastIndex(uri, "/"); i >= 0 {
		file = uri[i+1:]
	}
	fail := func(format string, args ...any) error {
		return &SkillVerifyError{URI: uri, Msg: file + ": " + fmt.Sprintf(format, args...)}
	}
	if !entry.Dynamic {
		r, ok := entry.Resource(uri)
		if !ok {
			return fail("the entry does not list this file")
		}
		if r.Size == nil || r.Digest == "" {
			return fail("the entry gives no size or no digest, so the file cannot be verified")
		}
		if n := int64(len(content)); n != *r.Size {
			return fail("size %d bytes, the entry says %d", n, *r.Size)
		}
		algo, want, ok := strings.Cut(r.Digest, ":")
		if !ok || !strings.EqualFold(algo, "sha256") {
			return fail("the entry's digest %q is not sha256:<hex>, the one algorithm mcpctl verifies", r.Digest)
		}
		sum := sha256.Sum256(content)
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, want) {
			return fail("digest sha256:%s, the entry says %s", got, r.Digest)
		}
	}
	if uri != entry.URI {
		return nil
	}
	fm, err := parseFrontmatter(content)
	if err != nil {
		return fail("%v", err)
	}
	if msg := compareFrontmatter(fm, entry.Frontmatter); msg != "" {
		return fail("%s", msg)
	}
	return nil
}

// parseFrontmatter returns the YAML frontmatter of a SKILL.md, as JSON: the
// block between a first line "---" and the next line "---". A UTF-8 byte
// order mark before it and CRLF line ends are accepted.
func parseFrontmatter(content []byte) (json.RawMessage, error) {
	s := strings.TrimPrefix(string(content), "\ufeff")
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return nil, errors.New("no YAML frontmatter (a block between --- lines at the start of the file)")
	}
	var block strings.Builder
	closed := false
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t\r") == "---" {
			closed = true
			break
		}
		block.WriteString(line)
		block.WriteByte('\n')
	}
	if !closed {
		return nil, errors.New("the YAML frontmatter has no closing --- line")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block.String()), &doc); err != nil {
		return nil, fmt.Errorf("the YAML frontmatter does not parse: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the YAML frontmatter is not a mapping of fields")
	}
	budget := maxFrontmatterNodes
	v, err := yamlJSON(doc.Content[0], 0, &budget)
	if err != nil {
		return nil, fmt.Errorf("the YAML frontmatter: %w", err)
	}
	return json.Marshal(v)
}

// maxFrontmatterNodes bounds the values a frontmatter expands to, aliases
// included: a few lines of nested aliases would otherwise expand to
// billions.
const maxFrontmatterNodes = 100_000

// yamlJSON converts a YAML node to the JSON value it stands for. Unlike
// decoding into any, a timestamp stays the text it was written as (a
// skills/list entry carries it as that string), and a value JSON cannot
// hold (a non-string key, .inf) is an error rather than a silent change.
// Each node visited costs one of *budget.
func yamlJSON(n *yaml.Node, depth int, budget *int) (any, error) {
	if depth > 64 {
		return nil, errors.New("nested more than 64 levels deep")
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("more than %d values (aliases expanded)", maxFrontmatterNodes)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return yamlJSON(n.Alias, depth+1, budget)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" && k.ShortTag() != "!!int" && k.ShortTag() != "!!bool" {
				return nil, fmt.Errorf("line %d: a key that is not a string", k.Line)
			}
			v, err := yamlJSON(n.Content[i+1], depth+1, budget)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		a := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlJSON(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		return a, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
				return nil, fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
			}
			return v, nil
		default: // !!str, !!timestamp, !!binary: the text as written
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: an unexpected YAML node", n.Line)
}

// compareFrontmatter compares the file's frontmatter with the entry's,
// both JSON, field by field, and says what differs ("" when nothing does).
func compareFrontmatter(file, entry json.RawMessage) string {
	var f, e map[string]json.RawMessage
	if err := json.Unmarshal(file, &f); err != nil {
		return "the file's frontmatter is not an object"
	}
	if len(bytes.TrimSpace(entry)) == 0 || string(bytes.TrimSpace(entry)) == "null" {
		return "the entry has no frontmatter to compare with"
	}
	if err := json.Unmarshal(entry, &e); err != nil {
		return "the entry's frontmatter is not an object"
	}
	keys := make([]string, 0, len(f)+len(e))
	for k := range f {
		keys = append(keys, k)
	}
	for k := range e {
		if _, ok := f[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diffs []string
	for _, k := range keys {
		fv, inFile := f[k]
		ev, inEntry := e[k]
		switch {
		case !inEntry:
			diffs = append(diffs, fmt.Sprintf("frontmatter field %q is %s, the entry has no such field", k, fv))
		case !inFile:
			diffs = append(diffs, fmt.Sprintf("frontmatter has no field %q, the entry says %s", k, ev))
		case !jsonEqual(fv, ev):
			diffs = append(diffs, fmt.Sprintf("frontmatter field %q is %s, the entry says %s", k, fv, ev))
		}
	}
	return strings.Join(diffs, "; ")
}

// jsonEqual reports whether two JSON texts are the same value: objects
// compare by members, numbers by value (1 equals 1.0).
func jsonEqual(a, b json.RawMessage) bool {
	va, err1 := decodeNumbers(a)
	vb, err2 := decodeNumbers(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// decodeNumbers decodes JSON with every number as its exact value in
// lowest terms, so that equal numbers compare equal.
func decodeNumbers(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return normalizeNumbers(v), nil
}

// exactNumber is a JSON number in lowest terms; a type of its own, so that
// the number 1 never equals the string "1".
type exactNumber string

func normalizeNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok {
			return exactNumber(r.RatString())
		}
		return exactNumber(v)
	case map[string]any:
		for k, x := range v {
			v[k] = normalizeNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normalizeNumbers(x)
		}
	}
	return v
}
