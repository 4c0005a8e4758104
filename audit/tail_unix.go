//go:build unix

package audit

import (
	"os"
	"syscall"
)

// asLeft reports whether the trail is as this Writer left it, with one
// read from where its last line's hash begins: that read returns exactly
// the line's tail when the trail ends there, and a byte more when it grew.
// os.File.ReadAt would read again after a short read to see the end, so
// the read is made here; the descriptor of a regular file is blocking
// already, so Fd changes nothing.
func (w *Writer) asLeft(f *os.File) bool {
	for {
		n, err := syscall.Pread(int(f.Fd()), w.tail[:], w.size-int64(tailLen))
		if err == syscall.EINTR {
			continue
		}
		return err == nil && w.leftTail(w.tail[:n])
	}
}
