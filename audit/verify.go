package audit

import (
	"bufio"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// VerifyError says which line of a trail does not verify, and why, or
// (Line 0) how the trail does not match its head.
type VerifyError struct {
	// Line is the 1-based number of the first line that does not verify;
	// 0 when every line verifies but the trail does not match its head.
	Line   int
	Reason string
}

func (e *VerifyError) Error() string {
	if e.Line == 0 {
		return e.Reason
	}
	return fmt.Sprintf("line %d does not verify: %s", e.Line, e.Reason)
}

// Verify checks the chain of the trail read from r and returns the number
// of lines that verified. A nil key checks a hash chain; a key checks an
// HMAC chain, and then a line that is only hash-chained does not verify
// (anyone could have written it). A line's sequence number, when it has
// one, must be its line number. The error is a [*VerifyError] naming the
// first line that does not verify, or a read error.
//
// Verify cannot see records cut from the end of the trail: [VerifyFile]
// checks the trail against its head too.
func Verify(r io.Reader, key []byte) (int, error) {
	c, err := scan(r, key, 0)
	return c.head.Count, err
}

// chain is what scan found.
type chain struct {
	head     Head   // the count of lines that verified and the last hash
	hashAt   string // the hash of the line scan was asked for
	anchored bool   // the lines have sequence numbers
}

// scan verifies the lines read from r; it keeps the hash of line at.
func scan(r io.Reader, key []byte, at int) (chain, error) {
	br := bufio.NewReader(r)
	var c chain
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return c, fmt.Errorf("reading the audit trail: %w", err)
		}
		n := c.head.Count + 1
		if line[len(line)-1] != '\n' {
			return c, &VerifyError{Line: n, Reason: "the line is incomplete (no newline at its end)"}
		}
		h, seq, err := verifyLine(line[:len(line)-1], c.head.Hash, key)
		if err != nil {
			return c, &VerifyError{Line: n, Reason: err.Error()}
		}
		switch {
		case seq == 0 && c.anchored:
			return c, &VerifyError{Line: n, Reason: "it has no sequence number, though the lines before it have: it was added behind mcpctl's back"}
		case seq != 0 && seq != int64(n):
			return c, &VerifyError{Line: n, Reason: fmt.Sprintf("its sequence number is %d: lines before it were removed or added", seq)}
		}
		c.anchored = c.anchored || seq != 0
		c.head = Head{Count: n, Hash: h}
		if n == at {
			c.hashAt = h
		}
	}
}

// verifyLine checks one line (without its newline) against the previous
// line's hash and returns its own hash and its sequence number.
func verifyLine(line []byte, prev string, key []byte) (string, int64, error) {
	h, ok := hashOf(line)
	if !ok {
		return "", 0, errors.New(`it does not end with "hash":"<64 hex digits>"}`)
	}
	body := line[:len(line)-len(hashPrefix)-64-2]
	var head struct {
		Seq   int64  `json:"seq"`
		Chain string `json:"chain"`
		Prev  string `json:"prev"`
	}
	if err := json.Unmarshal(append(append([]byte{}, body...), '}'), &head); err != nil {
		return "", 0, fmt.Errorf("it is not valid JSON: %v", err)
	}
	switch {
	case head.Chain == ChainHMACSHA256 && key == nil:
		return "", 0, errors.New("it is HMAC-chained: give the key it was written with (--audit-key env:VAR)")
	case head.Chain == ChainSHA256 && key != nil:
		return "", 0, errors.New("it is only hash-chained, not HMAC-chained with the key: it was written without --audit-key, or rewritten")
	case head.Chain != ChainSHA256 && head.Chain != ChainHMACSHA256:
		return "", 0, fmt.Errorf("unknown chain %q (want %s or %s)", head.Chain, ChainSHA256, ChainHMACSHA256)
	}
	if head.Prev != prev {
		if prev == "" {
			return "", 0, errors.New("the first line names a previous line: lines before it were removed")
		}
		return "", 0, errors.New("its prev is not the previous line's hash: a line before it was removed, added or reordered")
	}
	if want := lineHash(body, key); !hmac.Equal([]byte(want), []byte(h)) {
		return "", 0, errors.New("its hash does not match its content: the line was changed after it was written")
	}
	return h, head.Seq, nil
}

// Report is what [VerifyFile] found.
type Report struct {
	// Head is the trail's head as verified: its record count and last
	// hash. Store it elsewhere to check the trail against it later.
	Head Head
	// Unanchored says the trail has neither a head nor sequence numbers
	// (it was written before mcpctl kept them) and no head was given:
	// records cut from its end cannot show.
	Unanchored bool
}

// VerifyFile checks the trail at path: its chain (as [Verify] does), then
// its head, kept in [HeadPath]: the trail must end exactly where its head
// says. given, when not nil, is a head stored elsewhere, from an earlier
// verify: the trail must hold that record where it says, and may have
// grown since. Any failure, including an emptied trail, a trail whose head
// is missing and a missing trail whose head is left, is a [*VerifyError];
// a missing trail with no head is an error matching [fs.ErrNotExist].
func VerifyFile(path string, key []byte, given *Head) (Report, error) {
	headPath := HeadPath(path)
	kept, hasHead, err := readHead(headPath)
	if err != nil {
		return Report{}, &VerifyError{Reason: err.Error()}
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && hasHead {
		return Report{}, &VerifyError{Reason: fmt.Sprintf("the trail is missing, but its head %s says %d records: it was removed", headPath, kept.Count)}
	}
	if err != nil {
		return Report{}, fmt.Errorf("reading the audit trail: %w", err)
	}
	defer f.Close()
	at := 0
	if given != nil {
		at = given.Count
	}
	c, err := scan(f, key, at)
	if err != nil {
		return Report{Head: c.head}, err
	}
	r := Report{Head: c.head}
	fail := func(format string, args ...any) (Report, error) {
		return r, &VerifyError{Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case !hasHead && given == nil && (c.anchored || c.head.Count == 0):
		if c.head.Count == 0 {
			return fail("the trail is empty and its head %s is missing: its records may have been removed with it", headPath)
		}
		return fail("the trail's head %s is missing: records cut from its end cannot be ruled out (give --head COUNT:HASH from an earlier verify)", headPath)
	case !hasHead:
		// A trail written before heads, or checked against a head given.
		r.Unanchored = given == nil
	case c.head.Count == 0 && kept.Count > 0:
		return fail("the trail is empty, but its head %s says %d records: they were removed", headPath, kept.Count)
	case c.head.Count < kept.Count:
		return fail("the trail ends at record %d, but its head %s says %d: records were removed from its end", c.head.Count, headPath, kept.Count)
	case c.head.Count > kept.Count:
		return fail("the trail has %d records, but its head %s says %d: records were added behind mcpctl's back, or the head was not updated (if every record is genuine, write %s to the head)", c.head.Count, headPath, kept.Count, c.head)
	case c.head.Hash != kept.Hash:
		return fail("the trail's last record is not the one its head %s names: the trail was rewritten", headPath)
	}
	if given == nil {
		return r, nil
	}
	switch {
	case c.head.Count < given.Count:
		return fail("the trail ends at record %d, but the head given says %d: records were removed from its end", c.head.Count, given.Count)
	case given.Count > 0 && c.hashAt != given.Hash:
		return fail("the trail's record %d is not the one the head given names: the trail was rewritten", given.Count)
	}
	return r, nil
}
