package argfuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
)

// maxDepth bounds nesting: below it only required properties and empty
// arrays are generated, so recursive schemas end.
const maxDepth = 5

// generator makes argument objects from a tool's inputSchema (decoded JSON)
// with its own seeded source, so a seed reproduces a run's every case.
type generator struct {
	r    *rand.Rand
	root any
}

func newGenerator(schema any, seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), root: schema}
}

// node returns s as a schema object, following a local $ref ("#/$defs/x")
// and merging allOf; nil for a schema that allows anything.
func (g *generator) node(s any) map[string]any {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	for range maxDepth {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		target, ok := g.pointer(ref).(map[string]any)
		if !ok {
			break
		}
		m = target
	}
	if all, ok := m["allOf"].([]any); ok {
		merged := map[string]any{}
		for k, v := range m {
			merged[k] = v
		}
		delete(merged, "allOf")
		for _, part := range all {
			for k, v := range g.node(part) {
				merged[k] = v
			}
		}
		m = merged
	}
	return m
}

// pointer resolves a local JSON pointer reference against the root.
func (g *generator) pointer(ref string) any {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	cur := g.root
	for _, tok := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}

// types are the JSON types n allows, inferred from its keywords when it
// names none.
func types(n map[string]any) []string {
	switch t := n["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	switch {
	case n["properties"] != nil || n["required"] != nil:
		return []string{"object"}
	case n["items"] != nil || n["prefixItems"] != nil:
		return []string{"array"}
	case n["minimum"] != nil || n["maximum"] != nil || n["exclusiveMinimum"] != nil || n["exclusiveMaximum"] != nil:
		return []string{"number"}
	case n["minLength"] != nil || n["maxLength"] != nil || n["pattern"] != nil || n["format"] != nil:
		return []string{"string"}
	}
	return []string{"string", "integer", "boolean", "object", "array"}
}

// valid returns a value that s accepts (as far as generation can tell:
// patterns are not honoured), spread over the schema's space: bounds and
// lengths at their edges often, optional properties present or not.
func (g *generator) valid(s any, depth int) any {
	n := g.node(s)
	if n == nil {
		return g.anyValue()
	}
	if c, ok := n["const"]; ok {
		return c
	}
	if e, ok := n["enum"].([]any); ok && len(e) > 0 {
		return e[g.r.IntN(len(e))]
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := n[key].([]any); ok && len(alts) > 0 {
			return g.valid(alts[g.r.IntN(len(alts))], depth)
		}
	}
	ts := types(n)
	t := ts[g.r.IntN(len(ts))]
	if t == "null" && len(ts) > 1 && g.r.IntN(4) > 0 {
		t = ts[(indexOf(ts, "null")+1)%len(ts)]
	}
	switch t {
	case "string":
		return g.str(n)
	case "integer":
		return g.integer(n)
	case "number":
		return g.number(n)
	case "boolean":
		return g.r.IntN(2) == 0
	case "null":
		return nil
	case "array":
		return g.array(n, depth)
	case "object":
		return g.object(n, depth)
	}
	return g.anyValue()
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func (g *generator) anyValue() any {
	switch g.r.IntN(4) {
	case 0:
		return "x"
	case 1:
		return float64(g.r.IntN(100))
	case 2:
		return true
	}
	return nil
}

func num(n map[string]any, key string) (float64, bool) {
	v, ok := n[key].(float64)
	return v, ok
}

// alphabets the strings are drawn from: plain, and the kinds of text that
// break naive handlers.
var alphabets = []string{
	"abcdefghijklmnopqrstuvwxyz",
	"ABCxyz0123456789 -_.",
	"é中文🙂ñ\u00a0\u200b",
	"'\"\\<>%$&;|`{}[]\n\t",
}

// formatted returns an example of a format the generator knows, "" for
// others.
func (g *generator) formatted(format string) string {
	i := g.r.IntN(1000)
	switch format {
	case "date-time":
		return time.Unix(g.r.Int64N(4e9), 0).UTC().Format(time.RFC3339)
	case "date":
		return time.Unix(g.r.Int64N(4e9), 0).UTC().Format(time.DateOnly)
	case "time":
		return time.Unix(g.r.Int64N(86400), 0).UTC().Format("15:04:05Z")
	case "email":
		return fmt.Sprintf("user%d@example.com", i)
	case "uri", "url", "iri":
		return fmt.Sprintf("https://example.com/p/%d", i)
	case "uuid":
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<12), g.r.IntN(1<<12), g.r.Int64N(1<<48))
	case "ipv4":
		return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
	case "ipv6":
		return fmt.Sprintf("fd00::%x", i)
	case "hostname":
		return fmt.Sprintf("host%d.example.com", i)
	}
	return ""
}

func (g *generator) str(n map[string]any) string {
	if f, ok := n["format"].(string); ok {
		if s := g.formatted(f); s != "" {
			return s
		}
	}
	lo, hi := 0, 24
	if v, ok := num(n, "minLength"); ok {
		lo = int(v)
	}
	if v, ok := num(n, "maxLength"); ok {
		hi = int(v)
	} else if hi < lo {
		hi = lo + 24
	}
	if hi < lo {
		hi = lo
	}
	var length int
	switch g.r.IntN(4) {
	case 0:
		length = lo // the empty string when nothing forbids it
	case 1:
		length = hi
	default:
		length = lo + g.r.IntN(hi-lo+1)
	}
	alphabet := []rune(alphabets[g.r.IntN(len(alphabets))])
	out := make([]rune, length)
	for i := range out {
		out[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(out)
}

// bounds are n's numeric bounds made inclusive (for integers, exclusive
// ones moved by one); has says which exist.
func bounds(n map[string]any, integer bool) (lo, hi float64, hasLo, hasHi bool) {
	step := 1.0
	if !integer {
		step = 1e-6
	}
	if v, ok := num(n, "minimum"); ok {
		lo, hasLo = v, true
	}
	if v, ok := num(n, "exclusiveMinimum"); ok && (!hasLo || v >= lo) {
		lo, hasLo = v+step, true
	}
	if v, ok := num(n, "maximum"); ok {
		hi, hasHi = v, true
	}
	if v, ok := num(n, "exclusiveMaximum"); ok && (!hasHi || v <= hi) {
		hi, hasHi = v-step, true
	}
	if integer {
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	return lo, hi, hasLo, hasHi
}

// pickNumber picks a value in [lo, hi] (either side open when missing),
// favouring the bounds and the values handlers trip on.
func (g *generator) pickNumber(lo, hi float64, hasLo, hasHi, integer bool) float64 {
	switch {
	case !hasLo && !hasHi:
		lo, hi = -1000, 1000
		specials := []float64{0, 1, -1, math.MaxInt32, math.MinInt32, 1 << 53}
		if g.r.IntN(3) == 0 {
			return specials[g.r.IntN(len(specials))]
		}
	case !hasLo:
		lo = hi - 1000
	case !hasHi:
		hi = lo + 1000
	}
	if hi < lo {
		return lo
	}
	var v float64
	switch g.r.IntN(6) {
	case 0:
		v = lo
	case 1:
		v = hi
	case 2:
		v = lo + 1
	case 3:
		v = hi - 1
	default:
		v = lo + g.r.Float64()*(hi-lo)
	}
	v = min(max(v, lo), hi)
	if integer {
		v = math.Round(v)
		if v < lo {
			v++
		}
		if v > hi {
			v--
		}
	}
	return v
}

func (g *generator) integer(n map[string]any) float64 {
	lo, hi, hasLo, hasHi := bounds(n, true)
	v := g.pickNumber(lo, hi, hasLo, hasHi, true)
	if m, ok := num(n, "multipleOf"); ok && m >= 1 {
		v = math.Ceil(v/m) * m
	}
	return v
}

func (g *generator) number(n map[string]any) float64 {
	lo, hi, hasLo, hasHi := bounds(n, false)
	v := g.pickNumber(lo, hi, hasLo, hasHi, false)
	if m, ok := num(n, "multipleOf"); ok && m > 0 {
		v = math.Round(v/m) * m
	}
	return v
}

func (g *generator) array(n map[string]any, depth int) []any {
	lo, hi := 0, 3
	if v, ok := num(n, "minItems"); ok {
		lo = int(v)
	}
	if v, ok := num(n, "maxItems"); ok {
		hi = int(v)
	} else if hi < lo {
		hi = lo + 3
	}
	if hi < lo {
		hi = lo
	}
	count := lo + g.r.IntN(hi-lo+1)
	if depth >= maxDepth {
		count = lo
	}
	prefix, _ := n["prefixItems"].([]any)
	out := make([]any, count)
	for i := range out {
		if i < len(prefix) {
			out[i] = g.valid(prefix[i], depth+1)
		} else {
			out[i] = g.valid(n["items"], depth+1)
		}
	}
	return out
}

// properties returns n's declared properties in a stable order.
func properties(n map[string]any) (names []string, props map[string]any) {
	props, _ = n["properties"].(map[string]any)
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names, props
}

func required(n map[string]any) map[string]bool {
	req := map[string]bool{}
	if r, ok := n["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				req[s] = true
			}
		}
	}
	return req
}

func (g *generator) object(n map[string]any, depth int) map[string]any {
	names, props := properties(n)
	req := required(n)
	out := map[string]any{}
	for _, k := range names {
		if req[k] || (depth < maxDepth && g.r.IntN(2) == 0) {
			out[k] = g.valid(props[k], depth+1)
		}
	}
	for k := range req {
		if _, ok := out[k]; !ok {
			out[k] = g.anyValue() // required but not declared
		}
	}
	return out
}

// arguments returns a valid arguments object.
func (g *generator) arguments() map[string]any {
	n := g.node(g.root)
	if n == nil {
		return map[string]any{}
	}
	return g.object(n, 0)
}

// invalidArguments returns an arguments object valid but at one place,
// broken at an edge of the schema there: a required property missing, an
// undeclared one added, or a property's value of the wrong type, out of
// its bounds, its length or its enum.
func (g *generator) invalidArguments() map[string]any {
	args := g.arguments()
	n := g.node(g.root)
	if n == nil {
		args["unexpected"] = true
		return args
	}
	names, props := properties(n)
	req := required(n)
	var reqNames []string
	for _, k := range names {
		if req[k] {
			reqNames = append(reqNames, k)
		}
	}
	switch r := g.r.IntN(8); {
	case r == 0 && len(reqNames) > 0:
		delete(args, reqNames[g.r.IntN(len(reqNames))])
	case r == 1 || len(names) == 0:
		args["unexpected_"+fmt.Sprint(g.r.IntN(100))] = "x"
	default:
		k := names[g.r.IntN(len(names))]
		args[k] = g.invalid(props[k])
	}
	return args
}

// invalid returns a value s refuses, at one of its edges.
func (g *generator) invalid(s any) any {
	n := g.node(s)
	if n == nil {
		return nil
	}
	var options []func() any
	if e, ok := n["enum"].([]any); ok && len(e) > 0 {
		options = append(options, func() any { return "not-in-the-enum" })
	}
	ts := types(n)
	t := ts[0]
	wrong := map[string]any{"string": 12345.0, "integer": "twelve", "number": "twelve", "boolean": "true", "array": map[string]any{}, "object": []any{}, "null": 0.0}
	options = append(options, func() any { return wrong[t] })
	if t == "integer" {
		options = append(options, func() any { return 1.5 })
	}
	if indexOf(ts, "null") < 0 {
		options = append(options, func() any { return nil })
	}
	switch t {
	case "integer", "number":
		integer := t == "integer"
		lo, hi, hasLo, hasHi := bounds(n, integer)
		step := 1.0
		if !integer {
			step = 1e-3 * (1 + math.Abs(hi))
		}
		if hasLo {
			options = append(options, func() any { return lo - step })
		}
		if hasHi {
			options = append(options, func() any { return hi + step })
		}
	case "string":
		if v, ok := num(n, "minLength"); ok && v > 0 {
			options = append(options, func() any { return strings.Repeat("a", int(v)-1) })
		}
		if v, ok := num(n, "maxLength"); ok {
			options = append(options, func() any { return strings.Repeat("a", int(v)+1) })
		}
		if f, ok := n["format"].(string); ok {
			options = append(options, func() any { return "not-a-" + f })
		}
	case "array":
		if v, ok := num(n, "maxItems"); ok {
			options = append(options, func() any {
				out := make([]any, int(v)+1)
				for i := range out {
					out[i] = g.valid(n["items"], maxDepth)
				}
				return out
			})
		}
		if v, ok := num(n, "minItems"); ok && v > 0 {
			options = append(options, func() any { return []any{} })
		}
		if items := g.node(n["items"]); items != nil {
			options = append(options, func() any { return []any{g.invalid(items)} })
		}
	case "object":
		_, props := properties(n)
		if len(required(n)) > 0 || len(props) > 0 {
			options = append(options, func() any {
				obj := g.object(n, maxDepth)
				names, props := properties(n)
				if len(names) > 0 {
					k := names[g.r.IntN(len(names))]
					obj[k] = g.invalid(props[k])
				}
				return obj
			})
		}
	}
	return options[g.r.IntN(len(options))]()
}
