package blake3_test

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	reference "lukechampine.com/blake3"

	"github.com/vox-lang/vox-mcp/internal/blake3"
)

// vectorLengths are the input lengths of the official BLAKE3 test vectors
// (input byte i is i mod 251): every chunk and tree boundary.
var vectorLengths = []int{0, 1, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 2048, 2049, 3072, 3073,
	4096, 4097, 5120, 5121, 6144, 6145, 7168, 7169, 8192, 8193, 16384, 31744, 102400}

func vectorInput(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// TestKnownHashes checks hashes published with BLAKE3's test vectors.
func TestKnownHashes(t *testing.T) {
	for n, want := range map[int]string{
		0: "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
	} {
		got := blake3.Sum256(vectorInput(n))
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("Sum256 of the %d-byte vector input = %x, want %s", n, got, want)
		}
	}
	got := blake3.Sum256([]byte("abc"))
	if want := "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"; hex.EncodeToString(got[:]) != want {
		t.Errorf(`Sum256("abc") = %x, want %s`, got, want)
	}
}

// TestMatchesReference compares against a maintained BLAKE3 library (a
// test-only dependency) at every boundary of the test vectors and at
// random lengths and contents.
func TestMatchesReference(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		if got, want := blake3.Sum256(b), reference.Sum256(b); !bytes.Equal(got[:], want[:]) {
			t.Fatalf("Sum256 of %d bytes = %x, want %x", len(b), got, want)
		}
	}
	for _, n := range vectorLengths {
		check(vectorInput(n))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		b := make([]byte, rng.IntN(40000))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		check(b)
	}
}
