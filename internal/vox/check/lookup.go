package check

import "sort"

// Lookup is At in O(log n): what the name at line:col (1-based, col in
// bytes) is. At looks at every recorded name, which is fine for one
// hover but quadratic for an editor's query about every let or every
// name of a file (inlay hints, references); the record is sorted by
// position (finishResult), and names do not overlap, so the name at
// line:col is among those starting where the last start at or before it
// is (several when one position was recorded twice: the last wins, as
// in At).
func (r *Result) Lookup(line, col int) (Info, bool) {
	if r.rec == nil {
		return Info{}, false
	}
	occ := r.rec.occ
	i := sort.Search(len(occ), func(i int) bool { return before(line, col, occ[i].Line, occ[i].Col) })
	if i == 0 {
		return Info{}, false
	}
	start := occ[i-1]
	for j := i - 1; j >= 0 && occ[j].Line == start.Line && occ[j].Col == start.Col; j-- {
		if o := occ[j]; o.Line == line && o.Col <= col && col < o.EndCol {
			return o, true
		}
	}
	return Info{}, false
}
