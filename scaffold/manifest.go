package scaffold

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// manifestVersion is the version of the manifest format this package
// writes and reads.
const manifestVersion = 1

// manifest is the content of [ManifestFile]: what the project is and which
// tools it has, in the order they were added. The tool registry is
// generated from it.
type manifest struct {
	Generator string         `json:"generator"`
	Version   int            `json:"version"`
	Name      string         `json:"name"`
	Lang      string         `json:"lang"`
	Transport string         `json:"transport"`
	Tools     []manifestTool `json:"tools"`
}

// manifestTool is one tool of the project.
type manifestTool struct {
	Name string `json:"name"`
	// File is the tool's source file, relative to the project root.
	File string `json:"file"`
}

// readManifest reads dir's manifest, explaining what to do if dir is not a
// scaffolded project.
func readManifest(dir string) (*manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, usageErrorf("%s is not a folder; --dir names a project made by mcpctl scaffold server", dir)
		}
		return nil, usageErrorf("%s is not a project made by mcpctl scaffold (it has no %s); make one with: mcpctl scaffold server NAME --lang go|ts, or pass its folder with --dir", dir, ManifestFile)
	}
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, usageErrorf("%s is not a valid scaffold manifest: %v", p, err)
	}
	if m.Version != manifestVersion {
		return nil, usageErrorf("%s has version %d; this mcpctl reads version %d", p, m.Version, manifestVersion)
	}
	if err := checkLang(m.Lang); err != nil {
		return nil, usageErrorf("%s: %v", p, err)
	}
	for _, t := range m.Tools {
		if CheckToolName(t.Name) != nil || t.File == "" {
			return nil, usageErrorf("%s lists a tool with name %q and file %q; fix or remove that entry", p, t.Name, t.File)
		}
	}
	return &m, nil
}

// add puts t into the manifest. A tool of the same name is an error unless
// force, when it is replaced in place; a different tool that would share
// t's identifiers or file is always an error.
func (m *manifest) add(t *toolData, force bool) error {
	for i, other := range m.Tools {
		if other.Name == t.Name {
			if !force {
				return usageErrorf("the project already has a tool %q (%s); --force writes its files again", t.Name, other.File)
			}
			m.Tools[i].File = t.File
			return nil
		}
		o := newTool(m, toolSpec{Name: other.Name})
		if o.Ident == t.Ident || sameFile(o.File, t.File) || sameFile(other.File, t.File) {
			return usageErrorf("tool %q would use the same names as tool %q (%s, %s); choose another name", t.Name, other.Name, t.Ident, t.File)
		}
	}
	m.Tools = append(m.Tools, manifestTool{Name: t.Name, File: t.File})
	return nil
}

// sameFile compares paths as a case-insensitive file system would.
func sameFile(a, b string) bool { return strings.EqualFold(a, b) }

func (m *manifest) encode() ([]byte, error) {
	if m.Tools == nil {
		m.Tools = []manifestTool{}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
