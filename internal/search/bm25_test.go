package search

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestTokenize(t *testing.T) {
	got := Tokenize("Release-Notes: git_log v2 ÄÖ über!")
	want := []string{"release", "notes", "git", "log", "v2", "äö", "über"}
	if !slices.Equal(got, want) {
		t.Fatalf("Tokenize = %q, want %q", got, want)
	}
}

// TestScoresByHand checks the formula on a corpus small enough to compute
// by hand: two documents, one field of weight 1.
func TestScoresByHand(t *testing.T) {
	ix := Build([]Doc{
		{Key: "a", Fields: []Field{{Weight: 1, Text: "deploy deploy app"}}},
		{Key: "b", Fields: []Field{{Weight: 1, Text: "test"}}},
	})
	hits := ix.Search("deploy", 0)
	if len(hits) != 1 || hits[0].Key != "a" {
		t.Fatalf("hits = %+v", hits)
	}
	// N=2, df=1: idf = ln(1 + 1.5/1.5) = ln 2; tf=2, |d|=3, avgdl=2.
	idf := math.Log(2)
	norm := K1 * (1 - B + B*3.0/2.0)
	want := idf * 2 * (K1 + 1) / (2 + norm)
	if math.Abs(hits[0].Score-want) > 1e-12 {
		t.Fatalf("score = %v, want %v", hits[0].Score, want)
	}
}

func TestFieldWeightsTiesAndLimit(t *testing.T) {
	ix := Build([]Doc{
		{Key: "zeta", Fields: []Field{{Weight: 1, Text: "alpha"}, {Weight: 2, Text: "other words here"}}},
		{Key: "beta", Fields: []Field{{Weight: 1, Text: "other"}, {Weight: 2, Text: "alpha words here"}}},
		{Key: "alpha", Fields: []Field{{Weight: 1, Text: "other"}, {Weight: 2, Text: "alpha words here"}}},
		{Key: "none", Fields: []Field{{Weight: 1, Text: "unrelated"}}},
	})
	hits := ix.Search("ALPHA alpha", 0)
	keys := []string{}
	for _, h := range hits {
		keys = append(keys, h.Key)
	}
	// The description match (weight 2) outranks the name match (weight 1);
	// the two equal documents are ordered by key; repeated query terms count once.
	if !slices.Equal(keys, []string{"alpha", "beta", "zeta"}) {
		t.Fatalf("order = %v", keys)
	}
	if hits[0].Score != hits[1].Score || hits[1].Score <= hits[2].Score {
		t.Fatalf("scores = %+v", hits)
	}
	if got := ix.Search("alpha", 2); len(got) != 2 {
		t.Fatalf("limit 2 gave %d hits", len(got))
	}
	if got := ix.Search("missing", 10); len(got) != 0 {
		t.Fatalf("no match gave %+v", got)
	}
	if got := Build(nil).Search("x", 1); got == nil || len(got) != 0 {
		t.Fatalf("empty index gave %#v", got)
	}
}

func BenchmarkSearch10k(b *testing.B) {
	docs := make([]Doc, 10000)
	words := []string{"deploy", "release", "notes", "git", "log", "review", "test", "lint", "format", "docs", "api", "schema", "build", "cache", "query"}
	for i := range docs {
		docs[i] = Doc{Key: fmt.Sprintf("skill-%05d", i), Fields: []Field{
			{Weight: 1, Text: fmt.Sprintf("skill-%05d", i)},
			{Weight: 1, Text: words[i%len(words)] + " helper"},
			{Weight: 2, Text: fmt.Sprintf("%s the %s and %s for project %d", words[i%7], words[i%11], words[i%13], i)},
			{Weight: 2, Text: words[(i+3)%len(words)]},
			{Weight: 0.5, Text: "Steps: run the tool, read the output, " + words[(i+5)%len(words)] + " everything."},
		}}
	}
	ix := Build(docs)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ix.Search("deploy release notes", 10)
	}
}
