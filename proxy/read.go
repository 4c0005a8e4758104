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
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(text); len(t) > 0 {
			at, perr := replayEntry(t, obs)
			if perr != nil {
				return last, fmt.Errorf("reading %s: line %d: %w", name, line, perr)
			}
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

// replayEntry hands one log entry to obs.
func replayEntry(line []byte, obs Observer) (time.Time, error) {
	var e transport.TraceEntry
	if err := json.Unmarshal(line, &e); err != nil {
		return time.Time{}, fmt.Errorf("not a trace entry: %w", err)
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
	default:
		return at, fmt.Errorf("unknown direction %q", e.Direction)
	}
	return at, nil
}
