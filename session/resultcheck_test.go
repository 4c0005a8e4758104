package session

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
	var mu sync.Mutex
	var warned strings.Builder
	r := &ResultChecks{Warn: func(kind, msg string) { mu.Lock(); warned.WriteString(msg + "\n"); mu.Unlock() }}
	r.SetStrict()
	const version = "2025-11-25"

	// Results queued from several goroutines at once, as the read loops of
	// --parallel calls do: every one is checked before wait returns.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				r.Check("tools/call", version, json.RawMessage(badToolResult))
			}
		})
	}
	wg.Wait()
	r.Wait()
	if got := r.violations(); got != 40 {
		t.Fatalf("violations after wait = %d, want 40", got)
	}
	mu.Lock()
	if !strings.Contains(warned.String(), "/content/0/mimeType: required by ImageContent") {
		t.Errorf("no warning naming /content/0/mimeType; warnings:\n%s", warned.String())
	}
	mu.Unlock()

	// wait lets the worker end; a result that comes later starts another.
	deadline := time.Now().Add(10 * time.Second)
	for r.workerRunning() {
		if time.Now().After(deadline) {
			t.Fatal("the check worker is still running 10s after wait")
		}
		time.Sleep(time.Millisecond)
	}
	r.Check("tools/call", version, json.RawMessage(badToolResult))
	r.Check("tools/call", version, json.RawMessage(`{"content":[]}`))
	r.Wait()
	if got := r.violations(); got != 41 {
		t.Fatalf("violations after a second wait = %d, want 41", got)
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "41 violations") {
		t.Errorf("err() = %v, want --strict's error counting 41 violations", err)
	}
}

func TestResultChecksWaitWithoutResults(t *testing.T) {
	t.Parallel()
	r := &ResultChecks{}
	done := make(chan struct{})
	go func() { r.Wait(); r.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("wait with nothing queued did not return")
	}
	if r.workerRunning() {
		t.Error("a worker runs though no result came")
	}
	var nilChecks *ResultChecks
	nilChecks.Wait() // a run that connected to nothing
}

// violations is how many violations the run's checks found.
func (r *ResultChecks) violations() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// workerRunning reports whether the worker goroutine is alive.
func (r *ResultChecks) workerRunning() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running
}

// A flood of results faster than the checks: the queue stays bounded, the
// results past the bound are counted, not checked, and said once.
func TestResultChecksBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var warnings []string
	r := &ResultChecks{Warn: func(kind, msg string) { mu.Lock(); warnings = append(warnings, msg); mu.Unlock() }}
	// Hold the worker: the first check waits until released.
	release := make(chan struct{})
	held := make(chan struct{})
	r.mu.Lock()
	r.idle.L = &r.mu
	r.mu.Unlock()
	var once sync.Once
	r.Redact = func(s string) string {
		once.Do(func() { close(held); <-release })
		return s
	}
	r.Check("tools/call", "2025-11-25", json.RawMessage(badToolResult))
	<-held
	n := maxQueuedResults + 500
	for range n {
		r.Check("tools/call", "2025-11-25", json.RawMessage(badToolResult))
	}
	r.mu.Lock()
	queued, dropped := len(r.queue), r.dropped
	r.mu.Unlock()
	if queued > maxQueuedResults {
		t.Errorf("queue holds %d results, want at most %d", queued, maxQueuedResults)
	}
	if dropped < 500 {
		t.Errorf("dropped = %d, want at least 500", dropped)
	}
	close(release)
	r.Wait()
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, w := range warnings {
		if strings.Contains(w, "results were not checked against the official schema") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning counts the results not checked; warnings: %d", len(warnings))
	}
}

// Results are checked while the run goes on, not only when it waits.
func TestResultChecksWithoutWait(t *testing.T) {
	t.Parallel()
	warned := make(chan string, 4)
	r := &ResultChecks{Warn: func(kind, msg string) { warned <- msg }}
	for round := range 2 {
		r.Check("tools/call", "2025-11-25", json.RawMessage(badToolResult))
		select {
		case msg := <-warned:
			if !strings.Contains(msg, "mimeType") {
				t.Errorf("round %d: warning %q", round, msg)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the result was not checked until Wait", round)
		}
	}
	r.Wait()
}
