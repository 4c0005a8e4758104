package approval

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func testStore(t *testing.T) Store {
	t.Helper()
	return Store{Dir: filepath.Join(t.TempDir(), "approvals"), Poll: time.Millisecond}
}

func testRequest() Request {
	return Request{
		Server:    "npx -y some-server",
		Tool:      "delete_file",
		Arguments: json.RawMessage(`{"path":"/tmp/x","token":"***"}`),
		Host:      Host{Name: "claude-code", Version: "2.1.0"},
		SessionID: "20260101T000000000Z-42",
		Rule:      "requires_approval",
	}
}

func TestHoldListFind(t *testing.T) {
	s := testStore(t)
	id, err := s.Hold(testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !validID(id) {
		t.Fatalf("Hold gave ID %q, want six hex digits", id)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("List = %d entries, want 1", len(list))
	}
	got := list[0]
	want := testRequest()
	want.Time = got.Time
	if diff := cmp.Diff(want, got.Request); diff != "" {
		t.Errorf("held request (-want +got):\n%s", diff)
	}
	if got.ID != id || got.State != Pending || got.PID != os.Getpid() || got.Verdict != nil {
		t.Errorf("entry = %+v, want ID %s pending, pid %d, no verdict", got, id, os.Getpid())
	}
	if got.Time.IsZero() {
		t.Error("Hold left the time zero")
	}
	// IDs are typed by people: upper case and stray spaces still find it.
	if _, err := s.Find(" " + toUpper(id) + "\n"); err != nil {
		t.Errorf("Find(upper case): %v", err)
	}
	fi, err := os.Stat(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("queue folder mode = %v, want 0700", fi.Mode().Perm())
	}
}

func toUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func TestUnknownIDs(t *testing.T) {
	s := testStore(t)
	if _, err := s.Hold(testRequest()); err != nil {
		t.Fatal(err)
	}
	// Names that would reach outside the folder, or other files in it,
	// are unknown IDs, never paths.
	for _, id := range []string{"", "abc", "000000", "../../etc/passwd", "a3f9c2.decision", "zzzzzz"} {
		if _, err := s.Approve(id, "me"); !errors.As(err, new(*NotFoundError)) {
			t.Errorf("Approve(%q) = %v, want a NotFoundError", id, err)
		}
		if _, err := s.Find(id); !errors.As(err, new(*NotFoundError)) {
			t.Errorf("Find(%q) = %v, want a NotFoundError", id, err)
		}
	}
}

func TestApproveReleasesWaiter(t *testing.T) {
	s := testStore(t)
	id, err := s.Hold(testRequest())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Verdict)
	go func() {
		v, err := s.Wait(context.Background(), id, time.Hour)
		if err != nil {
			t.Error(err)
		}
		done <- v
	}()
	e, err := s.Approve(id, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if e.State != Approved || e.Verdict == nil || e.Verdict.By != "alice" {
		t.Errorf("Approve returned %+v", e)
	}
	v := <-done
	if !v.Approved || v.By != "alice" || v.Time.IsZero() {
		t.Errorf("waiter got %+v, want approved by alice", v)
	}
	// The second decision is told about the first.
	_, err = s.Deny(id, "bob", "")
	var fe *FinishedError
	if !errors.As(err, &fe) || fe.Entry.Verdict == nil || fe.Entry.Verdict.By != "alice" {
		t.Fatalf("Deny after Approve = %v, want a FinishedError naming alice", err)
	}
	if want := "call " + id + " was already approved by alice"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestDenyReason(t *testing.T) {
	s := testStore(t)
	id, err := s.Hold(testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deny(id, "bob", "not on a Friday"); err != nil {
		t.Fatal(err)
	}
	v, err := s.Wait(context.Background(), id, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if v.Approved || v.By != "bob" || v.Reason != "not on a Friday" {
		t.Errorf("verdict = %+v", v)
	}
	id2, _ := s.Hold(testRequest())
	e, err := s.Deny(id2, "bob", "")
	if err != nil || e.Verdict.Reason != "denied by bob" {
		t.Errorf("Deny without a reason = %+v, %v; want the default reason", e.Verdict, err)
	}
}

// TestDecidersRace has several deciders and the waiter's timeout race for
// one call: exactly one decision is recorded, and everyone else is told
// that one.
func TestDecidersRace(t *testing.T) {
	for round := range 20 {
		s := testStore(t)
		id, err := s.Hold(testRequest())
		if err != nil {
			t.Fatal(err)
		}
		const n = 6
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []string
			told    []string
		)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				by := string(rune('a' + i))
				var err error
				if i%2 == 0 {
					_, err = s.Approve(id, by)
				} else {
					_, err = s.Deny(id, by, "no")
				}
				mu.Lock()
				defer mu.Unlock()
				var fe *FinishedError
				switch {
				case err == nil:
					winners = append(winners, by)
				case errors.As(err, &fe) && fe.Entry.Verdict != nil:
					told = append(told, fe.Entry.Verdict.By)
				default:
					t.Errorf("decider %s: %v", by, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: %d deciders won (%v), want 1", round, len(winners), winners)
		}
		for _, by := range told {
			if by != winners[0] {
				t.Errorf("round %d: a loser was told %q decided, not the winner %q", round, by, winners[0])
			}
		}
		v, err := s.Wait(context.Background(), id, time.Hour)
		if err != nil || v.By != winners[0] {
			t.Errorf("round %d: waiter got %+v, %v; want the winner %q", round, v, err, winners[0])
		}
	}
}

func TestWaitTimeout(t *testing.T) {
	s := testStore(t)
	id, err := s.Hold(testRequest())
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Wait(context.Background(), id, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	want := Verdict{By: ByTimeout, Reason: "no one approved it within 0.02 s"}
	if diff := cmp.Diff(want, v, cmpIgnoreTime); diff != "" {
		t.Errorf("verdict after the timeout (-want +got):\n%s", diff)
	}
	// The timeout is a decision like any other: a late approve is told.
	if _, err := s.Approve(id, "alice"); !errors.As(err, new(*FinishedError)) {
		t.Errorf("Approve after the timeout = %v, want a FinishedError", err)
	}
	e, err := s.Find(id)
	if err != nil || e.State != Denied {
		t.Errorf("entry after the timeout = %+v, %v; want denied", e, err)
	}
}

var cmpIgnoreTime = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Time" }, cmp.Ignore())

func TestWaitCancelled(t *testing.T) {
	s := testStore(t)
	id, err := s.Hold(testRequest())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, err := s.Wait(ctx, id, time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on a cancelled context: err = %v", err)
	}
	if v.Approved || v.By != ByCancel {
		t.Errorf("verdict = %+v, want denied by %q", v, ByCancel)
	}
}

func TestWaitUnknown(t *testing.T) {
	s := testStore(t)
	if _, err := s.Wait(context.Background(), "abcdef", time.Hour); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("Wait on an unknown ID = %v, want a NotFoundError", err)
	}
}

// TestConcurrentHolders has many holders at once, each released by its
// own approver: every call gets its own ID and its own verdict.
func TestConcurrentHolders(t *testing.T) {
	s := testStore(t)
	const n = 16
	var wg sync.WaitGroup
	ids := make([]string, n)
	verdicts := make([]Verdict, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := testRequest()
			req.Tool = "tool" + string(rune('a'+i))
			id, err := s.Hold(req)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = id
			go func() {
				if _, err := s.Approve(id, req.Tool); err != nil {
					t.Error(err)
				}
			}()
			v, err := s.Wait(context.Background(), id, time.Hour)
			if err != nil {
				t.Error(err)
			}
			verdicts[i] = v
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Errorf("ID %s given twice", id)
		}
		seen[id] = true
		if want := "tool" + string(rune('a'+i)); !verdicts[i].Approved || verdicts[i].By != want {
			t.Errorf("holder %d got %+v, want approved by %s", i, verdicts[i], want)
		}
	}
	list, err := s.List()
	if err != nil || len(list) != n {
		t.Errorf("List = %d entries, %v; want %d", len(list), err, n)
	}
}

func TestAbandonedAndClean(t *testing.T) {
	s := testStore(t)
	s.Keep = time.Minute
	gone, err := s.Hold(testRequest())
	if err != nil {
		t.Fatal(err)
	}
	decided, _ := s.Hold(testRequest())
	pending, _ := s.Hold(testRequest())
	if _, err := s.Approve(decided, "alice"); err != nil {
		t.Fatal(err)
	}
	// A proxy that stopped touching its call (killed) has abandoned it.
	old := time.Now().Add(-4 * Heartbeat)
	if err := os.Chtimes(s.entryPath(gone), old, old); err != nil {
		t.Fatal(err)
	}
	e, err := s.Find(gone)
	if err != nil || e.State != Abandoned {
		t.Fatalf("untouched call = %+v, %v; want abandoned", e, err)
	}
	_, err = s.Approve(gone, "alice")
	if !errors.As(err, new(*FinishedError)) || err.Error() != "call "+gone+" is no longer held: its proxy stopped waiting" {
		t.Errorf("Approve(abandoned) = %v", err)
	}
	// Nothing is old enough to clean yet.
	if removed, err := s.Clean(); err != nil || len(removed) != 0 {
		t.Errorf("Clean = %v, %v; want nothing removed", removed, err)
	}
	// Age the abandoned call and the decision past Keep.
	older := time.Now().Add(-2 * time.Minute)
	for _, p := range []string{s.entryPath(gone), s.entryPath(decided), s.decisionPath(decided)} {
		if err := os.Chtimes(p, older, older); err != nil {
			t.Fatal(err)
		}
	}
	rewriteVerdictTime(t, s, decided, older)
	removed, err := s.Clean()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{gone, decided}, removed, sortStrings); diff != "" {
		t.Errorf("Clean removed (-want +got):\n%s", diff)
	}
	list, _ := s.List()
	if len(list) != 1 || list[0].ID != pending {
		t.Errorf("after Clean, List = %+v, want only %s", list, pending)
	}
	if _, err := os.Stat(s.decisionPath(decided)); !os.IsNotExist(err) {
		t.Errorf("decision of a cleaned call still there: %v", err)
	}
}

var sortStrings = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// rewriteVerdictTime backdates a decision, as if it was made at t0.
func rewriteVerdictTime(t *testing.T, s Store, id string, t0 time.Time) {
	t.Helper()
	v, ok, err := s.decision(id)
	if err != nil || !ok {
		t.Fatalf("decision of %s: %v %v", id, ok, err)
	}
	v.Time = t0
	data, _ := json.Marshal(v)
	if err := os.WriteFile(s.decisionPath(id), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(s.decisionPath(id), t0, t0); err != nil {
		t.Fatal(err)
	}
}

func TestHoldIgnoresStaleDecision(t *testing.T) {
	s := testStore(t)
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// An orphan decision (its call removed, an approve that came too
	// late) must not decide a new call that gets the same ID.
	const id = "abcdef"
	if err := os.WriteFile(s.decisionPath(id), []byte(`{"approved":true,"by":"mallory"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.holdAs(id, testRequest()); err != nil {
		t.Fatal(err)
	}
	e, err := s.Find(id)
	if err != nil || e.State != Pending {
		t.Errorf("new call under an orphan's ID = %+v, %v; want pending", e, err)
	}
	if err := s.holdAs(id, testRequest()); !errors.Is(err, fs.ErrExist) {
		t.Errorf("holding under a taken ID = %v, want fs.ErrExist", err)
	}
}
