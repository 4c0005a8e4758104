//go:build !unix

package audit

import (
	"os"
)

// asLeft reports whether the trail is as this Writer left it: the same
// size, ending in the tail of the line it wrote last.
func (w *Writer) asLeft(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Size() != w.size {
		return false
	}
	tail := w.tail[:tailLen]
	_, err = f.ReadAt(tail, w.size-int64(tailLen))
	return err == nil && w.leftTail(tail)
}
