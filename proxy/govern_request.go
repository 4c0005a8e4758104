package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
)

// callParams are the params of tools/call, resources/read, prompts/get:
// all the governor reads of them.
type callParams struct {
	Name      string          `json:"name"`
	URI       string          `json:"uri"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		modernMetaFields
	} `json:"_meta"`
}

// request is a governed request as FromHost decoded it.
type request struct {
	message
	p callParams
	// pErr is why the params could not be read whole; the parts that
	// were are in p.
	pErr error
}

// decodeRequest reads a host's line as a request. encoding/json reads
// the message, which checks the whole line, once; the params it keeps
// raw are then split into members by hand ([callParams.read]), so they
// are not decoded a second time.
func decodeRequest(line []byte) (*request, error) {
	r := &request{}
	if err := json.Unmarshal(line, &r.message); err != nil {
		return nil, err
	}
	if len(r.Params) > 0 {
		r.pErr = r.p.read(r.Params)
	}
	return r, nil
}

// The members of params the governor reads, as bits of a set.
const (
	memberName = 1 << iota
	memberURI
	memberArguments
	memberMeta
)

// read fills p from params, valid JSON (encoding/json has checked the
// message they are part of), as json.Unmarshal would. Each member's
// value is found by skipping it; only name, uri and _meta are decoded,
// and arguments stay a slice of params. Anything a reading by hand could
// take otherwise than encoding/json does is left to encoding/json: a
// member name with escapes, outside ASCII or in another case than ours
// (encoding/json matches names regardless of case), a member given
// twice, a value of the wrong type.
func (p *callParams) read(params []byte) error {
	if p.readPlain(params) {
		return nil
	}
	*p = callParams{}
	return json.Unmarshal(params, p)
}

// readPlain is read for params it can take by hand, reporting whether it
// could; p is then to be reset.
func (p *callParams) readPlain(b []byte) bool {
	i := skipJSONSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipJSONSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	seen := 0
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kend := jsonStringEnd(b, i)
		if kend < 0 {
			return false
		}
		key := b[i+1 : kend-1]
		i = skipJSONSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipJSONSpace(b, i+1)
		vend := jsonValueEnd(b, i)
		if vend < 0 {
			return false
		}
		v := b[i:vend]
		member, ok := paramsMember(key)
		if !ok || seen&member != 0 {
			return false
		}
		seen |= member
		switch member {
		case memberName:
			ok = readJSONString(v, &p.Name)
		case memberURI:
			ok = readJSONString(v, &p.URI)
		case memberArguments:
			p.Arguments = v
		case memberMeta:
			ok = json.Unmarshal(v, &p.Meta) == nil
		}
		if !ok {
			return false
		}
		i = skipJSONSpace(b, vend)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipJSONSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return true
		default:
			return false
		}
	}
}

// paramsMember is the member of callParams that key (a member name as
// written, without its quotes) names, 0 for one the governor does not
// read; ok is false when encoding/json may read it otherwise.
func paramsMember(key []byte) (member int, ok bool) {
	for _, c := range key {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return 0, false
		}
	}
	for _, m := range [...]struct {
		name string
		bit  int
	}{{"name", memberName}, {"uri", memberURI}, {"arguments", memberArguments}, {"_meta", memberMeta}} {
		switch {
		case string(key) == m.name:
			return m.bit, true
		case bytes.EqualFold(key, []byte(m.name)):
			return 0, false
		}
	}
	return 0, true
}

// readJSONString reads the JSON value v into s as json.Unmarshal would,
// reporting false where it would fail (v not a string or null). A string
// of plain ASCII is taken as written; others are decoded.
func readJSONString(v []byte, s *string) bool {
	if string(v) == "null" {
		return true
	}
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return json.Unmarshal(v, s) == nil
		}
	}
	*s = string(v[1 : len(v)-1])
	return true
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValueEnd returns the offset just past the JSON value that starts
// at b[i], -1 when there is none. b is valid JSON: the value is skipped,
// not checked.
func jsonValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return jsonStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = jsonStringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	// A number, true, false or null.
	j := i
	for j < len(b) && strings.IndexByte(",}] \t\n\r", b[j]) < 0 {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// jsonStringEnd returns the offset just past the string that starts at
// b[i], -1 when it does not end.
func jsonStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}
