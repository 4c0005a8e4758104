// Package approval holds tool calls that need a person's approval: a queue
// of held calls in mcpctl's state dir that any number of proxies and the
// `mcpctl proxy approvals|approve|deny` commands share, and the messages
// that ask the host's own user instead (an elicitation/create request in
// the legacy era, an input-required result in the 2026-07-28 era).
//
// The queue is a folder of small files, each written whole under a
// temporary name and then linked into place, so that a reader never sees
// half a file and the first of several deciders wins without any lock:
//
//	<id>.json           the held call ([Entry]), written by [Store.Hold]
//	<id>.decision.json  its [Verdict], written once by whoever decides first
//
// The proxy holding a call touches its file while it waits, which is how
// [Store.List] tells a held call from one whose proxy went away.
package approval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Request is a call held for approval: what a person is shown.
type Request struct {
	// Server names the server the call is for (its command line or URL).
	Server string `json:"server"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Arguments are the call's arguments with the sensitive ones already
	// masked by the caller: the queue is readable by the user's other
	// processes, and a person needs no secret to decide.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Host is the host's clientInfo.
	Host Host `json:"host"`
	// SessionID is the proxy session the call came in.
	SessionID string `json:"session_id,omitempty"`
	// Rule is why the call needs approval ("requires_approval",
	// "destructive").
	Rule string `json:"rule,omitempty"`
	// Time is when the call was held; Hold sets it when zero.
	Time time.Time `json:"time"`
}

// Host is a host's clientInfo.
type Host struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// String reads "name version", or "-" for a host that gave no name.
func (h Host) String() string {
	if h.Name == "" {
		return "-"
	}
	return strings.TrimSpace(h.Name + " " + h.Version)
}

// Verdict is how a held call was decided.
type Verdict struct {
	Approved bool `json:"approved"`
	// By is who decided: an OS user for the commands, [ByHost] for the
	// host's user, [ByTimeout] or [ByCancel] when no one did.
	By string `json:"by,omitempty"`
	// Reason says why a call was denied, in a sentence a model can read.
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
}

// The deciders that are not a person at a terminal.
const (
	// ByHost is the host's user, asked through elicitation.
	ByHost = "host user via elicitation"
	// ByTimeout denies a call no one decided in time.
	ByTimeout = "timeout"
	// ByCancel denies a call whose request ended while it waited.
	ByCancel = "cancelled"
)

// State is where a held call stands.
type State string

// The states of an [Entry].
const (
	Pending  State = "pending"
	Approved State = "approved"
	Denied   State = "denied"
	// Abandoned is a call no one decided whose proxy stopped waiting
	// without saying so (it was killed).
	Abandoned State = "abandoned"
)

// Entry is a held call as the queue has it.
type Entry struct {
	ID string `json:"id"`
	Request
	// PID is the holding proxy's process.
	PID   int   `json:"pid"`
	State State `json:"state"`
	// Verdict is set once the call is decided.
	Verdict *Verdict `json:"verdict,omitempty"`
}

// Age is how long ago the call was held.
func (e Entry) Age(now time.Time) time.Duration { return now.Sub(e.Time) }

// NotFoundError reports an ID the queue does not hold.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no held call %q (mcpctl proxy approvals lists them)", e.ID)
}

// FinishedError reports a call that is no longer waiting for a decision.
type FinishedError struct{ Entry Entry }

func (e *FinishedError) Error() string {
	if v := e.Entry.Verdict; v != nil {
		word := "denied"
		if v.Approved {
			word = "approved"
		}
		return fmt.Sprintf("call %s was already %s by %s", e.Entry.ID, word, v.By)
	}
	return fmt.Sprintf("call %s is no longer held: its proxy stopped waiting", e.Entry.ID)
}

// Heartbeat is how often a waiting proxy touches its held call; a pending
// call untouched for three heartbeats is [Abandoned].
const Heartbeat = 5 * time.Second

// Store is the queue of held calls, a folder in mcpctl's state dir. A
// Store is a value: every method reads the folder afresh, so any number
// of processes may use the same folder at once.
type Store struct {
	// Dir is the folder; Hold creates it (0700).
	Dir string
	// Poll is how often Wait looks for a decision (250 ms when zero).
	Poll time.Duration
	// Keep is how long decided and abandoned calls stay, so that a late
	// approve is told who decided (1 h when zero).
	Keep time.Duration
}

const (
	entryExt    = ".json"
	decisionExt = ".decision.json"
	tmpPrefix   = ".tmp-"
	idLen       = 6
)

func (s Store) poll() time.Duration {
	if s.Poll > 0 {
		return s.Poll
	}
	return 250 * time.Millisecond
}

func (s Store) keep() time.Duration {
	if s.Keep > 0 {
		return s.Keep
	}
	return time.Hour
}

func (s Store) entryPath(id string) string    { return filepath.Join(s.Dir, id+entryExt) }
func (s Store) decisionPath(id string) string { return filepath.Join(s.Dir, id+decisionExt) }

// validID reports whether id has the shape Hold gives IDs: it is used in
// file names, so nothing else may reach the file system.
func validID(id string) bool {
	if len(id) != idLen {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// normalID is an ID as typed, made canonical.
func normalID(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// Hold adds a call to the queue and returns its ID: six hex digits, short
// enough to type. It also removes what [Store.Clean] would.
func (s Store) Hold(req Request) (string, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the approval queue: %w", err)
	}
	_, _ = s.Clean()
	if req.Time.IsZero() {
		req.Time = time.Now()
	}
	for range 16 {
		var b [idLen / 2]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("holding a call: %w", err)
		}
		id := hex.EncodeToString(b[:])
		err := s.holdAs(id, req)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("holding a call: %w", err)
		}
		return id, nil
	}
	return "", errors.New("holding a call: no free ID after 16 tries")
}

// holdAs adds the call under id, or fails with fs.ErrExist when the ID is
// taken.
func (s Store) holdAs(id string, req Request) error {
	if _, err := os.Lstat(s.entryPath(id)); err == nil {
		return fs.ErrExist
	}
	// A decision without its call is left over from one removed before
	// (Clean removes decisions first); it must not decide the new call.
	_ = os.Remove(s.decisionPath(id))
	data, err := json.Marshal(Entry{ID: id, Request: req, PID: os.Getpid(), State: Pending})
	if err != nil {
		return err
	}
	return s.create(s.entryPath(id), data)
}

// create writes data to path whole and only if path does not exist: the
// bytes go to a temporary file that is then hard-linked into place, which
// fails with fs.ErrExist when another writer got there first.
func (s Store) create(path string, data []byte) error {
	tmp, err := os.CreateTemp(s.Dir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}

// Find returns the held call id names, decided or not.
func (s Store) Find(id string) (Entry, error) {
	id = normalID(id)
	if !validID(id) {
		return Entry{}, &NotFoundError{ID: id}
	}
	return s.read(id, time.Now())
}

func (s Store) read(id string, now time.Time) (Entry, error) {
	path := s.entryPath(id)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{}, &NotFoundError{ID: id}
	}
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return Entry{}, fmt.Errorf("reading held call %s: %w", id, err)
	}
	e.ID, e.State = id, Pending
	v, ok, err := s.decision(id)
	switch {
	case err != nil:
		return Entry{}, err
	case ok:
		e.Verdict = &v
		e.State = Denied
		if v.Approved {
			e.State = Approved
		}
	default:
		if fi, err := os.Stat(path); err == nil && now.Sub(fi.ModTime()) > 3*Heartbeat {
			e.State = Abandoned
		}
	}
	return e, nil
}

// decision reads a call's verdict, if it has one.
func (s Store) decision(id string) (Verdict, bool, error) {
	data, err := os.ReadFile(s.decisionPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return Verdict{}, false, nil
	}
	if err != nil {
		return Verdict{}, false, err
	}
	var v Verdict
	if err := json.Unmarshal(data, &v); err != nil {
		return Verdict{}, false, fmt.Errorf("reading the decision on %s: %w", id, err)
	}
	return v, true, nil
}

// List returns the calls in the queue, decided or not, oldest first.
func (s Store) List() ([]Entry, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := make([]Entry, 0, len(ids))
	for _, id := range ids {
		e, err := s.read(id, now)
		if errors.As(err, new(*NotFoundError)) {
			continue // cleaned between ReadDir and here
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// ids lists the IDs of the calls in the folder.
func (s Store) ids() ([]string, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the approval queue: %w", err)
	}
	var ids []string
	for _, de := range des {
		name := de.Name()
		if strings.HasSuffix(name, decisionExt) {
			continue
		}
		if id, ok := strings.CutSuffix(name, entryExt); ok && validID(id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Approve releases a held call; by names who approved it.
func (s Store) Approve(id, by string) (Entry, error) {
	return s.Decide(id, Verdict{Approved: true, By: by})
}

// Deny refuses a held call; reason is shown to the host (a default one
// when empty).
func (s Store) Deny(id, by, reason string) (Entry, error) {
	if reason == "" {
		reason = "denied by " + by
	}
	return s.Decide(id, Verdict{By: by, Reason: reason})
}

// Decide records v for a pending call. The first decision wins: a call
// already decided, or abandoned, gives a [*FinishedError] naming the
// decision it has; an unknown ID a [*NotFoundError].
func (s Store) Decide(id string, v Verdict) (Entry, error) {
	return s.decide(id, v, false)
}

// decide is [Store.Decide]; own lets the holding proxy decide a call that
// reads as abandoned, which happens when it was stopped for a while (a
// laptop asleep) and now times out.
func (s Store) decide(id string, v Verdict, own bool) (Entry, error) {
	id = normalID(id)
	if !validID(id) {
		return Entry{}, &NotFoundError{ID: id}
	}
	e, err := s.read(id, time.Now())
	if err != nil {
		return Entry{}, err
	}
	if e.State != Pending && !(own && e.State == Abandoned) {
		return Entry{}, &FinishedError{Entry: e}
	}
	if v.Time.IsZero() {
		v.Time = time.Now()
	}
	data, err := json.Marshal(v)
	if err != nil {
		return Entry{}, err
	}
	err = s.create(s.decisionPath(id), data)
	if errors.Is(err, fs.ErrExist) {
		if e, err = s.read(id, time.Now()); err != nil {
			return Entry{}, err
		}
		return Entry{}, &FinishedError{Entry: e}
	}
	if err != nil {
		return Entry{}, fmt.Errorf("deciding on %s: %w", id, err)
	}
	e.Verdict = &v
	e.State = Denied
	if v.Approved {
		e.State = Approved
	}
	return e, nil
}

// Wait waits for a decision on the held call id, for at most timeout,
// touching the call every [Heartbeat] so that it is not taken for
// abandoned. When no one decides in time the call is denied by
// [ByTimeout]; when ctx ends first it is denied by [ByCancel] and ctx's
// error is returned with the verdict. Either denial is recorded like any
// decision, so a person deciding at the same moment either wins or is
// told the call was already denied.
func (s Store) Wait(ctx context.Context, id string, timeout time.Duration) (Verdict, error) {
	id = normalID(id)
	if !validID(id) {
		return Verdict{}, &NotFoundError{ID: id}
	}
	path := s.entryPath(id)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Verdict{}, &NotFoundError{ID: id}
		}
		return Verdict{}, err
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(s.poll())
	defer tick.Stop()
	touched := time.Now()
	for {
		v, ok, err := s.decision(id)
		if err != nil {
			return Verdict{}, err
		}
		if ok {
			return v, nil
		}
		if now := time.Now(); now.Sub(touched) >= Heartbeat {
			if err := os.Chtimes(path, now, now); errors.Is(err, fs.ErrNotExist) {
				return Verdict{}, &NotFoundError{ID: id}
			}
			touched = now
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return s.final(id, Verdict{By: ByTimeout, Reason: "no one approved it within " + seconds(timeout)})
		case <-ctx.Done():
			v, err := s.final(id, Verdict{By: ByCancel, Reason: "the call ended before anyone approved it"})
			if err != nil {
				return v, err
			}
			return v, ctx.Err()
		}
	}
}

// final records the waiter's own denial, or returns the decision that got
// there first.
func (s Store) final(id string, v Verdict) (Verdict, error) {
	e, err := s.decide(id, v, true)
	var fe *FinishedError
	if errors.As(err, &fe) && fe.Entry.Verdict != nil {
		return *fe.Entry.Verdict, nil
	}
	if err != nil {
		return Verdict{}, err
	}
	return *e.Verdict, nil
}

// seconds shows a duration as "60 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// Clean removes the calls decided or abandoned longer ago than Keep, and
// leftovers of writers that died mid-write, returning the IDs of the
// calls removed.
func (s Store) Clean() ([]string, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the approval queue: %w", err)
	}
	now := time.Now()
	before := now.Add(-s.keep())
	var removed []string
	for _, de := range des {
		name := de.Name()
		fi, err := de.Info()
		if err != nil || !fi.ModTime().Before(before) {
			continue
		}
		path := filepath.Join(s.Dir, name)
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			_ = os.Remove(path)
		case strings.HasSuffix(name, decisionExt):
			// The call goes first below, and its decision with it; a
			// decision left alone is an orphan.
			id := strings.TrimSuffix(name, decisionExt)
			if _, err := os.Lstat(s.entryPath(id)); errors.Is(err, fs.ErrNotExist) {
				_ = os.Remove(path)
			}
		case strings.HasSuffix(name, entryExt):
			id := strings.TrimSuffix(name, entryExt)
			if !validID(id) {
				continue
			}
			e, err := s.read(id, now)
			if err != nil || e.State == Pending {
				continue
			}
			if e.Verdict != nil && !e.Verdict.Time.Before(before) {
				continue
			}
			// The decision first: a call file without one reads as
			// abandoned, never as decided by a stale verdict.
			_ = os.Remove(s.decisionPath(id))
			if err := os.Remove(path); err == nil {
				removed = append(removed, id)
			}
		}
	}
	return removed, nil
}
