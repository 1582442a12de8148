package skills

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The expressions ValidID and ValidToolName were written from, kept here as
// the oracle the hand-written rules must agree with.
var (
	idOracle   = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
	toolOracle = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

func TestNameRules(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := ValidID(s), idOracle.MatchString(s) && !strings.Contains(s, "--"); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", s, got, want)
		}
		if got, want := ValidToolName(s), toolOracle.MatchString(s); got != want {
			t.Errorf("ValidToolName(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{
		"", "a", "-", "a-", "-a", "a-b", "a--b", "pdf", "pdf-tools", "PDF", "a_b", "a.b", "é",
		"a\n", "\na", "a b", strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65),
		strings.Repeat("a-", 32), "a" + strings.Repeat("-a", 31), "a" + strings.Repeat("-a", 32),
		strings.Repeat("_", 64), strings.Repeat("Z", 65), "vox_skill_list", "tool\x00",
	} {
		check(s)
	}
	// Random strings around both length limits, over every character
	// class the rules distinguish, and over mostly valid characters (so
	// that many are valid and differ from one only at an edge).
	alphabets := []string{"az09AZ_-.-- é\n", "a0-", "a_Z-"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 30_000 {
		alphabet := alphabets[n%len(alphabets)]
		b := make([]byte, r.IntN(70))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
}
