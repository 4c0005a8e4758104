package faultserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// eventLog appends what the server receives to the -log file as JSON lines,
// each synced before the message is acted on, so a script that reads the
// log after mcpctl exits sees everything that arrived.
//
// The file is created with the first entry, so a script can tell "nothing
// arrived" by its absence (redirect-other-origin's -target-log).
type eventLog struct {
	mu     sync.Mutex
	path   string // empty without -log
	f      *os.File
	stderr io.Writer
}

func openLog(path string, stderr io.Writer) *eventLog {
	return &eventLog{path: path, stderr: stderr}
}

// record writes one entry. data, if not nil, is the message as received:
// compacted into "message" when it is JSON, quoted into "line" otherwise.
func (l *eventLog) record(entry object, data []byte) {
	if l == nil || l.path == "" {
		return
	}
	if data != nil {
		var compact bytes.Buffer
		if json.Compact(&compact, data) == nil {
			entry["message"] = json.RawMessage(compact.Bytes())
		} else {
			entry["line"] = string(data)
		}
	}
	line, err := json.Marshal(entry)
	if err != nil {
		fmt.Fprintf(l.stderr, "faultserver: encoding log entry: %v\n", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintf(l.stderr, "faultserver: opening log: %v\n", err)
			return
		}
		l.f = f
	}
	if _, err := l.f.Write(append(line, '\n')); err == nil {
		err = l.f.Sync()
	} else {
		fmt.Fprintf(l.stderr, "faultserver: writing log: %v\n", err)
	}
}

func (l *eventLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
	}
}
