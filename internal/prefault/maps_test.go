package prefault

import "testing"

func TestFindMapping(t *testing.T) {
	maps := []byte(`00400000-00b83000 r-xp 00000000 fd:01 123 /usr/bin/mcpctl
00b83000-013a2000 r--p 00783000 fd:01 123 /usr/bin/mcpctl
013a2000-01460000 rw-p 00fa2000 fd:01 123 /usr/bin/mcpctl
c000000000-c000400000 rw-p 00000000 00:00 0
7f5baa478000-7f5baa49e000 r-xp 00001000 fd:01 99 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
7ffd66d75000-7ffd66d96000 rw-p 00000000 00:00 0                          [stack]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]`)
	tests := []struct {
		addr   uintptr
		lo, hi uintptr
		ok     bool
	}{
		{0x00492ce0, 0x00400000, 0x00b83000, true},
		{0x00400000, 0x00400000, 0x00b83000, true},
		{0x00b82fff, 0x00400000, 0x00b83000, true},
		{0x00b83000, 0, 0, false},   // read-only data, not code
		{0xc000001000, 0, 0, false}, // heap
		{0x7f5baa479000, 0x7f5baa478000, 0x7f5baa49e000, true},
		{0x7f5baa49e000, 0, 0, false},     // one past the end
		{0xffffffffff600000, 0, 0, false}, // executable but not readable
		{0x1000, 0, 0, false},
	}
	for _, tt := range tests {
		lo, hi, ok := findMapping(maps, tt.addr)
		if lo != tt.lo || hi != tt.hi || ok != tt.ok {
			t.Errorf("findMapping(%#x) = %#x, %#x, %v; want %#x, %#x, %v", tt.addr, lo, hi, ok, tt.lo, tt.hi, tt.ok)
		}
	}
	// Broken and truncated lines are skipped, not misread.
	for _, bad := range []string{"", "\n\n", "zz-00b83000 r-xp", "00400000 r-xp", "00400000-00b83000", "00400000-00b83000 r-"} {
		if _, _, ok := findMapping([]byte(bad), 0x00492ce0); ok {
			t.Errorf("findMapping(%q) found a mapping", bad)
		}
	}
	// The last line needs no newline.
	if _, _, ok := findMapping([]byte("00400000-00b83000 r-xp 0 0:0 0 /x"), 0x00400010); !ok {
		t.Error("findMapping missed a mapping on an unterminated last line")
	}
}
