package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

const (
	fakeSkillURI = "skill://pdf-processing/SKILL.md"
	fakeFormsURI = "skill://pdf-processing/references/FORMS.md"
	fakeSkillMD  = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
	fakeForms    = "Supporting content.\n"
)

// skillsServer is a Streamable HTTP server of the skills extension that
// answers with JSON and records what it was asked. It serves skillMD as
// SKILL.md while its entry vouches for fakeSkillMD.
type skillsServer struct {
	skillMD string

	mu      sync.Mutex
	methods []string
	reads   []string
	caps    json.RawMessage
}

func (s *skillsServer) log() (methods, reads []string, caps json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.methods), slices.Clone(s.reads), s.caps
}

func fakeDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (s *skillsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			URI             string          `json:"uri"`
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.methods = append(s.methods, req.Method)
	if req.Method == "resources/read" {
		s.reads = append(s.reads, req.Params.URI)
	}
	if req.Method == "initialize" {
		s.caps = req.Params.Capabilities
	}
	s.mu.Unlock()
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	entry := map[string]any{
		"uri":         fakeSkillURI,
		"frontmatter": map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
		"resources": []any{
			map[string]any{"uri": fakeSkillURI, "digest": fakeDigest(fakeSkillMD), "size": len(fakeSkillMD)},
			map[string]any{"uri": fakeFormsURI, "digest": fakeDigest(fakeForms), "size": len(fakeForms)},
		},
	}
	var result any
	switch req.Method {
	case "initialize":
		result = map[string]any{
			"protocolVersion": req.Params.ProtocolVersion,
			"serverInfo":      map[string]any{"name": "skills", "version": "1"},
			"capabilities":    map[string]any{"resources": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/skills": map[string]any{}}},
		}
	case "skills/list":
		result = map[string]any{"skills": []any{entry}}
	case "skills/get":
		result = map[string]any{"skill": entry}
	case "resources/read":
		text := fakeForms
		if req.Params.URI == fakeSkillURI {
			text = s.skillMD
		}
		result = map[string]any{"contents": []any{map[string]any{"uri": req.Params.URI, "mimeType": "text/markdown", "text": text}}}
	default:
		result = map[string]any{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

func TestSkillsCommands(t *testing.T) {
	t.Parallel()
	tampered := strings.Replace(fakeSkillMD, "Skill body.", "Evil body!!", 1)
	tests := []struct {
		name      string
		skillMD   string
		args      []string
		code      int
		out       string   // a substring of stdout ("" wants it empty)
		errOut    string   // a substring of stderr
		reads     []string // the resources/read URIs, in order
		skillsGet bool     // skills/get was called
	}{
		{name: "list reads no file", skillMD: fakeSkillMD, args: []string{"skills", "list"},
			out: "pdf-processing\tExtract, fill, and assemble PDF documents\t" + fakeSkillURI + "\t2\n"},
		{name: "list json", skillMD: fakeSkillMD, args: []string{"skills", "list", "--jq", ".skills[].resources[1].uri"},
			out: fakeFormsURI + "\n"},
		{name: "get prints SKILL.md", skillMD: fakeSkillMD, args: []string{"skills", "get", "pdf-processing"},
			out: "Skill body.", reads: []string{fakeSkillURI}},
		{name: "get --verify reads every file", skillMD: fakeSkillMD, args: []string{"skills", "get", "pdf-processing", "--verify"},
			out: "Skill body.", reads: []string{fakeSkillURI, fakeFormsURI}},
		{name: "get by URI uses skills/get", skillMD: fakeSkillMD, args: []string{"skills", "get", fakeSkillURI},
			out: "Skill body.", reads: []string{fakeSkillURI}, skillsGet: true},
		{name: "get --file prints the file after SKILL.md", skillMD: fakeSkillMD, args: []string{"skills", "get", "pdf-processing", "--file", "references/FORMS.md"},
			out: "Supporting content.", reads: []string{fakeSkillURI, fakeFormsURI}},
		{name: "tampered SKILL.md is refused", skillMD: tampered, args: []string{"skills", "get", "pdf-processing", "--verify"},
			code: ExitValidation, errOut: "SKILL.md: digest sha256:", reads: []string{fakeSkillURI}},
		{name: "longer SKILL.md is refused", skillMD: fakeSkillMD + "more\n", args: []string{"skills", "get", "pdf-processing", "--file", "references/FORMS.md"},
			code: ExitValidation, errOut: "SKILL.md: size 102 bytes, the entry says 97", reads: []string{fakeSkillURI}},
		{name: "unknown skill", skillMD: fakeSkillMD, args: []string{"skills", "get", "nope"},
			code: ExitError, errOut: `no skill "nope" (its skills: pdf-processing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := &skillsServer{skillMD: tt.skillMD}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			ios, _, out, errOut := Test()
			f := NewFactory(ios)
			dir := t.TempDir()
			f.Environ = func() []string { return []string{"HOME=" + dir, "XDG_STATE_HOME=" + dir, "XDG_CONFIG_HOME=" + dir} }
			f.Getwd = func() (string, error) { return dir, nil }
			code := runWith(context.Background(), f, append(tt.args, "--url", srv.URL+"/mcp"))
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			if tt.out == "" && out.Len() != 0 || !strings.Contains(out.String(), tt.out) {
				t.Errorf("stdout %q, want it to contain %q", out, tt.out)
			}
			if !strings.Contains(errOut.String(), tt.errOut) {
				t.Errorf("stderr %q, want it to contain %q", errOut, tt.errOut)
			}
			if tt.code == ExitValidation && strings.Count(strings.TrimSpace(errOut.String()), "\n") != 0 {
				t.Errorf("want one error line, got:\n%s", errOut)
			}
			methods, reads, caps := fake.log()
			if !slices.Equal(reads, tt.reads) {
				t.Errorf("reads %q, want %q", reads, tt.reads)
			}
			if got := slices.Contains(methods, "skills/get"); got != tt.skillsGet {
				t.Errorf("skills/get called: %v, want %v (methods %q)", got, tt.skillsGet, methods)
			}
			if !strings.Contains(string(caps), `"extensions":{"io.modelcontextprotocol/skills":{}}`) {
				t.Errorf("initialize capabilities %s do not declare the skills extension", caps)
			}
		})
	}
}
