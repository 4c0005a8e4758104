package cmd

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The table keeps the codes of the contract (ARCHITECTURE.md), each once.
func TestExitCodeTableIsTheContract(t *testing.T) {
	t.Parallel()
	var got []int
	for _, e := range exitCodeTable() {
		got = append(got, e.Code)
		if e.Meaning == "" {
			t.Errorf("exit code %d has no meaning", e.Code)
		}
	}
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 130, 143}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exit codes (-contract +table):\n%s", diff)
	}
}

// Every code of the table has its line in the help, in order.
func TestExitCodeHelpListsTheTable(t *testing.T) {
	t.Parallel()
	var codes []string
	for _, line := range strings.Split(exitCodeHelp(), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			codes = append(codes, f[0])
		}
		if len(line) > 78 || strings.Contains(line, "`") {
			t.Errorf("help line %q: longer than 78 columns or has Markdown", line)
		}
	}
	var want []string
	for _, e := range exitCodeTable() {
		want = append(want, strconv.Itoa(e.Code))
	}
	if !slices.Equal(codes, want) {
		t.Errorf("help lists codes %v, want %v", codes, want)
	}
}

// The README's exit-code table is the one of exitCodeTable. With
// MCPCTL_UPDATE=1 the test writes it into the README instead.
func TestREADMEExitCodes(t *testing.T) {
	const path = "../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	const heading = "## Exit codes\n\n"
	start := strings.Index(readme, heading)
	if start < 0 {
		t.Fatalf("%s has no %q section", path, strings.TrimSpace(heading))
	}
	start += len(heading)
	end := strings.Index(readme[start:], "\n\n")
	if end < 0 {
		t.Fatalf("%s: the exit-code table does not end", path)
	}
	end += start + 1
	want := exitCodeMarkdown()
	if got := readme[start:end]; got != want {
		if os.Getenv("MCPCTL_UPDATE") == "1" {
			if err := os.WriteFile(path, []byte(readme[:start]+want+readme[end:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's exit codes differ from exitCodeTable (-README +table); run MCPCTL_UPDATE=1 go test ./cmd -run TestREADMEExitCodes:\n%s", path, cmp.Diff(got, want))
	}
}

// A signal's exit code is 128 + its number, the contract's 130 and 143
// included.
func TestSignalCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sig  os.Signal
		want int
	}{
		{syscall.SIGINT, ExitInterrupted},
		{syscall.SIGTERM, ExitTerminated},
		{syscall.SIGHUP, 129},
		{fakeSignal{}, ExitInterrupted},
	} {
		if got := signalCode(tt.sig); got != tt.want {
			t.Errorf("signalCode(%v) = %d, want %d", tt.sig, got, tt.want)
		}
	}
}

// fakeSignal is a signal with no number.
type fakeSignal struct{}

func (fakeSignal) String() string { return "fake" }
func (fakeSignal) Signal()        {}
