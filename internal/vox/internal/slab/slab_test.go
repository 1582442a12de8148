package slab

import "testing"

func TestSlab(t *testing.T) {
	var s Slab[[2]int]
	seen := map[*[2]int]bool{}
	for i := range 1000 {
		p := s.Make([2]int{i, -i})
		if seen[p] {
			t.Fatal("a value was handed out twice")
		}
		seen[p] = true
	}
	for p := range seen {
		if p[0] != -p[1] {
			t.Fatal("a value was overwritten")
		}
	}
	if q := s.New(); *q != [2]int{} {
		t.Fatal("New returned a value that is not zero")
	}
}

// TestReset: after Reset the slab hands out its chunks again, zeroed,
// without allocating.
func TestReset(t *testing.T) {
	var s Slab[[2]int]
	first := map[*[2]int]bool{}
	for i := range 100 {
		first[s.Make([2]int{i, i})] = true
	}
	s.Reset()
	allocs := testing.AllocsPerRun(1, func() {
		for range 100 {
			p := s.New()
			if !first[p] {
				t.Error("a value after Reset is not from the chunks made before")
			}
			if *p != [2]int{} {
				t.Error("a value after Reset is not zero")
			}
		}
		s.Reset()
	})
	if allocs != 0 {
		t.Errorf("%v allocations after Reset, want none", allocs)
	}
	if p := s.New(); !first[p] || *p != [2]int{} {
		t.Error("New after a second Reset")
	}
}
