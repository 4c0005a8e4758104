package scan

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpctl/mcpctl/textguard"
)

// Field kinds: which part of a definition a text comes from. Local rules
// name them in their fields list.
const (
	FieldName        = "name"
	FieldTitle       = "title"
	FieldDescription = "description"
	FieldSchema      = "schema" // titles and descriptions inside inputSchema and outputSchema
	FieldPrompt      = "prompt" // a prompt's description and its arguments' descriptions
)

// FieldKinds lists the field kinds local rules may name.
func FieldKinds() []string {
	return []string{FieldName, FieldTitle, FieldDescription, FieldSchema, FieldPrompt}
}

// text is one string a model reads, and where it is.
type text struct {
	kind  string // tool or prompt
	item  string
	field string // JSON path inside the item
	fkind string // one of the field kinds
	value string
}

// item is one decoded definition.
type item struct {
	kind string
	name string
	raw  json.RawMessage
	def  map[string]any
}

func decodeItems(kind string, raws []json.RawMessage) []item {
	var out []item
	for _, raw := range raws {
		var def map[string]any
		if json.Unmarshal(raw, &def) != nil {
			continue
		}
		name, _ := def["name"].(string)
		out = append(out, item{kind: kind, name: name, raw: raw, def: def})
	}
	return out
}

// texts lists the strings of an item that a model reads.
func (it item) texts() []text {
	var out []text
	add := func(field, fkind string, v any) {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, text{it.kind, it.name, field, fkind, s})
		}
	}
	add("name", FieldName, it.def["name"])
	add("title", FieldTitle, it.def["title"])
	if it.kind == "prompt" {
		add("description", FieldPrompt, it.def["description"])
		args, _ := it.def["arguments"].([]any)
		for i, a := range args {
			if m, ok := a.(map[string]any); ok {
				add(fmt.Sprintf("arguments[%d].description", i), FieldPrompt, m["description"])
			}
		}
		return out
	}
	add("description", FieldDescription, it.def["description"])
	if ann, ok := it.def["annotations"].(map[string]any); ok {
		add("annotations.title", FieldTitle, ann["title"])
	}
	for _, key := range []string{"inputSchema", "outputSchema"} {
		schemaTexts(key, it.def[key], func(path string, s string) {
			out = append(out, text{it.kind, it.name, path, FieldSchema, s})
		})
	}
	return out
}

// schemaTexts walks a schema and reports every title, description and
// string default or enum value.
func schemaTexts(path string, v any, visit func(path, s string)) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			p := path + "." + k
			switch s := v[k].(type) {
			case string:
				if k == "description" || k == "title" || k == "default" {
					visit(p, s)
				}
			default:
				schemaTexts(p, s, visit)
			}
		}
	case []any:
		for i, e := range v {
			p := path + "[" + strconv.Itoa(i) + "]"
			if s, ok := e.(string); ok {
				visit(p, s)
				continue
			}
			schemaTexts(p, e, visit)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pattern is a built-in poisoning rule's regular expression.
type pattern struct {
	rule string
	re   *regexp.Regexp
	what string
}

func poisoningPatterns() []pattern {
	return []pattern{
		{HiddenBlock, regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|secret|hidden|admin|critical|sys|prompt)\s*>|\[\s*(INST|SYSTEM)\s*\]`), "a block addressed to the model"},
		{OverrideIntent, regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\b[^.\n]{0,30}\b(previous|prior|above|earlier|other|all)\b[^.\n]{0,20}\b(instructions?|rules|prompts?|directions)\b|\bbefore (using|calling) (any|this|other) tools?\b[^.\n]{0,40}\b(must|always)\b`), "an order to override the model's instructions"},
		{Concealment, regexp.MustCompile(`(?i)\b(do not|don't|never|without)\s+(tell(ing)?|inform(ing)?|mention(ing)?|reveal(ing)?|notify(ing)?|alert(ing)?|show(ing)?)\b[^.\n]{0,20}\b(the )?user\b|\b(do not|don't|never) (mention|reveal) (this|that|it)\b|\bkeep (this|it) (secret|hidden)\b`), "an order to hide something from the user"},
		{CredentialAccess, regexp.MustCompile(`(?i)~/\.ssh\b|\bid_(rsa|ed25519|ecdsa|dsa)\b|(^|[\s'"/(])\.env\b|\.aws/credentials|\bcredentials\.json\b|\bprivate[ _-]?key\b|\bmcp\.json\b|/etc/(passwd|shadow)\b|\.netrc\b|\.npmrc\b|\.pgpass\b`), "a request to read credentials"},
		{Exfiltration, regexp.MustCompile(`(?i)\b(send|post|upload|forward|transmit|exfiltrate|leak)\b[^.\n]{0,80}\b(to|at)\s+(https?://|ftp://|wss?://|[\w.+-]+@[\w-]+\.[\w.]+)`), "a request to send data to an address"},
	}
}

// checker collects the findings of one scan.
type checker struct {
	server   *Server
	findings []Finding
}

func (c *checker) add(rule string, sev Severity, kind, item, field, msg string) {
	if sev == "" {
		r, _ := LookupRule(rule)
		sev = r.Severity
	}
	c.findings = append(c.findings, Finding{RuleID: rule, Severity: sev, Server: c.server.Name, Kind: kind,
		Item: textguard.Safe(item), Field: field, Message: msg, File: c.server.File})
}

// Options are what a scan checks beyond the definitions themselves.
type Options struct {
	// Local are rules from a --rules file.
	Local []LocalRule
}

// Check scans each server and the configuration they make together.
// Findings are sorted (see [Sort]).
func Check(servers []*Server, opts Options) []Finding {
	var out []Finding
	for _, s := range servers {
		out = append(out, CheckServer(s, opts)...)
	}
	out = append(out, crossServer(servers)...)
	Sort(out)
	return out
}

// CheckServer scans one server's definitions.
func CheckServer(s *Server, opts Options) []Finding {
	c := &checker{server: s}
	items := append(decodeItems("tool", s.Tools), decodeItems("prompt", s.Prompts)...)
	pats := poisoningPatterns()
	for _, it := range items {
		for _, t := range it.texts() {
			for _, p := range pats {
				if m := p.re.FindString(t.value); m != "" {
					c.add(p.rule, "", t.kind, t.item, t.field, fmt.Sprintf("%s: %q", p.what, textguard.Safe(m)))
				}
			}
			for _, r := range opts.Local {
				if r.applies(t.fkind) {
					if m := r.re.FindString(t.value); m != "" {
						c.add(r.ID, r.Severity, t.kind, t.item, t.field, fmt.Sprintf("%s: %q", r.Message, textguard.Safe(m)))
					}
				}
			}
		}
		c.hidden(it)
		c.homoglyph(it)
		if it.kind == "tool" {
			c.surface(it)
		}
	}
	Sort(c.findings)
	return c.findings
}

// hidden reports hidden characters anywhere in the definition, member
// names included.
func (c *checker) hidden(it item) {
	found, err := textguard.JSON("", it.raw)
	if err != nil {
		return
	}
	for _, f := range found {
		rule := map[textguard.Kind]string{
			textguard.KindTag: TagCharacters, textguard.KindBidi: BidiControls, textguard.KindZeroWidth: ZeroWidth,
			textguard.KindEscape: TerminalEscape, textguard.KindControl: TerminalEscape,
		}[f.Kind]
		if rule == "" {
			continue
		}
		msg := f.String()
		if _, after, ok := strings.Cut(msg, ": "); ok && f.Path != "" {
			msg = after
		}
		c.add(rule, "", it.kind, it.name, f.Path, msg)
	}
}

// homoglyph reports a name with letters outside ASCII: a name of several
// scripts, or one whose letters have ASCII look-alikes.
func (c *checker) homoglyph(it item) {
	var scripts []string
	var alike []string
	for _, r := range it.name {
		if r < 0x80 || !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			continue
		}
		s := scriptOf(r)
		if !slices.Contains(scripts, s) {
			scripts = append(scripts, s)
		}
		if a, ok := confusables[r]; ok {
			alike = append(alike, fmt.Sprintf("%s (U+%04X, looks like %q)", s, r, a))
		}
	}
	if len(scripts) == 0 {
		return
	}
	msg := fmt.Sprintf("the name %q has letters outside ASCII (%s)", textguard.Safe(it.name), strings.Join(scripts, ", "))
	if len(alike) > 0 {
		msg += ": " + strings.Join(alike, "; ")
	}
	if asciiLetters(it.name) {
		msg += "; it mixes them with Latin letters"
	}
	c.add(Homoglyph, "", it.kind, it.name, "name", msg)
}

func asciiLetters(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && unicode.IsLetter(r) }) >= 0
}

func scriptOf(r rune) string {
	for _, s := range []string{"Cyrillic", "Greek", "Armenian", "Cherokee", "Latin", "Han", "Arabic", "Hebrew"} {
		if unicode.Is(unicode.Scripts[s], r) {
			return s
		}
	}
	if unicode.In(r, unicode.Number) {
		return "non-ASCII digits"
	}
	return "other"
}

// confusables are letters of other scripts that look like ASCII ones, the
// common part of Unicode's confusables list.
var confusables = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'х': 'x', 'у': 'y', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'һ': 'h', 'ӏ': 'l',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'І': 'I',
	'α': 'a', 'ο': 'o', 'ν': 'v', 'ρ': 'p', 'τ': 't', 'ι': 'i', 'κ': 'k', 'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H',
	'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	'ı': 'i', 'ℓ': 'l', 'ｅ': 'e', 'ａ': 'a', 'ｏ': 'o',
}
