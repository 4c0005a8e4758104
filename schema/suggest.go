package schema

import (
	"strings"
	"unicode/utf8"
)

// Suggest returns the candidate that name most likely misspells, for a "did
// you mean" hint about a tool, argument or prompt name; "" when none is
// close.
//
// Names compare case-insensitively by edit distance (insertions, deletions,
// substitutions and swaps of adjacent letters). The distance allowed grows
// with the length of name: none beyond case for one or two letters, 1 up to
// five, 2 up to nine, 3 beyond. Failing that, a name of two or more letters
// that begins exactly one candidate suggests it ("temp" for "temperature",
// "ad" for "add" among tools where no other name begins with "ad").
// Ties go to the candidate listed first; a candidate equal to name is never
// suggested.
func Suggest(name string, candidates []string) string {
	lname := strings.ToLower(name)
	n := utf8.RuneCountInString(lname)
	limit := 3
	switch {
	case n <= 2:
		limit = 0
	case n <= 5:
		limit = 1
	case n <= 9:
		limit = 2
	}
	best, bestDist := "", limit+1
	prefixOf, prefixes := "", 0
	for _, c := range candidates {
		if c == name {
			continue
		}
		lc := strings.ToLower(c)
		if d := editDistance(lname, lc, bestDist); d < bestDist {
			best, bestDist = c, d
		}
		if n >= 2 && strings.HasPrefix(lc, lname) {
			prefixOf = c
			prefixes++
		}
	}
	if best != "" {
		return best
	}
	if prefixes == 1 {
		return prefixOf
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b
// (Levenshtein plus adjacent transpositions), in runes. It returns bound as
// soon as the distance is known to be at least bound.
func editDistance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= bound || -d >= bound {
		return bound
	}
	// Three rows: two back for transpositions, the previous, the current.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin >= bound {
			return bound
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(rb)], bound)
}
