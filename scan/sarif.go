package scan

import (
	"encoding/json"
	"io"
	"strings"
)

// SARIF 2.1.0, the subset mcpctl writes: one run, its driver's rules,
// and results with a logical location (server, item, field) and, when the
// server came from a file, that file as the physical location, which
// GitHub code scanning requires to show an alert.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration sarifRuleLevel `json:"defaultConfiguration"`
}

type sarifRuleLevel struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// SARIFSchema is the $schema of the documents [WriteSARIF] writes.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// WriteSARIF writes findings as a SARIF 2.1.0 log of one run whose driver
// lists the built-in rules and the local ones.
func WriteSARIF(w io.Writer, findings []Finding, local []LocalRule, version string) error {
	drv := sarifDriver{Name: "mcpctl scan", Version: version, InformationURI: "https://github.com/mcpctl/mcpctl/blob/main/docs/scan.md"}
	index := map[string]int{}
	addRule := func(r Rule) {
		index[r.ID] = len(drv.Rules)
		drv.Rules = append(drv.Rules, sarifRule{ID: r.ID, Name: r.Name, ShortDescription: sarifText{r.Summary},
			FullDescription: sarifText{r.Summary + " " + r.Help}, Help: sarifText{r.Help}, DefaultConfiguration: sarifRuleLevel{string(r.Severity)}})
	}
	for _, r := range Rules() {
		addRule(r)
	}
	for _, r := range local {
		addRule(Rule{ID: r.ID, Severity: r.Severity, Summary: r.Message, Help: "A local rule: the pattern " + r.Pattern + " matched."})
	}
	results := make([]sarifResult, 0, len(findings))
	for _, f := range findings {
		parts := []string{f.Server}
		name := f.Server
		kind := "module"
		if f.Item != "" {
			parts = append(parts, f.Kind+"s", f.Item)
			name, kind = f.Item, "function"
			if f.Kind == "endpoint" {
				kind = "resource"
			}
		}
		if f.Field != "" {
			parts = append(parts, f.Field)
		}
		loc := sarifLocation{LogicalLocations: []sarifLogical{{Name: name, FullyQualifiedName: strings.Join(parts, "/"), Kind: kind}}}
		if f.File != "" {
			loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(f.File)}}
		}
		msg := f.Message
		if f.Item != "" {
			msg = f.Kind + " " + quote(f.Item) + " of " + quote(f.Server) + ": " + msg
		}
		results = append(results, sarifResult{RuleID: f.RuleID, RuleIndex: index[f.RuleID], Level: string(f.Severity),
			Message: sarifText{msg}, Locations: []sarifLocation{loc}})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{{Tool: sarifTool{drv}, Results: results}}})
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// fileURI writes a path as a URI reference: relative paths stay relative
// (code scanning resolves them against the repository), with forward
// slashes and spaces escaped.
func fileURI(path string) string {
	p := strings.ReplaceAll(path, "\\", "/")
	p = strings.ReplaceAll(p, "%", "%25")
	p = strings.ReplaceAll(p, " ", "%20")
	if strings.HasPrefix(p, "/") {
		return "file://" + p
	}
	return p
}
