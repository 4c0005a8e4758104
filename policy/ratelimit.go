package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpctl/mcpctl/internal/filelock"
)

// RateFile is the file, in the state directory, that holds the recent calls
// of every rate-limited tool; RateLockFile is the lock that guards it.
const (
	RateFile     = "ratelimit.json"
	RateLockFile = "ratelimit.lock"
)

// RateWindow is the window a rate_limit counts calls in.
const RateWindow = time.Minute

// Limiter counts calls per key (a tool at a server) across processes: the
// times of recent calls are kept in [RateFile] under Dir, read and written
// under an exclusive file lock, so that separate mcpctl processes share one
// count.
type Limiter struct {
	// Dir is the state directory; it is created when missing.
	Dir string
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// LockWait bounds the wait for the lock (10 s when zero).
	LockWait time.Duration
}

// rateData is the file's content: per key, the Unix nanoseconds of the
// calls in the last window.
type rateData struct {
	Calls map[string][]int64 `json:"calls"`
}

func (l *Limiter) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Take records a call under key when fewer than limit calls were recorded
// in the last window, and reports true. Otherwise it records nothing and
// returns false with the time the next slot opens. A limit of zero or less
// allows everything and records nothing.
func (l *Limiter) Take(key string, limit int) (ok bool, next time.Time, err error) {
	if limit <= 0 {
		return true, time.Time{}, nil
	}
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return false, time.Time{}, fmt.Errorf("rate limit: creating the state directory: %w", err)
	}
	wait := l.LockWait
	if wait == 0 {
		wait = 10 * time.Second
	}
	unlock, err := filelock.Path(filepath.Join(l.Dir, RateLockFile), wait)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("rate limit: locking %s: %w", filepath.Join(l.Dir, RateLockFile), err)
	}
	defer unlock()

	file := filepath.Join(l.Dir, RateFile)
	d := rateData{}
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, time.Time{}, fmt.Errorf("rate limit: %w", err)
	default:
		// A damaged file loses the counts, not the command: start over.
		_ = json.Unmarshal(data, &d)
	}
	if d.Calls == nil {
		d.Calls = map[string][]int64{}
	}
	now := l.now()
	cutoff := now.Add(-RateWindow).UnixNano()
	// Drop every key's calls older than the window, so the file stays small.
	for k, calls := range d.Calls {
		kept := calls[:0]
		for _, t := range calls {
			if t > cutoff {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			delete(d.Calls, k)
		} else {
			d.Calls[k] = kept
		}
	}
	calls := d.Calls[key]
	if len(calls) >= limit {
		oldest := calls[len(calls)-limit]
		return false, time.Unix(0, oldest).Add(RateWindow), nil
	}
	d.Calls[key] = append(calls, now.UnixNano())
	out, err := json.Marshal(d)
	if err != nil {
		return false, time.Time{}, err
	}
	// Written whole and renamed into place: a reader without the lock (a
	// crashed writer's successor) never sees half a file.
	tmp, err := os.CreateTemp(l.Dir, RateFile+".*")
	if err != nil {
		return false, time.Time{}, fmt.Errorf("rate limit: %w", err)
	}
	_, werr := tmp.Write(out)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return false, time.Time{}, fmt.Errorf("rate limit: writing %s: %w", file, err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return false, time.Time{}, fmt.Errorf("rate limit: writing %s: %w", file, err)
	}
	return true, time.Time{}, nil
}
