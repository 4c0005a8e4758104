package audit

import (
	"bufio"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// VerifyError says which line of a trail does not verify, and why.
type VerifyError struct {
	// Line is the 1-based number of the first line that does not verify.
	Line   int
	Reason string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("line %d does not verify: %s", e.Line, e.Reason)
}

// Verify checks the chain of the trail read from r and returns the number
// of lines that verified. A nil key checks a hash chain; a key checks an
// HMAC chain, and then a line that is only hash-chained does not verify
// (anyone could have written it). The error is a [*VerifyError] naming the
// first line that does not verify, or a read error.
func Verify(r io.Reader, key []byte) (int, error) {
	br := bufio.NewReader(r)
	prev := ""
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return n, fmt.Errorf("reading the audit trail: %w", err)
		}
		n++
		if line[len(line)-1] != '\n' {
			return n - 1, &VerifyError{Line: n, Reason: "the line is incomplete (no newline at its end)"}
		}
		h, err := verifyLine(line[:len(line)-1], prev, key)
		if err != nil {
			return n - 1, &VerifyError{Line: n, Reason: err.Error()}
		}
		prev = h
	}
}

// verifyLine checks one line (without its newline) against the previous
// line's hash and returns its own.
func verifyLine(line []byte, prev string, key []byte) (string, error) {
	h, ok := hashOf(line)
	if !ok {
		return "", errors.New(`it does not end with "hash":"<64 hex digits>"}`)
	}
	body := line[:len(line)-len(hashPrefix)-64-2]
	var head struct {
		Chain string `json:"chain"`
		Prev  string `json:"prev"`
	}
	if err := json.Unmarshal(append(append([]byte{}, body...), '}'), &head); err != nil {
		return "", fmt.Errorf("it is not valid JSON: %v", err)
	}
	switch {
	case head.Chain == ChainHMACSHA256 && key == nil:
		return "", errors.New("it is HMAC-chained: give the key it was written with (--audit-key env:VAR)")
	case head.Chain == ChainSHA256 && key != nil:
		return "", errors.New("it is only hash-chained, not HMAC-chained with the key: it was written without --audit-key, or rewritten")
	case head.Chain != ChainSHA256 && head.Chain != ChainHMACSHA256:
		return "", fmt.Errorf("unknown chain %q (want %s or %s)", head.Chain, ChainSHA256, ChainHMACSHA256)
	}
	if head.Prev != prev {
		if prev == "" {
			return "", errors.New("the first line names a previous line: lines before it were removed")
		}
		return "", errors.New("its prev is not the previous line's hash: a line before it was removed, added or reordered")
	}
	if want := lineHash(body, key); !hmac.Equal([]byte(want), []byte(h)) {
		return "", errors.New("its hash does not match its content: the line was changed after it was written")
	}
	return h, nil
}
