package lineedit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DefaultHistorySize is how many lines a [History] keeps when Max is zero.
const DefaultHistorySize = 1000

// History is the list of lines entered, oldest first, optionally kept in a
// file across sessions. A nil *History keeps nothing. Its methods may be
// called from any goroutine.
type History struct {
	// Path is the file the history is saved to after every line (mode
	// 0600, its folder 0700); "" keeps the history in memory only.
	Path string
	// Max bounds the lines kept, in memory and in the file; zero means
	// [DefaultHistorySize].
	Max int
	// Keep says whether a line may be saved to the file; nil saves every
	// line. Lines it refuses (say, ones holding a secret) are still
	// recalled in this session.
	Keep func(line string) bool

	mu    sync.Mutex
	lines []string // this session's view: saved lines and refused ones
	saved []string // what the file holds
}

// LoadHistory reads the history saved at path; a missing file is an empty
// history. The returned History saves to path.
func LoadHistory(path string, maxLines int, keep func(string) bool) (*History, error) {
	h := &History{Path: path, Max: maxLines, Keep: keep}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("reading the shell history: %w", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			h.saved = append(h.saved, l)
		}
	}
	h.saved = h.bound(h.saved)
	h.lines = append([]string(nil), h.saved...)
	return h, nil
}

func (h *History) max() int {
	if h.Max > 0 {
		return h.Max
	}
	return DefaultHistorySize
}

func (h *History) bound(lines []string) []string {
	if n := len(lines) - h.max(); n > 0 {
		return append([]string(nil), lines[n:]...)
	}
	return lines
}

// Len is the number of lines held.
func (h *History) Len() int {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lines)
}

// At returns line i, oldest first.
func (h *History) At(i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lines[i]
}

// Add appends line, unless it repeats the last one, and saves the history
// if it has a Path and Keep accepts the line. A line with a newline is
// not kept (the file holds one line per entry).
func (h *History) Add(line string) error {
	if h == nil || strings.ContainsAny(line, "\r\n") {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.lines); n > 0 && h.lines[n-1] == line {
		return nil
	}
	h.lines = h.bound(append(h.lines, line))
	if h.Path == "" || (h.Keep != nil && !h.Keep(line)) {
		return nil
	}
	if n := len(h.saved); n > 0 && h.saved[n-1] == line {
		return nil
	}
	h.saved = h.bound(append(h.saved, line))
	return h.save()
}

// save writes the file whole, through a temporary file renamed over it,
// so a crash leaves the old history or the new one.
func (h *History) save() error {
	if err := os.MkdirAll(filepath.Dir(h.Path), 0o700); err != nil {
		return fmt.Errorf("saving the shell history: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.Path), ".shell_history-*")
	if err != nil {
		return fmt.Errorf("saving the shell history: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	_, err = tmp.WriteString(strings.Join(h.saved, "\n") + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), h.Path)
	}
	if err != nil {
		return fmt.Errorf("saving the shell history: %w", err)
	}
	return nil
}
