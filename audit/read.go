package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Read reads every entry of the trail read from r, in order. It does not
// verify the chain (see [Verify]); a line that is not JSON is an error
// naming it.
func Read(r io.Reader) ([]Entry, error) {
	br := bufio.NewReader(r)
	var entries []Entry
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return entries, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return entries, fmt.Errorf("reading the audit trail: %w", err)
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return entries, fmt.Errorf("line %d is not an audit line: %v", n, err)
		}
		entries = append(entries, e)
	}
}
