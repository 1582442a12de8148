// Package suggest finds the name a typo meant: the candidate closest by
// edit distance, for the "did you mean total?" help of the Vox checker
// (internal/vox/check) and of the contract documents' unknown keys
// (internal/contractdoc).
package suggest

import "strings"

// Closest returns the candidate closest to name by edit distance: within
// maxDist and at most half the name's length, or a longer distance (up to
// 3) for a candidate that shares the name's first three letters (lenght:
// len). Ties go to a candidate that holds the name's letters in order (a
// dropped letter: totl, total), then to the first in sorted order, so
// the suggestion is deterministic. Names of one or two letters get none.
func Closest(name string, candidates []string, maxDist int) string {
	if len(name) <= 2 {
		return ""
	}
	best, bestD, bestSub := "", 4, false
	for _, c := range candidates {
		if c == name || len(c) <= 1 {
			continue
		}
		d := distance(name, c, 3)
		ok := d <= maxDist && d <= max(1, len(name)/2) || d <= 3 && len(c) >= 3 && strings.HasPrefix(name, c[:3]) && strings.HasPrefix(c, name[:3])
		if !ok {
			continue
		}
		sub := subsequence(name, c) || subsequence(c, name)
		if d < bestD || d == bestD && (sub && !bestSub || sub == bestSub && c < best) {
			best, bestD, bestSub = c, d, sub
		}
	}
	return best
}

// subsequence reports whether the letters of a appear in b in order.
func subsequence(a, b string) bool {
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// Name is Closest within edit distance 2: the name meant, or "".
func Name(name string, candidates []string) string { return Closest(name, candidates, 2) }

// distance is the Damerau–Levenshtein distance (optimal string alignment)
// of a and b, by bytes; it gives up with a value > limit once every
// alignment exceeds it.
func distance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	if len(a) > 64 || len(b) > 64 {
		return limit + 1
	}
	var rows [3][65]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
