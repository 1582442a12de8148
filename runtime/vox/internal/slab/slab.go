// Package slab hands out values of one type from chunks, so that the many
// small nodes, bindings and functions of a compiled file take a few
// allocations instead of one each. A chunk lives as long as any value in
// it; everything a file's compilation allocates this way lives as long as
// the compiled module, so nothing is kept alive longer than before.
package slab

// Slab allocates values of T. The zero Slab is ready to use; it is not safe
// for concurrent use.
type Slab[T any] struct {
	free []T
}

// chunk is the number of values allocated at once. Chunks are small and
// all of one size: a file holds few values of most types, and what the
// last chunk of each type leaves unused (at most chunk-1 values) stays
// allocated as long as the file's module, so larger or growing chunks
// save few allocations and waste more memory than they save in headers.
const chunk = 8

// New returns a pointer to a zeroed T.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 {
		s.free = make([]T, chunk)
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
