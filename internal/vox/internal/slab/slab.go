// Package slab hands out values of one type from chunks, so that the many
// small nodes, bindings and functions of a compiled file take a few
// allocations instead of one each. A chunk lives as long as any value in
// it; everything a file's compilation allocates this way lives as long as
// the compiled module, so nothing is kept alive longer than before —
// unless the compilation keeps none of it and says so with Reset, which
// makes the chunks free for the next compilation instead of garbage.
package slab

// Slab allocates values of T. The zero Slab is ready to use; it is not safe
// for concurrent use.
type Slab[T any] struct {
	free []T
	size int // of the last chunk
	// chunks are the chunks made, in order, and used how many of them
	// have been handed out from since the last Reset.
	chunks [][]T
	used   int
}

// chunk is the largest number of values allocated at once. A slab's
// chunks grow 1, 2, 4, then chunk at a time: a file holds few values of
// most types, and what the last chunk of each type leaves unused stays
// allocated as long as the file's module. Fixed chunks of 8 left a
// one-tool file's module at about 11 KB, 110 MB for a workspace of
// 10,000 such files; growing chunks leave it at 6.6 KB, at about 17% more
// allocations and 10% fewer bytes on the compile corpus
// (docs/benchmarks.md, "Generation").
const chunk = 8

// New returns a pointer to a zeroed T.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 {
		if s.used == len(s.chunks) {
			s.size = min(chunk, max(1, 2*s.size))
			s.chunks = append(s.chunks, make([]T, s.size))
		}
		s.free = s.chunks[s.used]
		s.used++
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// Make returns a pointer to a T holding v.
func (s *Slab[T]) Make(v T) *T {
	p := s.New()
	*p = v
	return p
}

// Reset zeroes every value handed out and makes the chunks free for New
// again. The caller promises that no value handed out before is used
// after: they will be handed out again.
func (s *Slab[T]) Reset() {
	for _, c := range s.chunks[:s.used] {
		clear(c)
	}
	s.free, s.used = nil, 0
}
