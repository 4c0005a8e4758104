package scaffold

import (
	"fmt"
	"go/format"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gofmt formats src as gofmt does, failing the test if it does not parse.
func gofmt(t *testing.T, src string) string {
	t.Helper()
	out, err := format.Source([]byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return string(out)
}

// randomKey is a quoted property name of n characters (n ≥ 1), as the
// generated tests use for map keys.
func randomKey(r *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz_-."
	b := []byte{'a'}
	for len(b) < n {
		b = append(b, chars[r.IntN(len(chars))])
	}
	return strconv.Quote(string(b))
}

// TestAlignKeyValuesAsGofmt lays out map literals whose keys have random
// widths, short and long mixed so that gofmt's split of long runs is
// exercised, and compares the lines with gofmt's.
func TestAlignKeyValuesAsGofmt(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 400 {
		n := 1 + r.IntN(9)
		var keys, values []string
		var src strings.Builder
		src.WriteString("package p\n\nvar _ = map[string]any{\n")
		for range n {
			width := 1 + r.IntN(8)
			if r.IntN(2) == 0 {
				width = 1 + r.IntN(64) // fieldNameRE allows 64 characters
			}
			k := randomKey(r, width)
			v := []string{`"example",`, "1,", "1.5,", "true,", `[]string{"example"},`}[r.IntN(5)]
			keys, values = append(keys, k), append(values, v)
			fmt.Fprintf(&src, "%s: %s\n", k, v)
		}
		src.WriteString("}\n")
		var want strings.Builder
		want.WriteString("package p\n\nvar _ = map[string]any{\n")
		for _, l := range alignKeyValues(keys, values) {
			want.WriteString("\t" + l + "\n")
		}
		want.WriteString("}\n")
		if got := gofmt(t, src.String()); got != want.String() {
			t.Fatalf("round %d, key widths %v: gofmt differs (-ours +gofmt):\n%s", round, keyWidths(keys), cmp.Diff(want.String(), got))
		}
	}
}

func keyWidths(keys []string) []int {
	w := make([]int, len(keys))
	for i, k := range keys {
		w[i] = len(k)
	}
	return w
}

// TestAlignColumnsAsGofmt lays out struct fields of random name, type and
// tag widths and compares them with gofmt's.
func TestAlignColumnsAsGofmt(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	types := []string{"string", "int", "float64", "bool", "[]string", "[]int", "[]float64", "[]bool"}
	for round := range 200 {
		var rows [][]string
		var src strings.Builder
		src.WriteString("package p\n\ntype T struct {\n")
		for i := range 1 + r.IntN(8) {
			name := pascal(strings.Trim(randomKey(r, 1+r.IntN(40)), `"`), "F") + strconv.Itoa(i)
			typ := types[r.IntN(len(types))]
			tag := "`json:" + strconv.Quote(name) + "`"
			if r.IntN(2) == 0 {
				tag = strconv.Quote("json:\"x\" jsonschema:\"a `b` ü\"")
			}
			rows = append(rows, []string{name, typ, tag})
			fmt.Fprintf(&src, "%s %s %s\n", name, typ, tag)
		}
		src.WriteString("}\n")
		var want strings.Builder
		want.WriteString("package p\n\ntype T struct {\n")
		for _, l := range alignColumns(rows) {
			want.WriteString("\t" + l + "\n")
		}
		want.WriteString("}\n")
		if got := gofmt(t, src.String()); got != want.String() {
			t.Fatalf("round %d: gofmt differs (-ours +gofmt):\n%s", round, cmp.Diff(want.String(), got))
		}
	}
}

// TestGoOutputIsGofmtClean generates tools of every shape into a Go
// project and checks every Go file is as gofmt would write it: with and
// without arguments and output, every combination of hints, property names
// from 1 to 64 characters (so that gofmt splits the alignment of the
// generated test's arguments), arrays, and descriptions with quotes,
// backquotes, tabs and non-ASCII letters.
func TestGoOutputIsGofmtClean(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "shapes")
	if _, err := NewServer(ServerOptions{Name: "shapes", Lang: LangGo, Dir: dir, Transport: TransportStdio}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 63)
	fieldSets := [][]Field{
		nil,
		{{Name: "a", Type: "string"}},
		{{Name: "q", Type: "string", Required: true, Description: "Query\twith a tab, \"quotes\" and `backquotes`"},
			{Name: "limit", Type: "integer"}, {Name: "ratio", Type: "number[]", Description: "Größe"}},
		{{Name: "id", Type: "string", Required: true}, {Name: "a" + long, Type: "boolean[]"},
			{Name: "b", Type: "integer"}, {Name: "medium-length-name", Type: "number"}, {Name: "z" + long[:39], Type: "string"}},
	}
	bools := []*bool{nil, new(true), new(false)}
	n := 0
	for _, ro := range bools {
		for _, de := range bools {
			for _, id := range bools {
				for _, ow := range bools {
					in := fieldSets[n%len(fieldSets)]
					var out []Field
					if n%3 == 1 {
						out = fieldSets[(n+1)%len(fieldSets)]
					}
					opts := ToolOptions{
						Name: fmt.Sprintf("tool-%d", n), Dir: dir, Input: in, Output: out,
						Description: "Does thing " + strconv.Itoa(n) + " with `care`.",
						Annotations: Annotations{ReadOnly: ro, Destructive: de, Idempotent: id, OpenWorld: ow},
					}
					if _, err := AddTool(opts); err != nil {
						t.Fatalf("adding tool %d: %v", n, err)
					}
					n++
				}
			}
		}
	}
	checked := 0
	for p, data := range readTree(t, dir) {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		checked++
		if got := gofmt(t, data); got != data {
			t.Errorf("%s is not gofmt-clean (-generated +gofmt):\n%s", p, cmp.Diff(data, got))
		}
	}
	if checked < 2*n {
		t.Errorf("checked %d Go files; want at least %d (a tool and its test each)", checked, 2*n)
	}
}
