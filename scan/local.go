package scan

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LocalRule is a rule from a --rules file: a regular expression over some
// fields of every definition.
type LocalRule struct {
	ID       string   `yaml:"id"`
	Severity Severity `yaml:"severity"`
	// Fields are the field kinds it reads (see [FieldKinds]); empty for
	// all of them.
	Fields  []string `yaml:"fields"`
	Pattern string   `yaml:"pattern"`
	Message string   `yaml:"message"`
	re      *regexp.Regexp
}

func (r *LocalRule) applies(fkind string) bool {
	return len(r.Fields) == 0 || slices.Contains(r.Fields, fkind)
}

// rulesShape is what a rules file holds, for the errors that say a file
// is not one.
const rulesShape = "want a mapping with rules: a list of {id, severity, fields, pattern, message}"

// ruleKeys are the keys a rule of a rules file may have.
var ruleKeys = []string{"id", "severity", "fields", "pattern", "message"}

// checkRuleKeys reports a key of the file's top mapping or of a rule that
// a rules file does not have, with its line, before the decoder would
// report it by the Go type it decodes into.
func checkRuleKeys(path string, top *yaml.Node) error {
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != "rules" {
			return fmt.Errorf("%s: line %d: unknown key %q: %s", path, k.Line, k.Value, rulesShape)
		}
		if v.Kind != yaml.SequenceNode {
			continue
		}
		for n, rule := range v.Content {
			if rule.Kind != yaml.MappingNode {
				continue
			}
			for j := 0; j+1 < len(rule.Content); j += 2 {
				if rk := rule.Content[j]; !slices.Contains(ruleKeys, rk.Value) {
					return fmt.Errorf("%s: line %d: rule #%d: unknown key %q; a rule has %s", path, rk.Line, n+1, rk.Value, strings.Join(ruleKeys, ", "))
				}
			}
		}
	}
	return nil
}

// LoadLocalRules reads a rules file:
//
//	rules:
//	  - id: ACME-001
//	    severity: warning
//	    fields: [description, schema]
//	    pattern: '(?i)internal\.acme\.example'
//	    message: names an internal host
//
// Its IDs must not be built-in ones (MCP-S…) nor repeat.
func LoadLocalRules(path string) ([]LocalRule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rules []LocalRule `yaml:"rules"`
	}
	// The decoder's own errors span lines and name Go types; the shape
	// is checked first so that a wrong file gets one line saying what a
	// rules file is.
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", path, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s is empty: %s", path, rulesShape)
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: line %d: not a rules file: %s", path, top.Line, rulesShape)
	}
	if err := checkRuleKeys(path, top); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: %s (%s)", path, strings.Join(te.Errors, "; "), rulesShape)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for i := range doc.Rules {
		r := &doc.Rules[i]
		where := fmt.Sprintf("%s: rule #%d", path, i+1)
		switch {
		case r.ID == "":
			return nil, fmt.Errorf("%s: no id", where)
		case strings.HasPrefix(r.ID, "MCP-S"):
			return nil, fmt.Errorf("%s: id %q: MCP-S… ids are the built-in rules'; choose a prefix of your own", where, r.ID)
		case seen[r.ID]:
			return nil, fmt.Errorf("%s: id %q appears twice", where, r.ID)
		case r.Pattern == "":
			return nil, fmt.Errorf("%s (%s): no pattern", where, r.ID)
		}
		seen[r.ID] = true
		if r.Severity == "" {
			r.Severity = SeverityWarning
		}
		if r.Severity.Rank() > 2 {
			return nil, fmt.Errorf("%s (%s): severity %q: error, warning or note", where, r.ID, r.Severity)
		}
		for _, f := range r.Fields {
			if !slices.Contains(FieldKinds(), f) {
				return nil, fmt.Errorf("%s (%s): field %q: one of %s", where, r.ID, f, strings.Join(FieldKinds(), ", "))
			}
		}
		if r.re, err = regexp.Compile(r.Pattern); err != nil {
			return nil, fmt.Errorf("%s (%s): pattern: %w", where, r.ID, err)
		}
		if r.Message == "" {
			r.Message = "matches local rule " + r.ID
		}
	}
	return doc.Rules, nil
}
