package proxy

import (
	"os"
	"syscall"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// hostPipe returns a [pipeio.File] for an end the proxy inherited when it
// is a pipe, and the function that gives it back; nil for anything else.
//
// An inherited end is usually in blocking mode, which keeps it out of the
// runtime's poller, and raw calls are only safe on an end the poller
// manages. So the end is duplicated, its open file description (shared by
// the duplicate and the original) set non-blocking, and the duplicate
// opened as a new os.File, which the poller then takes. release closes the
// duplicate, which also ends a read still waiting on it, and puts the
// description back in blocking mode if it was, for whoever shares it once
// the proxy is gone. An end on the same pipe as stderr (a host that sent
// both to one pipe) is left alone: the server writes its stderr there
// itself, and a server that does not expect a non-blocking stderr could
// lose lines to EAGAIN.
func hostPipe(f, stderr *os.File) (p *pipeio.File, release func()) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil
	}
	var (
		dup      = -1
		setNonbl bool
	)
	if err := rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO || samePipe(stderr, &st) {
			return
		}
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if errno != 0 {
			return
		}
		d, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		if errno != 0 {
			return
		}
		if flags&syscall.O_NONBLOCK == 0 {
			if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, d, syscall.F_SETFL, flags|syscall.O_NONBLOCK); errno != 0 {
				syscall.Close(int(d))
				return
			}
			setNonbl = true
		}
		dup = int(d)
	}); err != nil || dup < 0 {
		return nil, nil
	}
	nf := os.NewFile(uintptr(dup), f.Name())
	restore := func() {
		nf.Close()
		if setNonbl {
			rc.Control(func(fd uintptr) {
				flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
				if errno == 0 {
					syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFL, flags&^syscall.O_NONBLOCK)
				}
			})
		}
	}
	if p = pipeio.New(nf); p == nil {
		restore()
		return nil, nil
	}
	return p, restore
}

// samePipe reports whether f is an end of the pipe st describes.
func samePipe(f *os.File, st *syscall.Stat_t) bool {
	if f == nil {
		return false
	}
	var other syscall.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	same := false
	rc.Control(func(fd uintptr) {
		same = syscall.Fstat(int(fd), &other) == nil && other.Dev == st.Dev && other.Ino == st.Ino
	})
	return same
}
