// Package surface takes snapshots of an MCP server's surface — what it
// says it is and offers: server info, protocol revision and era,
// capabilities, tools, resources, resource templates and prompts — and
// classifies the changes between two snapshots as breaking, compatible,
// description (descriptions, titles, annotations) or other.
//
// A snapshot is a stable document: items sorted by name or URI, every
// object's keys in order, no timestamps, so the same server gives the same
// bytes on every run and a snapshot can be committed and compared in CI.
// Each item carries the sha256 of its canonical JSON, so a reviewer (or a
// script) sees at a glance which items changed.
package surface

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// FormatVersion is the version of the snapshot document, written in its
// "mcpctlSurface" member; [Parse] refuses other versions.
const FormatVersion = 1

// Snapshot is the surface of one server at one time.
type Snapshot struct {
	// Format is [FormatVersion].
	Format          int    `json:"mcpctlSurface"`
	Server          Server `json:"server"`
	ProtocolVersion string `json:"protocolVersion"`
	// Era is "legacy" (initialize) or "modern" (server/discover).
	Era          string          `json:"era,omitempty"`
	Capabilities json.RawMessage `json:"capabilities"`
	// ClientCapabilities are the capabilities the client declared when
	// the snapshot was taken: a server may offer other tools to a client
	// that declares others. Absent from snapshots of mcpctl before it
	// recorded them.
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	Tools              []Item          `json:"tools"`
	Resources          []Item          `json:"resources"`
	ResourceTemplates  []Item          `json:"resourceTemplates"`
	Prompts            []Item          `json:"prompts"`
}

// Server is the serverInfo of a snapshot, with the server's instructions.
type Server struct {
	Name         string `json:"name"`
	Title        string `json:"title,omitempty"`
	Version      string `json:"version"`
	Description  string `json:"description,omitempty"`
	Instructions string `json:"instructions,omitempty"`
}

// Item is one tool, resource, resource template or prompt.
type Item struct {
	// Key identifies the item across snapshots: a tool's or prompt's
	// name, a resource's URI, a template's URI template.
	Key string `json:"key"`
	// SHA256 is "sha256:" and the hex sha256 of Definition's bytes (its
	// canonical JSON).
	SHA256 string `json:"sha256"`
	// Definition is the item as the server listed it, with only the
	// members that make its surface (see [Kinds]), in canonical JSON.
	Definition json.RawMessage `json:"definition"`
}

// Kind describes one list of items in a snapshot.
type Kind struct {
	// Name is the word reports use: tool, resource, template, prompt.
	Name string
	// KeyField is the member that identifies an item.
	KeyField string
	// Fields are the members a snapshot keeps; the others (_meta, icons)
	// say nothing about what a client may call or read, and _meta may
	// change from run to run.
	Fields []string
}

// Kinds returns the kinds of item in snapshot order: tools, resources,
// resource templates, prompts.
func Kinds() []Kind {
	return []Kind{
		{Name: "tool", KeyField: "name", Fields: []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "execution"}},
		{Name: "resource", KeyField: "uri", Fields: []string{"uri", "name", "title", "description", "mimeType", "size", "annotations"}},
		{Name: "template", KeyField: "uriTemplate", Fields: []string{"uriTemplate", "name", "title", "description", "mimeType", "annotations"}},
		{Name: "prompt", KeyField: "name", Fields: []string{"name", "title", "description", "arguments"}},
	}
}

// items returns the list of s that holds kind k.
func (s *Snapshot) items(k Kind) *[]Item {
	switch k.Name {
	case "tool":
		return &s.Tools
	case "resource":
		return &s.Resources
	case "template":
		return &s.ResourceTemplates
	}
	return &s.Prompts
}

// Source is what a snapshot is taken from: the handshake's answer and the
// items of every list, each as the JSON the server sent. A list the
// server does not offer is nil.
type Source struct {
	Server          Server
	ProtocolVersion string
	Era             string
	Capabilities    map[string]json.RawMessage
	// ClientCapabilities are the capabilities the client declared; nil
	// records none.
	ClientCapabilities map[string]any
	// Tools, Resources, ResourceTemplates and Prompts are the items of
	// tools/list, resources/list, resources/templates/list and
	// prompts/list.
	Tools, Resources, ResourceTemplates, Prompts []json.RawMessage
}

// Take builds the snapshot of src: items reduced to the members of their
// [Kind], canonical, hashed and sorted by key.
func Take(src Source) (*Snapshot, error) {
	caps, err := json.Marshal(src.Capabilities)
	if err != nil {
		return nil, fmt.Errorf("encoding the capabilities: %w", err)
	}
	if src.Capabilities == nil {
		caps = []byte("{}")
	}
	if caps, err = Canonical(caps); err != nil {
		return nil, fmt.Errorf("reading the capabilities: %w", err)
	}
	s := &Snapshot{Format: FormatVersion, Server: src.Server, ProtocolVersion: src.ProtocolVersion, Era: src.Era, Capabilities: caps}
	if src.ClientCapabilities != nil {
		cc, err := json.Marshal(src.ClientCapabilities)
		if err != nil {
			return nil, fmt.Errorf("encoding the client capabilities: %w", err)
		}
		if s.ClientCapabilities, err = Canonical(cc); err != nil {
			return nil, fmt.Errorf("reading the client capabilities: %w", err)
		}
	}
	raw := map[string][]json.RawMessage{"tool": src.Tools, "resource": src.Resources, "template": src.ResourceTemplates, "prompt": src.Prompts}
	for _, k := range Kinds() {
		items := make([]Item, 0, len(raw[k.Name]))
		for i, r := range raw[k.Name] {
			it, err := newItem(k, r)
			if err != nil {
				return nil, fmt.Errorf("%s %d of the list: %w", k.Name, i+1, err)
			}
			items = append(items, it)
		}
		sortItems(items)
		*s.items(k) = items
	}
	return s, nil
}

func newItem(k Kind, raw json.RawMessage) (Item, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return Item{}, fmt.Errorf("not a JSON object: %w", err)
	}
	kept := map[string]json.RawMessage{}
	for _, f := range k.Fields {
		if v, ok := all[f]; ok {
			kept[f] = v
		}
	}
	var key string
	if err := json.Unmarshal(all[k.KeyField], &key); err != nil || key == "" {
		return Item{}, fmt.Errorf("no %q string", k.KeyField)
	}
	def, err := json.Marshal(kept)
	if err != nil {
		return Item{}, err
	}
	if def, err = Canonical(def); err != nil {
		return Item{}, err
	}
	return Item{Key: key, SHA256: hash(def), Definition: def}, nil
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// sortItems orders items by key, and items with the same key (a server
// that lists a name twice) by hash, so the order never depends on the
// server's.
func sortItems(items []Item) {
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.SHA256, b.SHA256)
	})
}

// Canonical returns the canonical JSON of data: compact, object keys in
// order, numbers exactly as written, no HTML escaping.
func Canonical(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	return marshal(v, "")
}

// marshal encodes v with sorted keys and no HTML escaping, indented by
// indent when it is not empty.
func marshal(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Marshal returns the document of s: indented JSON ending in a newline,
// the same bytes for the same surface.
func (s *Snapshot) Marshal() ([]byte, error) {
	b, err := marshal(s, "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the snapshot: %w", err)
	}
	return append(b, '\n'), nil
}

// Parse reads a snapshot document written by [Snapshot.Marshal]. Items are
// sorted and their definitions made canonical again, so a document edited
// by hand still compares as what it says.
func Parse(data []byte) (*Snapshot, error) {
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not a snapshot (JSON): %w", err)
	}
	if s.Format != FormatVersion {
		if s.Format == 0 {
			return nil, errors.New(`not a snapshot: no "mcpctlSurface" member; write one with mcpctl snapshot`)
		}
		return nil, fmt.Errorf("snapshot format %d is not the %d this mcpctl reads", s.Format, FormatVersion)
	}
	for _, k := range Kinds() {
		items := s.items(k)
		for i := range *items {
			it := &(*items)[i]
			def, err := Canonical(it.Definition)
			if err != nil {
				return nil, fmt.Errorf("%s %q: %w", k.Name, it.Key, err)
			}
			it.Definition, it.SHA256 = def, hash(def)
		}
		sortItems(*items)
	}
	if len(s.Capabilities) == 0 {
		s.Capabilities = json.RawMessage("{}")
	}
	if len(s.ClientCapabilities) > 0 {
		cc, err := Canonical(s.ClientCapabilities)
		if err != nil {
			return nil, fmt.Errorf("clientCapabilities: %w", err)
		}
		s.ClientCapabilities = cc
	}
	return &s, nil
}
