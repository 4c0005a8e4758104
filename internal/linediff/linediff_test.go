package linediff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUnifiedHunks(t *testing.T) {
	// numbered is the lines 1 to 20, with the given ones replaced.
	numbered := func(replace map[int]string) string {
		var b strings.Builder
		for i := 1; i <= 20; i++ {
			if r, ok := replace[i]; ok {
				b.WriteString(r + "\n")
			} else {
				fmt.Fprintf(&b, "%d\n", i)
			}
		}
		return b.String()
	}
	for _, tt := range []struct {
		name     string
		old, new string
		want     string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"insert at the start", "b\nc\n", "a\nb\nc\n", "--- old\n+++ new\n@@ -1,2 +1,3 @@\n+a\n b\n c"},
		{"delete at the end", "a\nb\nc\n", "a\nb\n", "--- old\n+++ new\n@@ -1,3 +1,2 @@\n a\n b\n-c"},
		{"from nothing", "", "a\n", "--- old\n+++ new\n@@ -0,0 +1,1 @@\n+a"},
		{"to nothing", "a\n", "", "--- old\n+++ new\n@@ -1,1 +0,0 @@\n-a"},
		{
			"context is three lines",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8",
		},
		{
			"changes far apart are separate hunks",
			numbered(nil), numbered(map[int]string{2: "two", 19: "nineteen"}),
			"--- old\n+++ new\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n" +
				"@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+nineteen\n 20",
		},
		{
			"changes close together share a hunk",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\nB\n3\n4\n5\n6\n7\nH\n9\n10\n",
			"--- old\n+++ new\n@@ -1,10 +1,10 @@\n 1\n-2\n+B\n 3\n 4\n 5\n 6\n 7\n-8\n+H\n 9\n 10",
		},
	} {
		if got := Unified("old", tt.old, "new", tt.new); got != tt.want {
			t.Errorf("%s: unified =\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

// TestDiffLinesShortest checks, on random texts over a small alphabet, that
// the script turns a into b and is as short as the longest common
// subsequence allows.
func TestDiffLinesShortest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() []string {
		s := make([]string, rng.IntN(12))
		for i := range s {
			s[i] = string(rune('a' + rng.IntN(3)))
		}
		return s
	}
	for range 2000 {
		a, b := random(), random()
		edits := diffLines(a, b)
		var gotA, gotB []string
		changes := 0
		for _, e := range edits {
			if e.op != '+' {
				gotA = append(gotA, e.line)
			}
			if e.op != '-' {
				gotB = append(gotB, e.line)
			}
			if e.op != ' ' {
				changes++
			}
		}
		if strings.Join(gotA, ",") != strings.Join(a, ",") || strings.Join(gotB, ",") != strings.Join(b, ",") {
			t.Fatalf("diffLines(%q, %q) = %q: does not turn one into the other", a, b, edits)
		}
		if want := len(a) + len(b) - 2*lcsLen(a, b); changes != want {
			t.Fatalf("diffLines(%q, %q) makes %d changes, want %d", a, b, changes, want)
		}
	}
}

// TestDiffLinesLimit checks that texts too far apart for the search come
// out as one replacement.
func TestDiffLinesLimit(t *testing.T) {
	var a, b []string
	for i := range maxDiffEdits {
		a = append(a, "a"+strings.Repeat("!", i))
		b = append(b, "b"+strings.Repeat("!", i))
	}
	edits := diffLines(a, b)
	if len(edits) != 2*maxDiffEdits || edits[0].op != '-' || edits[len(edits)-1].op != '+' {
		t.Fatalf("diffLines of two unrelated %d-line texts: %d edits, want all deleted then all inserted", maxDiffEdits, len(edits))
	}
}

// lcsLen is the length of a longest common subsequence, by dynamic
// programming: the reference the shortest script is checked against.
func lcsLen(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}
