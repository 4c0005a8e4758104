// Package pipeio reads and writes pipes with raw system calls on the
// runtime poller's readiness, for the stdio transport and the proxy's
// stdio shim, which both spend their time passing small lines through
// pipes, and reopens an inherited pipe so that the poller waits on it
// ([Reopen]).
package pipeio

import (
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// File reads and writes one end of a pipe the way os.File does (waiting
// for readiness in the runtime's poller, honouring deadlines and Close) but
// makes the read and write calls themselves as raw system calls.
//
// Why: os.File enters every read and write through the scheduler's
// blocking-syscall path, and leaving that path wakes the runtime's monitor
// thread whenever the process had gone idle, which a client waiting for
// each answer does once per request; the paired BenchmarkStdioRoundTrip
// (transport), the paired BenchmarkRelay (proxy) and docs/performance.md
// show what that costs. A read or write of a non-blocking pipe never
// blocks, which is what makes the raw call safe: File is only used on an
// end that the poller manages (O_NONBLOCK set).
type File struct {
	f  *os.File
	rc syscall.RawConn
}

// New returns a File for f, or nil when f is not a non-blocking end the
// poller manages (then f's own Read and Write are the ones to use).
func New(f *os.File) *File {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	if err := rc.Control(func(fd uintptr) {
		flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = errno == 0 && flags&syscall.O_NONBLOCK != 0
	}); err != nil || !nonblocking {
		return nil
	}
	return &File{f: f, rc: rc}
}

// Read reads at most len(b) bytes, waiting until some are there. At the
// end of the stream it returns io.EOF.
func (p *File) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	err := p.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			if errno != syscall.EINTR {
				return errno != syscall.EAGAIN
			}
		}
	})
	switch {
	case err != nil:
		return 0, p.wrap("read", err)
	case errno != 0:
		return 0, p.wrap("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// Write writes all of b, waiting while the pipe is full, until the write
// deadline set on the file passes or the file is closed.
func (p *File) Write(b []byte) (int, error) {
	done := 0
	var errno syscall.Errno
	err := p.rc.Write(func(fd uintptr) bool {
		for done < len(b) {
			n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[done])), uintptr(len(b)-done))
			switch e {
			case 0:
				done += int(n)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return done, p.wrap("write", err)
	case errno != 0:
		return done, p.wrap("write", errno)
	}
	return done, nil
}

// wrap shapes err as os.File's methods do, so errors.Is finds
// os.ErrDeadlineExceeded, os.ErrClosed and syscall.EPIPE through it. The
// poller's own "use of closed file" is not os.ErrClosed (os.File
// translates it), so a file that refuses Stat for being closed stands for
// it.
func (p *File) wrap(op string, err error) error {
	if _, isErrno := err.(syscall.Errno); !isErrno && !errors.Is(err, os.ErrDeadlineExceeded) {
		if _, serr := p.f.Stat(); errors.Is(serr, os.ErrClosed) {
			err = os.ErrClosed
		}
	}
	return &os.PathError{Op: op, Path: p.f.Name(), Err: err}
}

// Reopen returns a new file on the pipe f is an end of, opened anew
// through /proc/self/fd in non-blocking mode, so that the runtime's poller
// waits on it; nil when f is not a pipe or cannot be reopened.
//
// Why: a goroutine waiting in a blocking read(2) holds its thread in a
// system call, and a Go 1.26 runtime can fail to take that thread's
// processor back when a stop-the-world (a garbage collection) starts just
// as the read begins; the world then stays stopped until the runtime's
// monitor thread wakes, up to a minute later (docs/performance.md,
// 2026-12-07). A process whose peer waits for its answer before writing
// again, as a stdio server's client or a proxy's host does, stalls that
// long. A read through the poller parks the goroutine instead.
//
// The new open file description is the caller's alone: the one f shares
// with other processes (a host's pipe, a shell's) keeps its mode, so
// nothing is left changed behind the process, even when it is killed.
// Closing the new file ends a read still waiting on it and leaves f open.
func Reopen(f *os.File) *os.File {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	if err := rc.Control(func(d uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(d), &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
			fd = reopenFD(d)
		}
	}); err != nil || fd < 0 {
		return nil
	}
	// A non-blocking descriptor given to NewFile joins the poller.
	return os.NewFile(uintptr(fd), f.Name())
}

// reopenFD opens the pipe d is an end of anew, non-blocking, in d's access
// mode; -1 when it cannot.
func reopenFD(d uintptr) int {
	flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, d, syscall.F_GETFL, 0)
	if errno != 0 {
		return -1
	}
	// O_NONBLOCK: opening a pipe's read end never waits for a writer,
	// and opening its write end with no reader left fails at once.
	mode := int(flags)&syscall.O_ACCMODE | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	fd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(int(d)), mode, 0)
	if err != nil {
		return -1
	}
	return fd
}

// Poll returns a file on the pipe or socket f is an end of, in the
// runtime's poller, and release, which closes it and puts back what Poll
// changed; nil and nil for anything else (a terminal, a regular file), or
// when it cannot. Closing the new file ends a read still waiting on it.
//
// A pipe is [Reopen]ed: f's open file description is left as it is. A
// socket cannot be opened anew (hosts written on Node, Claude's and the
// editors' among them, give their servers sockets, not pipes): f is
// duplicated and the description the two share set non-blocking, which
// whoever else holds that description sees until release puts it back.
// So a socket that is also one of avoid (a host that gave stdout and
// stderr one socket, where a server writes its stderr) is declined.
func Poll(f *os.File, avoid ...*os.File) (*os.File, func()) {
	nf, restore := poll(f, avoid)
	if nf == nil {
		return nil, nil
	}
	return nf, func() {
		nf.Close()
		restore()
	}
}

// poll is [Poll] whose restore only puts f's description back in blocking
// mode, leaving the new file open.
func poll(f *os.File, avoid []*os.File) (*os.File, func()) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil
	}
	fd, setNonblock := -1, false
	if err := rc.Control(func(d uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(d), &st) != nil {
			return
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFIFO:
			fd = reopenFD(d)
		case syscall.S_IFSOCK:
			if !isAny(&st, avoid) {
				fd, setNonblock = dupNonblock(d)
			}
		}
	}); err != nil || fd < 0 {
		return nil, nil
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	return nf, func() {
		if setNonblock {
			rc.Control(func(d uintptr) {
				flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, d, syscall.F_GETFL, 0)
				if errno == 0 {
					syscall.RawSyscall(syscall.SYS_FCNTL, d, syscall.F_SETFL, flags&^syscall.O_NONBLOCK)
				}
			})
		}
	}
}

// dupNonblock duplicates the socket d and sets the description the two
// share non-blocking; it returns the new descriptor (-1 when it cannot)
// and whether it changed the mode, which the caller puts back.
func dupNonblock(d uintptr) (fd int, setNonblock bool) {
	flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, d, syscall.F_GETFL, 0)
	if errno != 0 {
		return -1, false
	}
	nd, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, d, syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, false
	}
	if flags&syscall.O_NONBLOCK == 0 {
		if _, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, nd, syscall.F_SETFL, flags|syscall.O_NONBLOCK); errno != 0 {
			syscall.Close(int(nd))
			return -1, false
		}
		setNonblock = true
	}
	return int(nd), setNonblock
}

// isAny reports whether st describes the same file as one of files.
func isAny(st *syscall.Stat_t, files []*os.File) bool {
	for _, f := range files {
		if f == nil {
			continue
		}
		var other syscall.Stat_t
		rc, err := f.SyscallConn()
		if err != nil {
			continue
		}
		same := false
		rc.Control(func(fd uintptr) {
			same = syscall.Fstat(int(fd), &other) == nil && other.Dev == st.Dev && other.Ino == st.Ino
		})
		if same {
			return true
		}
	}
	return false
}

// Stdin returns the process's standard input in the poller when it is a
// pipe or a socket ([Poll]; one that is also stdout or stderr is left
// alone), os.Stdin otherwise, and restore, which puts a socket's
// description back in blocking mode for whoever shares it, to be called as
// the process ends. The file stays open, so that nothing still reading it
// then sees it closed. Each call makes a new file.
func Stdin() (f *os.File, restore func()) {
	if f, restore := poll(os.Stdin, []*os.File{os.Stdout, os.Stderr}); f != nil {
		return f, restore
	}
	return os.Stdin, func() {}
}
