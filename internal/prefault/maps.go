package prefault

// findMapping finds, in the text of /proc/<pid>/maps, the executable
// mapping that holds addr ("lo-hi r-xp offset dev inode path" lines).
// It reads no further than it must and allocates nothing: it runs
// before almost anything else in the process.
func findMapping(maps []byte, addr uintptr) (lo, hi uintptr, ok bool) {
	for len(maps) > 0 {
		line := maps
		maps = nil
		for i, c := range line {
			if c == '\n' {
				line, maps = line[:i], line[i+1:]
				break
			}
		}
		l, rest, ok1 := hex(line)
		if !ok1 || len(rest) == 0 || rest[0] != '-' {
			continue
		}
		h, rest, ok2 := hex(rest[1:])
		if !ok2 || len(rest) < 5 || rest[0] != ' ' {
			continue
		}
		if addr >= l && addr < h && rest[1] == 'r' && rest[3] == 'x' {
			return l, h, true
		}
	}
	return 0, 0, false
}

// hex parses the lower-case hexadecimal number at the start of b.
func hex(b []byte) (v uintptr, rest []byte, ok bool) {
	i := 0
	for ; i < len(b) && i < 16; i++ {
		c := b[i]
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		default:
			return v, b[i:], i > 0
		}
	}
	return v, b[i:], i > 0
}
