package audit

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Head anchors a trail: how many records it holds and the hash of the
// last one. The chain alone cannot show records cut from its end, or a
// trail emptied; a head kept beside it ([HeadPath]) or elsewhere can.
type Head struct {
	// Count is the number of records (lines), 0 for an empty trail.
	Count int
	// Hash is the last record's hash, "" for an empty trail.
	Hash string
}

// String writes h as [ParseHead] reads it: COUNT:HASH.
func (h Head) String() string { return strconv.Itoa(h.Count) + ":" + h.Hash }

// ParseHead reads COUNT:HASH, as [Head.String] writes it and mcpctl audit
// verify prints it.
func ParseHead(s string) (Head, error) {
	count, hash, ok := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.Atoi(count)
	switch {
	case !ok || err != nil || n < 0:
		return Head{}, fmt.Errorf("%q is not a head: want COUNT:HASH, as mcpctl audit verify prints it", s)
	case n == 0 && hash != "":
		return Head{}, fmt.Errorf("%q is not a head: an empty trail's head is 0:", s)
	case n > 0 && !isHash(hash):
		return Head{}, fmt.Errorf("%q is not a head: its hash is not 64 hex digits", s)
	}
	return Head{Count: n, Hash: hash}, nil
}

func isHash(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 64 && err == nil
}

// HeadPath is where the head of the trail at path is kept: path + ".head".
func HeadPath(path string) string { return path + ".head" }

// readHead reads the head kept beside a trail; ok is false when there is
// none.
func readHead(path string) (h Head, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Head{}, false, nil
	}
	if err != nil {
		return Head{}, false, fmt.Errorf("reading the trail's head: %w", err)
	}
	h, err = ParseHead(string(data))
	if err != nil {
		return Head{}, false, fmt.Errorf("the trail's head %s: %w", path, err)
	}
	return h, true, nil
}

// headFile writes the head beside a trail in place: one write at the
// start of the file, and a cut when the file held more. A trail's count
// only grows, so a head is never shorter than the one it overwrites, and
// the two are one short line in the file's first disk block: a crash
// leaves the old head or the new one, as a new file renamed over the old
// did, without the file system work of creating and renaming a file per
// record. It is not synced: the trail's lines are not either, and a sync
// per record would cost a batch far more than the rest of its auditing.
//
// The file is kept open between heads, and its path looked up before
// each: a head removed, moved or replaced behind mcpctl's back is written
// again where the path says, as when the file was opened per head. The
// open file's identity cannot be taken by another file while it is held
// open, so the same identity at the path means the same file.
type headFile struct {
	path string
	f    *os.File
	id   fs.FileInfo // f's status when it was opened
	line []byte
}

func (hf *headFile) write(h Head) error {
	hf.line = append(strconv.AppendInt(hf.line[:0], int64(h.Count), 10), ':')
	hf.line = append(append(hf.line, h.Hash...), '\n')
	if err := hf.writeLine(); err != nil {
		return fmt.Errorf("writing the trail's head %s: %w", hf.path, err)
	}
	return nil
}

func (hf *headFile) writeLine() error {
	named, err := os.Stat(hf.path)
	if hf.f != nil && (err != nil || !os.SameFile(hf.id, named)) {
		hf.close()
	}
	if hf.f == nil {
		f, err := os.OpenFile(hf.path, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		if named, err = f.Stat(); err != nil {
			f.Close()
			return err
		}
		hf.f, hf.id = f, named
	}
	if _, err := hf.f.WriteAt(hf.line, 0); err != nil {
		return err
	}
	// named's size is the file's before this write, which cut nothing.
	if named.Size() > int64(len(hf.line)) {
		return hf.f.Truncate(int64(len(hf.line)))
	}
	return nil
}

func (hf *headFile) close() error {
	if hf.f == nil {
		return nil
	}
	err := hf.f.Close()
	hf.f, hf.id = nil, nil
	return err
}

// lastLine reads the last line of a file that ends in a newline, without
// that newline.
func lastLine(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	end := st.Size() - 1 // the final newline
	var line []byte
	buf := make([]byte, 4096)
	for pos := end; pos > 0; {
		n := int64(len(buf))
		if n > pos {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		chunk := buf[:n]
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return append(bytes.Clone(chunk[i+1:]), line...), nil
		}
		line = append(bytes.Clone(chunk), line...)
	}
	return line, nil
}

// countLines counts the lines of a file.
func countLines(f *os.File) (int, error) {
	br := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	n := 0
	for {
		_, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			n++
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return n, nil
		default:
			return n, err
		}
	}
}

// lineSeq is the sequence number of a line, 0 for a line written before
// trails had them.
func lineSeq(line []byte) (int64, error) {
	var head struct {
		Seq int64 `json:"seq"`
	}
	err := json.Unmarshal(line, &head)
	return head.Seq, err
}
