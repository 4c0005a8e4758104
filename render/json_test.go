package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{
			name: "raw message keeps key order, numbers and <>&",
			v:    json.RawMessage(`{"z":1,"a":{"html":"<b>&</b>","n":1.50}, "list":[1,2]}`),
			want: "{\n  \"z\": 1,\n  \"a\": {\n    \"html\": \"<b>&</b>\",\n    \"n\": 1.50\n  },\n  \"list\": [\n    1,\n    2\n  ]\n}\n",
		},
		{
			name: "values are not HTML-escaped",
			v:    map[string]any{"q": "a < b && c > d"},
			want: "{\n  \"q\": \"a < b && c > d\"\n}\n",
		},
		{
			name: "struct",
			v: struct {
				Name string   `json:"name"`
				Tags []string `json:"tags"`
			}{"x", []string{"y"}},
			want: "{\n  \"name\": \"x\",\n  \"tags\": [\n    \"y\"\n  ]\n}\n",
		},
		{name: "empty raw message is null", v: json.RawMessage(nil), want: "null\n"},
		{name: "scalar", v: "s", want: "\"s\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tty := range []bool{false, true} {
				var out bytes.Buffer
				p := &Printer{Out: &out, TTY: tty}
				if err := p.JSON(tt.v); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, out.String()); diff != "" {
					t.Errorf("tty=%v (-want +got):\n%s", tty, diff)
				}
			}
		})
	}
}

func TestJSONInvalidRaw(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out}
	if err := p.JSON(json.RawMessage(`{"a":`)); err == nil {
		t.Fatal("JSON of truncated raw message succeeded")
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q on error", out.String())
	}
}

func TestJSONColor(t *testing.T) {
	raw := json.RawMessage(`{"key":"va\"l:ue","n":[true,null,"x"],"e":{}}`)
	var plain, colored bytes.Buffer
	if err := (&Printer{Out: &plain, TTY: true}).JSON(raw); err != nil {
		t.Fatal(err)
	}
	if err := (&Printer{Out: &colored, TTY: true, Color: true}).JSON(raw); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain.String(), ansi.Strip(colored.String())); diff != "" {
		t.Errorf("coloured JSON differs from plain once escapes are stripped (-plain +stripped):\n%s", diff)
	}
	for _, want := range []string{
		"\x1b[1;34m\"key\"\x1b[0m: \x1b[32m\"va\\\"l:ue\"\x1b[0m",
		"\x1b[1;34m\"n\"\x1b[0m",
		"\x1b[32m\"x\"\x1b[0m",
	} {
		if !strings.Contains(colored.String(), want) {
			t.Errorf("coloured JSON lacks %q:\n%q", want, colored.String())
		}
	}
}

func TestJSONInvalidUTF8(t *testing.T) {
	raw := json.RawMessage("{\"k\xff\":[\"ok\",\"bad \xe2\x80 end\",\"\xc3\"],\"fine\":\"é\"}")
	for _, tty := range []bool{false, true} {
		var out bytes.Buffer
		calls := 0
		p := &Printer{Out: &out, TTY: tty, OnInvalidUTF8: func() { calls++ }}
		if err := p.JSON(raw); err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(out.Bytes()) || !json.Valid(out.Bytes()) {
			t.Errorf("tty=%v: output is not valid UTF-8 JSON: %q", tty, out.String())
		}
		if calls != 1 {
			t.Errorf("tty=%v: OnInvalidUTF8 called %d times, want 1", tty, calls)
		}
		// encoding/json reads invalid bytes as U+FFFD too: same value.
		var want, got any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tty=%v: value changed (-want +got):\n%s", tty, diff)
		}
	}
	// Valid input: no callback, no change.
	calls := 0
	var out bytes.Buffer
	if err := (&Printer{Out: &out, OnInvalidUTF8: func() { calls++ }}).JSON(json.RawMessage(`"é \u00ff"`)); err != nil {
		t.Fatal(err)
	}
	if calls != 0 || out.String() != "\"é \\u00ff\"\n" {
		t.Errorf("valid UTF-8: calls=%d, output %q", calls, out.String())
	}
}

func TestJSONTerminalEscapes(t *testing.T) {
	raw := json.RawMessage("{\"s\":\"a\u009b31m \u202eb\x7f \\u001b]0;t\\u0007 日本\"}")
	var tty, piped bytes.Buffer
	if err := (&Printer{Out: &tty, TTY: true}).JSON(raw); err != nil {
		t.Fatal(err)
	}
	if err := (&Printer{Out: &piped}).JSON(raw); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"s\": \"a\\u009b31m \\u202eb\\u007f \\u001b]0;t\\u0007 日本\"\n}\n"; tty.String() != want {
		t.Errorf("TTY output %q, want %q", tty.String(), want)
	}
	if want := "{\n  \"s\": \"a\u009b31m \u202eb\x7f \\u001b]0;t\\u0007 日本\"\n}\n"; piped.String() != want {
		t.Errorf("piped output %q, want %q", piped.String(), want)
	}
	var a, b any
	if err := json.Unmarshal(tty.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(piped.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("TTY escapes changed the value (-tty +piped):\n%s", diff)
	}
}

// TestJSONDeepNesting is defect 9: an 18 KB response nested 9,000 levels
// deep printed 162 MB.
func TestJSONDeepNesting(t *testing.T) {
	docs := map[string]string{
		"arrays":          strings.Repeat("[", 9000) + strings.Repeat("]", 9000),
		"arrays with one": strings.Repeat("[", 9000) + "1" + strings.Repeat("]", 9000),
		"objects":         strings.Repeat(`{"a":`, 9000) + "null" + strings.Repeat("}", 9000),
		"mixed":           strings.Repeat(`{"a":[1,`, 3000) + "2" + strings.Repeat("]}", 3000),
		// Wide, at the deepest indented level: each "1," would become 67
		// bytes if indented.
		"wide at depth 32": strings.Repeat("[", 32) + strings.Repeat("1,", 200000) + "1" + strings.Repeat("]", 32),
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := (&Printer{Out: &out}).JSON(json.RawMessage(doc)); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bytes in, %d out", len(doc), out.Len())
			if limit := budgetFactor*len(doc) + budgetSlack; out.Len() > limit {
				t.Errorf("%d bytes in, %d out: over the budget of %d", len(doc), out.Len(), limit)
			}
			if len(doc) > 10000 && out.Len() > 3*len(doc) {
				t.Errorf("%d bytes in, %d out: more than 3×", len(doc), out.Len())
			}
			if !json.Valid(out.Bytes()) {
				t.Fatal("output is not valid JSON")
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, out.Bytes()); err != nil {
				t.Fatal(err)
			}
			if compact.String() != doc {
				t.Error("output is not the input re-indented")
			}
		})
	}
}

// TestJSONShallowLevelsStayIndented checks that a deep document still gets
// its outer levels indented, and a normal one all of them.
func TestJSONShallowLevelsStayIndented(t *testing.T) {
	doc := `{"result":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`
	var out bytes.Buffer
	if err := (&Printer{Out: &out}).JSON(json.RawMessage(doc)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "{\n  \"result\": [\n    [\n      [") {
		t.Errorf("outer levels not indented: %q…", out.String()[:40])
	}
	if !strings.Contains(out.String(), strings.Repeat(" ", 2*maxIndentDepth-2)+"[[[[") {
		t.Error("levels beyond maxIndentDepth are not compact")
	}
}

// TestMeasureLayout checks the size planLayout predicts against what is
// written, for every number of indented levels.
func TestMeasureLayout(t *testing.T) {
	docs := []string{
		`null`, `"s"`, `[]`, `{}`, `[[],{},[{}]]`,
		`{"a": [1, 2, {"b": "c", "d": [true, false, null]}], "e": {"f": {}}}`,
		` { "k" : "v:\"quoted\"" , "n" : [ 1.5e3 , -2 ] } `,
		strings.Repeat(`[{"x":[`, 40) + `"deep"` + strings.Repeat(`]}]`, 40),
		strings.Repeat("[1,", 50) + "0" + strings.Repeat("]", 50),
	}
	key, str := span{"<k>", "</k>"}, span{"<s>", "</s>"}
	for _, doc := range docs {
		base, cost, keys, strs := measureLayout([]byte(doc))
		size := base
		for d := 0; d <= maxIndentDepth; d++ {
			size += cost[d]
			for _, colored := range []bool{false, true} {
				var out bytes.Buffer
				bw := bufio.NewWriter(&out)
				iw := indentWriter{w: bw, maxDepth: d}
				want := size
				if colored {
					iw.key, iw.str = key, str
					want += keys*len(key.pre+key.post) + strs*len(str.pre+str.post)
				}
				iw.write([]byte(doc))
				bw.WriteByte('\n')
				bw.Flush()
				if out.Len() != want {
					t.Errorf("%.30s… at depth %d (colour %v): measured %d, wrote %d:\n%s", doc, d, colored, want, out.Len(), out.String())
				}
			}
		}
	}
}

// TestJSONStreams checks that a large document is not copied whole.
func TestJSONStreams(t *testing.T) {
	doc := []byte(`{"text":"` + strings.Repeat("0123456789abcdef", 1<<20) + `","bad":"` + "\xff" + `"}`)
	var w writeCounter
	var m1, m2 runtimeMem
	m1.read()
	if err := (&Printer{Out: &w}).JSON(json.RawMessage(doc)); err != nil {
		t.Fatal(err)
	}
	m2.read()
	if grew := m2.totalAlloc - m1.totalAlloc; grew > uint64(len(doc))/4 {
		t.Errorf("printing %d bytes of JSON allocated %d bytes", len(doc), grew)
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,"\u00e9",{}]}`, "[\"\xff\"]", strings.Repeat("[", 100) + strings.Repeat("]", 100), `"` + "\u009b\u202e" + `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		for _, tty := range []bool{false, true} {
			var out bytes.Buffer
			if err := (&Printer{Out: &out, TTY: tty, Color: tty}).JSON(json.RawMessage(doc)); err != nil {
				t.Fatal(err)
			}
			got := ansi.Strip(out.String())
			if !utf8.ValidString(got) || !json.Valid([]byte(got)) {
				t.Fatalf("tty=%v: output of %q is not valid UTF-8 JSON: %q", tty, doc, got)
			}
			var a, b any
			if json.Unmarshal(doc, &a) != nil || json.Unmarshal([]byte(got), &b) != nil {
				continue // numbers out of float64 range
			}
			// reflect.DeepEqual: cmp.Diff takes exponential time on deep
			// nesting.
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("tty=%v: value of %q changed: %q", tty, doc, got)
			}
			// Escapes aside (at most 6 bytes for 1), indentation and
			// colour stay within the budget.
			if limit := 6*budgetFactor*len(doc) + budgetSlack; out.Len() > limit {
				t.Fatalf("tty=%v: %d bytes in, %d out", tty, len(doc), out.Len())
			}
		}
	})
}

// BenchmarkJSON prints a 16 MiB text result and a 16 MiB document of many
// small values, the two shapes of large results.
func BenchmarkJSON(b *testing.B) {
	docs := map[string][]byte{
		"text": []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("0123456789abcdef", 1<<20) + `"}]}`),
		"tree": []byte(`{"tools":[` + strings.Repeat(`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}},`, 1<<17) + `{}]}`),
	}
	for name, doc := range docs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			p := &Printer{Out: io.Discard}
			for b.Loop() {
				if err := p.JSON(json.RawMessage(doc)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
