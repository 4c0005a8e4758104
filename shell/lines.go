package shell

import (
	"bufio"
	"io"
	"strings"
)

// excerptBytes is how much of a refused line is kept to quote.
const excerptBytes = 256

// lineReader reads lines of at most max bytes (zero: any length); a
// longer line is refused and skipped to its end, never held whole.
type lineReader struct {
	r   *bufio.Reader
	max int64
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024), max: max}
}

// read returns the next line without its newline, a [*LineTooLongError],
// or io.EOF at the end. A last line without its newline is a line.
func (lr *lineReader) read() (string, error) {
	var (
		// The line is built in a strings.Builder, whose String makes no
		// second copy of a long line.
		line = &strings.Builder{}
		size int64 // bytes read for this line, its newline included
		over bool
	)
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += int64(len(chunk))
		switch {
		case !over && (lr.max <= 0 || size <= lr.max+1):
			line.Write(chunk)
		case !over:
			// Only the start is kept, to say which line it was, in a
			// copy: the rest is read and dropped.
			over = true
			start := line.String()
			line = &strings.Builder{}
			line.WriteString(start[:min(len(start), excerptBytes)])
			line.Write(chunk[:min(len(chunk), excerptBytes-line.Len())])
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && size == 0 {
			return "", io.EOF
		}
		if err != nil && err != io.EOF {
			return "", err
		}
		break
	}
	text := strings.TrimSuffix(line.String(), "\n")
	if over || (lr.max > 0 && int64(len(text)) > lr.max) {
		return "", &LineTooLongError{Start: strings.Clone(text[:min(len(text), excerptBytes)]), Max: lr.max}
	}
	return text, nil
}
