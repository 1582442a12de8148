package check

// suggest returns the candidate closest to name by edit distance, when
// it is within maxDist and closer than half the name's length (so a
// short name is not "corrected" to an unrelated one); "" otherwise. Ties
// go to the first in sorted order, so the suggestion is deterministic.
func suggest(name string, candidates []string, maxDist int) string {
	best, bestD := "", maxDist+1
	limit := len(name) / 2
	if limit < 1 {
		limit = 1
	}
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		if d := distance(name, c, bestD); d < bestD || d == bestD && best != "" && c < best {
			if d <= limit || d == 1 {
				best, bestD = c, d
			}
		}
	}
	if bestD > maxDist {
		return ""
	}
	return best
}

// Suggest is suggest for other packages (scan configs, fixture keys):
// the candidate within edit distance 2 of name, or "".
func Suggest(name string, candidates []string) string { return suggest(name, candidates, 2) }

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
