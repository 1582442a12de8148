package skills

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// syntheticCorpus builds n in-memory skills whose texts are drawn from a
// fixed vocabulary with a Zipf-like skew, so common words match thousands
// of skills and rare ones a handful, as in a real collection.
func syntheticCorpus(n int) []*Installed {
	vocab := strings.Fields(`deploy release git commit review test triage data csv pdf form api docs openapi
		security audit dependency vulnerability secret kubernetes docker container image build cache go python
		javascript typescript rust java benchmark performance profile memory cpu latency database sql migration
		index query schema backup restore monitor alert log trace metric dashboard cloud storage bucket network
		dns certificate tls proxy load balancer queue event stream kafka email notification calendar meeting
		translation locale accessibility wcag html css layout design figma image video audio transcript summary`)
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	words := func(k int) string {
		var b strings.Builder
		for i := 0; i < k; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[zipf.Uint64()])
		}
		return b.String()
	}
	out := make([]*Installed, n)
	for i := range out {
		id := fmt.Sprintf("%s-%s-%d", vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], i)
		out[i] = synthetic(id, words(25), strings.Fields(words(4)), words(150))
	}
	return out
}

// BenchmarkSkillSearch10k measures one search over 10,000 skills (target:
// under 1 ms per query). The queries mix common and rare words.
func BenchmarkSkillSearch10k(b *testing.B) {
	snap := newSnapshot(1, syntheticCorpus(10_000))
	queries := []string{"deploy kubernetes", "csv data summary", "security audit of dependencies",
		"wcag accessibility", "release notes from git history", "benchmark go performance"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if len(snap.Search(queries[i%len(queries)], DefaultSearchLimit)) == 0 {
			b.Fatal("no results")
		}
	}
}

// BenchmarkSkillIndexBuild10k measures the rebuild that every registry
// change costs at 10,000 skills.
func BenchmarkSkillIndexBuild10k(b *testing.B) {
	corpus := syntheticCorpus(10_000)
	b.ReportAllocs()
	for b.Loop() {
		newSnapshot(1, corpus)
	}
}
