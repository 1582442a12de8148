// Package search is the BM25F index shared by skill search
// (vox_skill_search) and tool search (vox_tool_search), as specified in
// docs/skills.md §3: tokens are lowercase runs of letters and digits, each
// field carries a weight, k1 = 1.2 and b = 0.75, zero scores are dropped
// and ties are broken by the document key.
//
// An Index is immutable once built, so searches need no locking; owners
// rebuild it once per change and swap it in.
package search

import (
	"container/heap"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// BM25 parameters.
const (
	K1 = 1.2
	B  = 0.75
)

// Field is one weighted text of a document.
type Field struct {
	Weight float64
	Text   string
}

// Doc is a document to index. Key identifies it in results and breaks ties
// (the skill id, the tool name).
type Doc struct {
	Key    string
	Fields []Field
}

// Hit is one search result: the position of the document in the slice the
// index was built from, its key and its score.
type Hit struct {
	Doc   int
	Key   string
	Score float64
}

type posting struct {
	doc int32
	tf  float64 // Σ_f w_f · count(t in f)
}

// Index is a built BM25F index.
type Index struct {
	keys     []string
	length   []float64 // |d| = Σ_f w_f · tokens(f)
	avgdl    float64
	postings map[string][]posting
}

// Build indexes docs. The index keeps no reference to docs.
func Build(docs []Doc) *Index {
	ix := &Index{
		keys:     make([]string, len(docs)),
		length:   make([]float64, len(docs)),
		postings: make(map[string][]posting),
	}
	var total float64
	tf := map[string]float64{}
	for i, d := range docs {
		ix.keys[i] = d.Key
		clear(tf)
		var length float64
		for _, f := range d.Fields {
			if f.Weight == 0 {
				continue
			}
			eachToken(f.Text, func(tok string) {
				tf[tok] += f.Weight
				length += f.Weight
			})
		}
		ix.length[i] = length
		total += length
		for tok, w := range tf {
			ix.postings[tok] = append(ix.postings[tok], posting{doc: int32(i), tf: w})
		}
	}
	if len(docs) > 0 {
		ix.avgdl = total / float64(len(docs))
	}
	return ix
}

// Len is the number of indexed documents.
func (ix *Index) Len() int { return len(ix.keys) }

// scratch is the per-search accumulator, pooled so that a search allocates
// only its result.
type scratch struct {
	scores  []float64
	touched []int32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// Search scores every document against query and returns the hits with a
// positive score, best first, ties by key; limit <= 0 returns them all.
func (ix *Index) Search(query string, limit int) []Hit {
	if ix == nil || len(ix.keys) == 0 || ix.avgdl == 0 {
		return []Hit{}
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	if cap(sc.scores) < len(ix.keys) {
		sc.scores = make([]float64, len(ix.keys))
	}
	scores := sc.scores[:len(ix.keys)]
	touched := sc.touched[:0]

	n := float64(len(ix.keys))
	var seen []string
	eachToken(query, func(term string) {
		if slices.Contains(seen, term) {
			return
		}
		seen = append(seen, term)
		list := ix.postings[term]
		if len(list) == 0 {
			return
		}
		df := float64(len(list))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range list {
			norm := K1 * (1 - B + B*ix.length[p.doc]/ix.avgdl)
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * p.tf * (K1 + 1) / (p.tf + norm)
		}
	})

	better := func(a, b Hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Doc < b.Doc
	}
	// Keep the best `limit` hits in a bounded heap whose root is the worst
	// kept hit, so a search costs O(matches · log limit).
	var kept hitHeap
	kept.worse = func(a, b Hit) bool { return better(b, a) }
	for _, doc := range touched {
		s := scores[doc]
		scores[doc] = 0
		if s <= 0 {
			continue
		}
		h := Hit{Doc: int(doc), Key: ix.keys[doc], Score: s}
		if limit <= 0 || kept.Len() < limit {
			heap.Push(&kept, h)
		} else if better(h, kept.hits[0]) {
			kept.hits[0] = h
			heap.Fix(&kept, 0)
		}
	}
	sc.touched = touched[:0]
	hits := kept.hits
	if hits == nil {
		hits = []Hit{}
	}
	sort.Slice(hits, func(i, j int) bool { return better(hits[i], hits[j]) })
	return hits
}

// hitHeap is a min-heap under worse: its root is the hit to drop first.
type hitHeap struct {
	hits  []Hit
	worse func(a, b Hit) bool
}

func (h *hitHeap) Len() int           { return len(h.hits) }
func (h *hitHeap) Less(i, j int) bool { return h.worse(h.hits[i], h.hits[j]) }
func (h *hitHeap) Swap(i, j int)      { h.hits[i], h.hits[j] = h.hits[j], h.hits[i] }
func (h *hitHeap) Push(x any)         { h.hits = append(h.hits, x.(Hit)) }
func (h *hitHeap) Pop() any {
	last := h.hits[len(h.hits)-1]
	h.hits = h.hits[:len(h.hits)-1]
	return last
}

// Tokenize splits s into lowercase runs of letters and digits.
func Tokenize(s string) []string {
	var out []string
	eachToken(s, func(t string) { out = append(out, t) })
	return out
}

// eachToken calls fn with every token of s, allocating only for tokens that
// are not already lowercase ASCII.
func eachToken(s string, fn func(string)) {
	start := -1
	lower := true
	for i := 0; i <= len(s); {
		var r rune
		size := 1
		if i < len(s) {
			r, size = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
		}
		if i < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if start < 0 {
				start, lower = i, true
			}
			if r >= utf8.RuneSelf || ('A' <= r && r <= 'Z') {
				lower = false
			}
		} else if start >= 0 {
			tok := s[start:i]
			if !lower {
				tok = strings.ToLower(tok)
			}
			fn(tok)
			start = -1
		}
		i += size
	}
}
