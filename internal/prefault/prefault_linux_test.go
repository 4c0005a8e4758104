package prefault

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// resident reports how many of the pages of [lo, hi) are mapped in.
func resident(t *testing.T, lo, hi uintptr) int {
	t.Helper()
	vec := make([]byte, (hi-lo+pageSize-1)/pageSize)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

func TestPopulateWrite(t *testing.T) {
	const pages = 64
	mem, err := syscall.Mmap(-1, 0, pages*int(pageSize), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	lo := uintptr(unsafe.Pointer(&mem[0]))
	if n := resident(t, lo, lo+pages*pageSize); n != 0 {
		t.Fatalf("%d pages of a fresh mapping are resident before populate", n)
	}
	if err := populate(lo, lo+pages*pageSize, madvPopulateWrite); err != nil {
		// CI's kernels have it: there, a refusal is a failure.
		if err == syscall.EINVAL && os.Getenv("CI") != "true" {
			t.Skip("kernel older than 5.14: no MADV_POPULATE_WRITE")
		}
		t.Fatal(err)
	}
	if n := resident(t, lo, lo+pages*pageSize); n != pages {
		t.Fatalf("%d of %d pages resident after populate", n, pages)
	}
	for i := range mem {
		if mem[i] != 0 {
			t.Fatalf("byte %d is %d after populate, want 0", i, mem[i])
		}
	}
}

func TestHeapRest(t *testing.T) {
	lo, hi := heapRest()
	if lo == 0 || lo >= hi || hi-lo > heapChunk || lo%pageSize != 0 || hi%heapChunk != 0 {
		t.Fatalf("heapRest() = %#x, %#x: want a page-aligned range ending on a %d-byte boundary", lo, hi, heapChunk)
	}
	// The range is heap the runtime mapped read-write: populating its
	// first page succeeds (the rest may run into reserved memory).
	if err := populate(lo, lo+pageSize, madvPopulateWrite); err != nil && (err != syscall.EINVAL || os.Getenv("CI") == "true") {
		t.Fatalf("populating the heap's next page: %v", err)
	}
}

func TestTextMapping(t *testing.T) {
	lo, hi, ok := textMapping()
	if !ok {
		t.Fatal("textMapping found no mapping holding the package's code")
	}
	if p := pc(); p < lo || p >= hi {
		t.Fatalf("textMapping() = %#x-%#x, which does not hold pc %#x", lo, hi, p)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		start, _, _ := strings.Cut(f[0], "-")
		if v, err := strconv.ParseUint(start, 16, 64); err == nil && uintptr(v) == lo {
			if f[1] != "r-xp" || f[5] != exe {
				t.Fatalf("textMapping chose %q, want the executable's r-xp mapping", line)
			}
			return
		}
	}
	t.Fatalf("no line of /proc/self/maps starts at %#x", lo)
}
