package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// ReadLog reads a session log (or any trace or recording mcpctl wrote) and
// hands its frames and events to obs in order, as the proxy did while the
// session ran: `mcpctl check` and `mcpctl watch --session` look at a
// session through the same observers. A message recorded as a JSON string
// (a line that was not JSON) is handed on as the line's text. It returns
// the time of the last entry.
func ReadLog(r io.Reader, name string, obs Observer) (time.Time, error) {
	var last time.Time
	br := bufio.NewReaderSize(r, 64<<10)
	entries := 0
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(text); len(t) > 0 {
			at, perr := replayEntry(t, obs)
			if perr != nil && entries > 0 && errors.Is(err, io.EOF) && !json.Valid(t) {
				// The writer stopped in the middle of its last entry
				// (killed, or a full disk): what came before still
				// holds.
				return last, &CutOffError{Name: name, Line: line}
			}
			if perr != nil {
				return last, &EntryError{Name: name, Line: line, Err: perr}
			}
			entries++
			if !at.IsZero() {
				last = at
			}
		}
		if errors.Is(err, io.EOF) {
			return last, nil
		}
		if err != nil {
			return last, fmt.Errorf("reading %s: %w", name, err)
		}
	}
}

// EntryError is a line of a session log that is not a log entry.
type EntryError struct {
	// Name names the log, Line is the line's number (from 1).
	Name string
	Line int
	Err  error
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("reading %s: line %d: %v", e.Name, e.Line, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

// CutOffError is a session log whose last line ends in the middle of an
// entry, as a log does when its writer was killed while writing: the
// entries before it were read.
type CutOffError struct {
	// Name names the log, Line is the cut-off line's number (from 1).
	Name string
	Line int
}

func (e *CutOffError) Error() string {
	return fmt.Sprintf("%s: line %d, the last, is cut off (its writer stopped mid-entry); the entries before it were read", e.Name, e.Line)
}

// replayEntry hands one log entry to obs.
func replayEntry(line []byte, obs Observer) (time.Time, error) {
	var e transport.TraceEntry
	if err := json.Unmarshal(line, &e); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return time.Time{}, fmt.Errorf("not JSON at byte %d (%v): a session log, trace or recording has one JSON entry per line", syn.Offset, err)
		}
		// The decoder's own words name Go types, not the file.
		return time.Time{}, errors.New("not a log entry: a session log, trace or recording has one JSON object per line")
	}
	at, _ := time.Parse(time.RFC3339Nano, e.Time)
	switch e.Direction {
	case transport.DirectionSend, transport.DirectionRecv:
		dir := ServerToHost
		if e.Direction == transport.DirectionSend {
			dir = HostToServer
		}
		data := []byte(e.Message)
		var s string
		if len(data) > 0 && data[0] == '"' && json.Unmarshal(data, &s) == nil {
			data = []byte(s)
		}
		obs.Frame(Frame{Time: at, Dir: dir, Data: data, Size: int64(len(data)), Session: e.Session})
	case transport.DirectionEvent:
		obs.Event(Event{Time: at, Name: e.Event, Detail: e.Detail})
	case "":
		return at, fmt.Errorf(`not a log entry: it has no "direction" (send, recv or event)`)
	default:
		return at, fmt.Errorf("unknown direction %q: want send, recv or event", e.Direction)
	}
	return at, nil
}
