package position

import (
	"slices"
	"testing"
)

func TestCompare(t *testing.T) {
	keys := []Key{
		{"b.yaml", 1, 1, "x"},
		{"a.yaml", 2, 1, "x"},
		{"a.yaml", 0, 0, "whole file"},
		{"a.yaml", 2, 1, "a"},
		{"a.yaml", 10, 1, "x"},
		{"a.yaml", 2, 0, "line"},
	}
	slices.SortStableFunc(keys, Compare)
	want := []Key{
		{"a.yaml", 0, 0, "whole file"},
		{"a.yaml", 2, 0, "line"},
		{"a.yaml", 2, 1, "a"},
		{"a.yaml", 2, 1, "x"},
		{"a.yaml", 10, 1, "x"},
		{"b.yaml", 1, 1, "x"},
	}
	if !slices.Equal(keys, want) {
		t.Errorf("got %v", keys)
	}
}
