package scan

import (
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
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
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
