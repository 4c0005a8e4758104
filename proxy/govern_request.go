package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
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
	seen, ok := 0, true
	err := jsonscan.Members(b, func(m jsonscan.Member) bool {
		member, known := paramsMember(m.Name[1 : len(m.Name)-1])
		if !known || seen&member != 0 {
			ok = false
			return false
		}
		seen |= member
		switch member {
		case memberName:
			ok = readJSONString(m.Value, &p.Name)
		case memberURI:
			ok = readJSONString(m.Value, &p.URI)
		case memberArguments:
			p.Arguments = m.Value
		case memberMeta:
			ok = json.Unmarshal(m.Value, &p.Meta) == nil
		}
		return ok
	})
	return err == nil && ok
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
	str, ok := jsonscan.String(v)
	if ok {
		*s = str
	}
	return ok
}
