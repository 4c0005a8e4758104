package prefault

import (
	"syscall"
	"unsafe"
)

const (
	madvPopulateRead  = 22 // MADV_POPULATE_READ, Linux 5.14
	madvPopulateWrite = 23 // MADV_POPULATE_WRITE, Linux 5.14

	// heapChunk is the unit in which the Go runtime maps heap memory
	// (pallocChunkBytes): its first chunk is mapped read-write, untouched,
	// by the time any package initialises, and the heap grows upward
	// through it.
	heapChunk = 4 << 20
)

// pageSize is the system's: madvise wants a page-aligned start (64 KB
// pages exist on arm64).
var pageSize = uintptr(syscall.Getpagesize())

func init() {
	if v, _ := syscall.Getenv("MCPCTL_PREFAULT"); v == "off" {
		return
	}
	if lo, hi := heapRest(); lo < hi {
		populate(lo, hi, madvPopulateWrite)
	}
	if lo, hi, ok := textMapping(); ok {
		populate(lo, hi, madvPopulateRead)
	}
}

// populate maps [lo, hi) in; errors are ignored: a kernel without the
// advice, or a range that runs into memory the runtime has only reserved,
// leaves the pages to fault in as they would have.
func populate(lo, hi uintptr, advice int) error {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, uintptr(advice))
	if errno != 0 {
		return errno
	}
	return nil
}

// sink keeps the probe allocation from being optimised away.
var sink *[40 << 10]byte

// heapRest returns the part of the heap's current chunk that lies beyond
// the runtime's next allocation: the memory the heap grows into next. A
// fresh large object (over 32 KB) is placed at the lowest free address, so
// its page marks where the untouched part begins.
func heapRest() (lo, hi uintptr) {
	sink = new([40 << 10]byte)
	p := uintptr(unsafe.Pointer(sink))
	sink = nil
	lo = p &^ (pageSize - 1)
	hi = (p + heapChunk) &^ (heapChunk - 1)
	return lo, hi
}

// textMapping returns the mapping of the program's code: the one in
// /proc/self/maps holding this function's own instructions.
func textMapping() (lo, hi uintptr, ok bool) {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, false
	}
	defer syscall.Close(fd)
	var buf [8192]byte
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return findMapping(buf[:n], pc())
}

// pc returns an address inside this package's code.
func pc() uintptr {
	f := textMapping
	return **(**uintptr)(unsafe.Pointer(&f))
}
