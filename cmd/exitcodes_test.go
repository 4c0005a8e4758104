package cmd

import (
	"fmt"
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

// The README keeps no copy of the exit-code table: it links to the
// reference page generated from exitCodeTable (internal/gendocs), which
// TestReferenceIsCurrent keeps current.
func TestREADMEExitCodes(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if !strings.Contains(readme, "(docs/reference/mcpctl_help_exit-codes.md)") {
		t.Errorf("README.md does not link to docs/reference/mcpctl_help_exit-codes.md")
	}
	for _, e := range exitCodeTable() {
		if row := fmt.Sprintf("| %d | ", e.Code); strings.Contains(readme, row) {
			t.Errorf("README.md has a row %q of its own: link to the reference instead", row)
		}
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
