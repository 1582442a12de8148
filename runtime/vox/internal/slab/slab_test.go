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
