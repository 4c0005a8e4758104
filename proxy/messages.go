package proxy

import (
	"bytes"
	"encoding/json"
	"iter"
)

// Messages yields the JSON-RPC messages of a frame's data: each element of
// a batch (a JSON array), or else the data itself, without the white space
// around it; nothing when the data is blank. Data that starts with '[' but
// is not a JSON array is yielded whole, so that a check can flag it as the
// line it is. What is yielded aliases data.
func Messages(data []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		data := bytes.TrimSpace(data)
		if len(data) == 0 {
			return
		}
		if data[0] == '[' {
			var batch []json.RawMessage
			if json.Unmarshal(data, &batch) == nil {
				for _, m := range batch {
					if !yield(m) {
						return
					}
				}
				return
			}
		}
		yield(data)
	}
}
