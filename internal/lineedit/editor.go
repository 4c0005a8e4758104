// Package lineedit is the line editor of mcpctl's shell: one line of input
// read from a terminal in raw mode, with cursor movement, the usual Emacs
// control keys, history and tab completion, and output from other
// goroutines printed above the line being edited without breaking it.
//
// The editor works on an [io.Reader] of key bytes and an [io.Writer] for
// the terminal: putting the terminal in raw mode is the caller's (see
// golang.org/x/term), which keeps the editor testable with buffers.
//
// Keys: Left/Right and Ctrl-B/F move by character, Alt-B/F by word,
// Home/End and Ctrl-A/E to the ends; Backspace, Delete, Ctrl-D (on a
// non-empty line) delete; Ctrl-U, Ctrl-K and Ctrl-W cut to the start, to
// the end and the previous word; Up/Down and Ctrl-P/N walk the history;
// Tab completes; Ctrl-L clears the screen; Enter accepts; Ctrl-C abandons
// the line ([ErrInterrupted]); Ctrl-D on an empty line ends the input
// ([io.EOF]).
package lineedit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
)

// ErrInterrupted is what [Editor.ReadLine] returns when the user pressed
// Ctrl-C: the line is abandoned, the input goes on.
var ErrInterrupted = errors.New("interrupted")

// Completer returns the completions of the word that ends at pos in line
// (rune offsets): each candidate replaces line[start:pos]. A candidate
// that ends with "=" (an argument key waiting for its value) gets no space
// after it when it is the only one.
type Completer func(line []rune, pos int) (start int, candidates []string)

// Editor reads lines from a terminal. Its zero value is not usable: set In
// and Out. One goroutine calls ReadLine; any goroutine may call Write.
type Editor struct {
	// In gives the terminal's key bytes (a terminal in raw mode).
	In io.Reader
	// Out is the terminal.
	Out io.Writer
	// Prompt is printed before the line; it should hold no escape codes.
	Prompt string
	// Width returns the terminal's width in columns; nil or a result
	// below 10 means 80.
	Width func() int
	// Complete completes the word before the cursor on Tab; nil turns
	// completion off.
	Complete Completer
	// History holds the lines entered; nil keeps none.
	History *History

	once sync.Once
	r    *bufio.Reader

	mu     sync.Mutex // guards what follows, and every write to Out
	active bool       // ReadLine is running: the prompt and line are shown
	buf    []rune
	pos    int            // the cursor, an index into buf
	off    int            // the first rune of buf shown (a long line scrolls)
	self   *aboveWriter   // what Write writes through
	held   []*aboveWriter // writers holding output without its newline
	hist   int            // the history entry shown; len(History) is the new line
	draft  []rune         // the new line, kept while the history is walked
}

// key is one key press: a rune, or one of the named keys below.
type key struct {
	r    rune
	name keyName
}

type keyName int

const (
	keyRune keyName = iota
	keyEnter
	keyTab
	keyBackspace
	keyDelete
	keyLeft
	keyRight
	keyUp
	keyDown
	keyHome
	keyEnd
	keyWordLeft
	keyWordRight
	keyCutStart // Ctrl-U
	keyCutEnd   // Ctrl-K
	keyCutWord  // Ctrl-W
	keyInterrupt
	keyEOF // Ctrl-D
	keyClear
	keyIgnore
)

// ReadLine shows the prompt and returns the line the user accepts with
// Enter, without its newline. It returns [ErrInterrupted] on Ctrl-C and
// [io.EOF] on Ctrl-D on an empty line or at the end of In.
func (e *Editor) ReadLine() (string, error) {
	e.once.Do(func() { e.r = bufio.NewReader(e.In) })
	e.mu.Lock()
	e.active, e.buf, e.pos, e.off, e.draft = true, nil, 0, 0, nil
	e.hist = e.History.Len()
	e.refresh()
	e.mu.Unlock()
	for {
		k, err := e.readKey()
		e.mu.Lock()
		if err != nil {
			e.end("\r\n")
			e.mu.Unlock()
			if errors.Is(err, io.EOF) {
				return "", io.EOF
			}
			return "", fmt.Errorf("reading the terminal: %w", err)
		}
		line, done, err := e.handle(k)
		e.mu.Unlock()
		if done {
			return line, err
		}
	}
}

// Write prints p above the line being edited: the line is cleared, p
// printed (with \r\n line ends, as a raw terminal needs), and the prompt
// and line drawn again. Output without a final newline is held until its
// newline comes or ReadLine returns. When no line is being edited, p is
// written as it is.
func (e *Editor) Write(p []byte) (int, error) {
	e.mu.Lock()
	if e.self == nil {
		e.self = &aboveWriter{e: e, w: e.Out}
	}
	w := e.self
	e.mu.Unlock()
	return w.Write(p)
}

// Above returns a writer to w that behaves as [Editor.Write]: w and Out
// are the same terminal (standard error and standard output, say), so
// what goes to w is printed above the line being edited.
func (e *Editor) Above(w io.Writer) io.Writer { return &aboveWriter{e: e, w: w} }

// aboveWriter writes to w above the line being edited; pending is its
// output since its last newline, held while a line is edited.
type aboveWriter struct {
	e       *Editor
	w       io.Writer
	pending []byte
}

func (a *aboveWriter) Write(p []byte) (int, error) {
	e := a.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.active {
		return a.w.Write(p)
	}
	if len(a.pending) == 0 {
		e.held = append(e.held, a)
	}
	a.pending = append(a.pending, p...)
	i := bytes.LastIndexByte(a.pending, '\n')
	if i < 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(e.Out, "\r\x1b[K"); err != nil {
		return 0, err
	}
	if _, err := a.w.Write(crlf(a.pending[:i+1])); err != nil {
		return 0, err
	}
	a.pending = append([]byte(nil), a.pending[i+1:]...)
	e.refresh()
	return len(p), nil
}

// crlf turns each lone \n into \r\n.
func crlf(p []byte) []byte {
	var b bytes.Buffer
	for i, c := range p {
		if c == '\n' && (i == 0 || p[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(c)
	}
	return b.Bytes()
}

// end leaves the line: the cursor goes past it, tail is written, and
// output held back is flushed.
func (e *Editor) end(tail string) {
	e.pos = len(e.buf)
	e.refresh()
	io.WriteString(e.Out, tail)
	e.active = false
	for _, a := range e.held {
		if len(a.pending) > 0 {
			a.w.Write(a.pending)
			a.pending = nil
		}
	}
	e.held = nil
}

// handle acts on one key; done says the line is over.
func (e *Editor) handle(k key) (line string, done bool, err error) {
	switch k.name {
	case keyRune:
		e.buf = append(e.buf[:e.pos], append([]rune{k.r}, e.buf[e.pos:]...)...)
		e.pos++
	case keyEnter:
		line = string(e.buf)
		e.end("\r\n")
		if strings.TrimSpace(line) != "" {
			e.History.Add(line)
		}
		return line, true, nil
	case keyInterrupt:
		e.end("^C\r\n")
		return "", true, ErrInterrupted
	case keyEOF:
		if len(e.buf) == 0 {
			e.end("\r\n")
			return "", true, io.EOF
		}
		e.deleteAt(e.pos)
	case keyTab:
		e.complete()
	case keyBackspace:
		if e.pos > 0 {
			e.pos--
			e.deleteAt(e.pos)
		}
	case keyDelete:
		e.deleteAt(e.pos)
	case keyLeft:
		e.pos = max(e.pos-1, 0)
	case keyRight:
		e.pos = min(e.pos+1, len(e.buf))
	case keyHome:
		e.pos = 0
	case keyEnd:
		e.pos = len(e.buf)
	case keyWordLeft:
		e.pos = e.wordStart()
	case keyWordRight:
		i := e.pos
		for i < len(e.buf) && unicode.IsSpace(e.buf[i]) {
			i++
		}
		for i < len(e.buf) && !unicode.IsSpace(e.buf[i]) {
			i++
		}
		e.pos = i
	case keyCutStart:
		e.buf = append([]rune(nil), e.buf[e.pos:]...)
		e.pos = 0
	case keyCutEnd:
		e.buf = e.buf[:e.pos]
	case keyCutWord:
		start := e.wordStart()
		e.buf = append(e.buf[:start], e.buf[e.pos:]...)
		e.pos = start
	case keyUp:
		e.walkHistory(-1)
	case keyDown:
		e.walkHistory(+1)
	case keyClear:
		io.WriteString(e.Out, "\x1b[H\x1b[2J")
	case keyIgnore:
		return "", false, nil
	}
	e.refresh()
	return "", false, nil
}

func (e *Editor) deleteAt(i int) {
	if i < len(e.buf) {
		e.buf = append(e.buf[:i], e.buf[i+1:]...)
	}
}

// wordStart is where the word before the cursor starts (spaces before
// the cursor are skipped first), as Ctrl-W and Alt-B see words.
func (e *Editor) wordStart() int {
	i := e.pos
	for i > 0 && unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	return i
}

// walkHistory shows the entry dir steps away; the new line is kept
// while older ones are shown.
func (e *Editor) walkHistory(dir int) {
	n := e.History.Len()
	next := e.hist + dir
	if next < 0 || next > n {
		return
	}
	if e.hist == n {
		e.draft = append([]rune(nil), e.buf...)
	}
	e.hist = next
	if next == n {
		e.buf = append([]rune(nil), e.draft...)
	} else {
		e.buf = []rune(e.History.At(next))
	}
	e.pos, e.off = len(e.buf), 0
}

// complete completes the word before the cursor: one candidate replaces
// it, several extend it to their common prefix, or are listed above the
// line when they have no longer one.
func (e *Editor) complete() {
	if e.Complete == nil {
		return
	}
	start, cands := e.Complete(append([]rune(nil), e.buf...), e.pos)
	if len(cands) == 0 || start < 0 || start > e.pos {
		return
	}
	word := string(e.buf[start:e.pos])
	repl := commonPrefix(cands)
	if len(cands) == 1 && !strings.HasSuffix(repl, "=") && (e.pos == len(e.buf) || e.buf[e.pos] != ' ') {
		repl += " "
	}
	if len(cands) > 1 && len([]rune(repl)) <= len([]rune(word)) {
		e.list(cands)
		return
	}
	e.buf = append(e.buf[:start], append([]rune(repl), e.buf[e.pos:]...)...)
	e.pos = start + len([]rune(repl))
}

func commonPrefix(words []string) string {
	p := []rune(words[0])
	for _, w := range words[1:] {
		r := []rune(w)
		n := 0
		for n < len(p) && n < len(r) && p[n] == r[n] {
			n++
		}
		p = p[:n]
	}
	return string(p)
}

// list prints candidates in columns above the line.
func (e *Editor) list(cands []string) {
	width := 0
	for _, c := range cands {
		width = max(width, len([]rune(c)))
	}
	width += 2
	cols := max(e.width()/width, 1)
	var b strings.Builder
	b.WriteString("\r\x1b[K")
	for i, c := range cands {
		b.WriteString(c)
		if (i+1)%cols == 0 || i == len(cands)-1 {
			b.WriteString("\r\n")
		} else {
			b.WriteString(strings.Repeat(" ", width-len([]rune(c))))
		}
	}
	io.WriteString(e.Out, b.String())
}

func (e *Editor) width() int {
	if e.Width != nil {
		if w := e.Width(); w >= 10 {
			return w
		}
	}
	return 80
}

// refresh draws the prompt and the line, scrolled so that the cursor is
// shown, and puts the cursor in its place.
func (e *Editor) refresh() {
	prompt := []rune(e.Prompt)
	avail := max(e.width()-len(prompt)-1, 1)
	if e.pos < e.off {
		e.off = e.pos
	}
	if e.pos > e.off+avail {
		e.off = e.pos - avail
	}
	if e.off > len(e.buf) {
		e.off = 0
	}
	end := min(e.off+avail, len(e.buf))
	var b strings.Builder
	b.WriteString("\r")
	b.WriteString(e.Prompt)
	b.WriteString(string(e.buf[e.off:end]))
	b.WriteString("\x1b[K\r")
	if col := len(prompt) + e.pos - e.off; col > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", col)
	}
	io.WriteString(e.Out, b.String())
}

// readKey reads one key press: a rune, a control key or an escape
// sequence.
func (e *Editor) readKey() (key, error) {
	r, _, err := e.r.ReadRune()
	if err != nil {
		return key{}, err
	}
	switch r {
	case '\r', '\n':
		return key{name: keyEnter}, nil
	case '\t':
		return key{name: keyTab}, nil
	case 0x7f, 0x08:
		return key{name: keyBackspace}, nil
	case 0x01:
		return key{name: keyHome}, nil
	case 0x02:
		return key{name: keyLeft}, nil
	case 0x03:
		return key{name: keyInterrupt}, nil
	case 0x04:
		return key{name: keyEOF}, nil
	case 0x05:
		return key{name: keyEnd}, nil
	case 0x06:
		return key{name: keyRight}, nil
	case 0x0b:
		return key{name: keyCutEnd}, nil
	case 0x0c:
		return key{name: keyClear}, nil
	case 0x0e:
		return key{name: keyDown}, nil
	case 0x10:
		return key{name: keyUp}, nil
	case 0x15:
		return key{name: keyCutStart}, nil
	case 0x17:
		return key{name: keyCutWord}, nil
	case 0x1b:
		return e.readEscape()
	}
	if r < 0x20 || r == unicode.ReplacementChar {
		return key{name: keyIgnore}, nil
	}
	return key{r: r, name: keyRune}, nil
}

// readEscape reads what follows ESC: a CSI or SS3 sequence (arrows, Home,
// End, Delete), or Alt with a key.
func (e *Editor) readEscape() (key, error) {
	c, err := e.r.ReadByte()
	if err != nil {
		return key{}, err
	}
	switch c {
	case 'b', 'B':
		return key{name: keyWordLeft}, nil
	case 'f', 'F':
		return key{name: keyWordRight}, nil
	case 'O':
		c, err := e.r.ReadByte()
		if err != nil {
			return key{}, err
		}
		return csiKey("", c), nil
	case '[':
		var params []byte
		for {
			c, err := e.r.ReadByte()
			if err != nil {
				return key{}, err
			}
			if c >= 0x40 && c <= 0x7e {
				return csiKey(string(params), c), nil
			}
			params = append(params, c)
		}
	}
	return key{name: keyIgnore}, nil
}

// csiKey names the key of the sequence ESC [ params final.
func csiKey(params string, final byte) key {
	switch final {
	case 'A':
		return key{name: keyUp}
	case 'B':
		return key{name: keyDown}
	case 'C':
		if strings.HasSuffix(params, ";5") || strings.HasSuffix(params, ";3") {
			return key{name: keyWordRight} // Ctrl or Alt with the arrow
		}
		return key{name: keyRight}
	case 'D':
		if strings.HasSuffix(params, ";5") || strings.HasSuffix(params, ";3") {
			return key{name: keyWordLeft}
		}
		return key{name: keyLeft}
	case 'H':
		return key{name: keyHome}
	case 'F':
		return key{name: keyEnd}
	case '~':
		switch params {
		case "1", "7":
			return key{name: keyHome}
		case "4", "8":
			return key{name: keyEnd}
		case "3":
			return key{name: keyDelete}
		}
	}
	return key{name: keyIgnore}
}
