package client

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const (
	testSkillURI = "skill://pdf-processing/SKILL.md"
	testFormsURI = "skill://pdf-processing/references/FORMS.md"
	testSkillMD  = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
)

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// testEntry is an entry listing skillMD (with its size and digest) and a
// supporting file.
func testEntry(t *testing.T, skillMD, frontmatter string) SkillEntry {
	t.Helper()
	raw := `{"uri":"` + testSkillURI + `","frontmatter":` + frontmatter + `,"resources":[` +
		`{"uri":"` + testSkillURI + `","digest":"` + digestOf(skillMD) + `","size":` + itoa(len(skillMD)) + `},` +
		`{"uri":"` + testFormsURI + `","digest":"` + digestOf("Supporting content.\n") + `","size":20}]}`
	var e SkillEntry
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		t.Fatalf("decoding the test entry: %v", err)
	}
	return e
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const testFrontmatter = `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents"}`

// aliasBomb is a frontmatter of a few lines whose aliases expand to a
// million values.
const aliasBomb = "---\nname: x\na: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n" +
	"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n" +
	"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n---\n"

func TestVerifySkillFile(t *testing.T) {
	bom := "\ufeff" + testSkillMD
	crlf := strings.ReplaceAll(testSkillMD, "\n", "\r\n")
	tampered := strings.Replace(testSkillMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)
	tests := []struct {
		name    string
		entry   SkillEntry
		uri     string
		content string
		want    string // a substring of the error; "" for none
	}{
		{"good SKILL.md", testEntry(t, testSkillMD, testFrontmatter), testSkillURI, testSkillMD, ""},
		{"good supporting file", testEntry(t, testSkillMD, testFrontmatter), testFormsURI, "Supporting content.\n", ""},
		{"size mismatch", testEntry(t, testSkillMD, testFrontmatter), testSkillURI, testSkillMD + "extra\n",
			"SKILL.md: size 103 bytes, the entry says 97"},
		{"digest mismatch", testEntry(t, testSkillMD, testFrontmatter), testSkillURI,
			strings.Replace(testSkillMD, "Skill body.", "Evil body!!", 1), "SKILL.md: digest sha256:"},
		{"supporting file digest mismatch", testEntry(t, testSkillMD, testFrontmatter), testFormsURI, "Supporting content!\n",
			"FORMS.md: digest sha256:"},
		{"frontmatter field differs", testEntry(t, tampered, testFrontmatter), testSkillURI, tampered,
			`frontmatter field "description" is "Exfiltrate credentials", the entry says "Extract, fill, and assemble PDF documents"`},
		{"frontmatter field missing from the file", testEntry(t, testSkillMD, `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","license":"MIT"}`),
			testSkillURI, testSkillMD, `frontmatter has no field "license"`},
		{"frontmatter field missing from the entry", testEntry(t, testSkillMD, `{"name":"pdf-processing"}`),
			testSkillURI, testSkillMD, `frontmatter field "description" is "Extract, fill, and assemble PDF documents", the entry has no such field`},
		{"missing frontmatter", testEntry(t, "Skill body.\n", testFrontmatter), testSkillURI, "Skill body.\n", "no YAML frontmatter"},
		{"unclosed frontmatter", testEntry(t, "---\nname: x\n", testFrontmatter), testSkillURI, "---\nname: x\n", "no closing ---"},
		{"BOM before the frontmatter", testEntry(t, bom, testFrontmatter), testSkillURI, bom, ""},
		{"CRLF line ends", testEntry(t, crlf, testFrontmatter), testSkillURI, crlf, ""},
		{"numbers compare by value", testEntry(t, "---\nname: pdf-processing\nversion: 1.0\n---\n", `{"name":"pdf-processing","version":1}`),
			testSkillURI, "---\nname: pdf-processing\nversion: 1.0\n---\n", ""},
		{"a number is not a string", testEntry(t, "---\nname: pdf-processing\nversion: 1\n---\n", `{"name":"pdf-processing","version":"1"}`),
			testSkillURI, "---\nname: pdf-processing\nversion: 1\n---\n", `frontmatter field "version" is 1, the entry says "1"`},
		{"a date stays the text written", testEntry(t, "---\nname: pdf-processing\nupdated: 2024-01-01\n---\n", `{"name":"pdf-processing","updated":"2024-01-01"}`),
			testSkillURI, "---\nname: pdf-processing\nupdated: 2024-01-01\n---\n", ""},
		{"nested metadata", testEntry(t, "---\nname: pdf-processing\nmetadata:\n  tags: [a, b]\n  x: null\n---\n", `{"name":"pdf-processing","metadata":{"x":null,"tags":["a","b"]}}`),
			testSkillURI, "---\nname: pdf-processing\nmetadata:\n  tags: [a, b]\n  x: null\n---\n", ""},
		{"frontmatter not a mapping", testEntry(t, "---\n- a\n---\n", testFrontmatter), testSkillURI, "---\n- a\n---\n", "not a mapping"},
		{"infinity is not JSON", testEntry(t, "---\nname: x\nf: .inf\n---\n", testFrontmatter), testSkillURI, "---\nname: x\nf: .inf\n---\n", "not a JSON number"},
		{"alias expansion is bounded", testEntry(t, aliasBomb, testFrontmatter), testSkillURI, aliasBomb, "aliases expanded"},
		{"file not listed", testEntry(t, testSkillMD, testFrontmatter), "skill://pdf-processing/other.md", "x", "the entry does not list this file"},
		{"entry without frontmatter", testEntry(t, testSkillMD, `null`), testSkillURI, testSkillMD, "the entry has no frontmatter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifySkillFile(tt.entry, tt.uri, []byte(tt.content))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("VerifySkillFile: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("VerifySkillFile: nil, want an error containing %q", tt.want)
			}
			var ve *SkillVerifyError
			if !errors.As(err, &ve) {
				t.Errorf("error %T is not a *SkillVerifyError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("VerifySkillFile: %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSkillEntryDynamic(t *testing.T) {
	var e SkillEntry
	if err := json.Unmarshal([]byte(`{"uri":"`+testSkillURI+`","frontmatter":`+testFrontmatter+`,"resources":"dynamic"}`), &e); err != nil {
		t.Fatal(err)
	}
	if !e.Dynamic || e.Resources != nil {
		t.Fatalf("Dynamic %v, Resources %v; want dynamic and no files", e.Dynamic, e.Resources)
	}
	if e.Name() != "pdf-processing" || e.FrontmatterString("description") == "" {
		t.Errorf("Name %q, description %q", e.Name(), e.FrontmatterString("description"))
	}
	// A dynamic skill's SKILL.md still has its frontmatter compared.
	if err := VerifySkillFile(e, testSkillURI, []byte(testSkillMD)); err != nil {
		t.Errorf("good SKILL.md of a dynamic skill: %v", err)
	}
	bad := strings.Replace(testSkillMD, "pdf-processing", "other", 1)
	if err := VerifySkillFile(e, testSkillURI, []byte(bad)); err == nil {
		t.Error("a dynamic skill's SKILL.md with another name verified")
	}
	if err := json.Unmarshal([]byte(`{"uri":"x","resources":"static"}`), &e); err == nil {
		t.Error(`resources "static" decoded without error`)
	}
	out, err := json.Marshal(e)
	if err != nil || len(out) == 0 {
		t.Errorf("Marshal: %s, %v", out, err)
	}
}
