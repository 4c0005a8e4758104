package cmd

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// An image block without mimeType breaks ImageContent.
const badToolResult = `{"content":[{"type":"image","data":"aGk="}]}`

func TestResultChecksWorker(t *testing.T) {
	t.Parallel()
	ios, _, _, errOut := Test()
	f := NewFactory(ios)
	r := f.resultChecks(true)
	const version = "2025-11-25"

	// Results queued from several goroutines at once, as the read loops of
	// --parallel calls do: every one is checked before wait returns.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				r.check("tools/call", version, json.RawMessage(badToolResult))
			}
		})
	}
	wg.Wait()
	r.wait()
	if got := r.violations(); got != 40 {
		t.Fatalf("violations after wait = %d, want 40", got)
	}
	// The warner prints a repeated warning once.
	if !strings.Contains(errOut.String(), "/content/0/mimeType: required by ImageContent") {
		t.Errorf("no warning naming /content/0/mimeType; stderr:\n%s", errOut)
	}

	// wait lets the worker end; a result that comes later starts another.
	deadline := time.Now().Add(10 * time.Second)
	for r.workerRunning() {
		if time.Now().After(deadline) {
			t.Fatal("the check worker is still running 10s after wait")
		}
		time.Sleep(time.Millisecond)
	}
	r.check("tools/call", version, json.RawMessage(badToolResult))
	r.check("tools/call", version, json.RawMessage(`{"content":[]}`))
	r.wait()
	if got := r.violations(); got != 41 {
		t.Fatalf("violations after a second wait = %d, want 41", got)
	}
	if err := r.err(); err == nil || !strings.Contains(err.Error(), "41 violations") {
		t.Errorf("err() = %v, want --strict's error counting 41 violations", err)
	}
}

func TestResultChecksWaitWithoutResults(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := Test()
	f := NewFactory(ios)
	r := f.resultChecks(false)
	done := make(chan struct{})
	go func() { r.wait(); r.wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("wait with nothing queued did not return")
	}
	if r.workerRunning() {
		t.Error("a worker runs though no result came")
	}
	var nilChecks *resultChecks
	nilChecks.wait() // a run that connected to nothing
}

// violations is how many violations the run's checks found.
func (r *resultChecks) violations() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// workerRunning reports whether the worker goroutine is alive.
func (r *resultChecks) workerRunning() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}
