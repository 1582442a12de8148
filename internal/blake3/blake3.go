// Package blake3 is the BLAKE3 hash (256-bit output, unkeyed), as
// crypto.hash_secure needs it (docs/vox-language.md).
//
// It is written here, scalar and small, instead of importing a BLAKE3
// library: both maintained Go libraries detect the CPU through
// klauspost/cpuid, whose package initialisation runs dozens of CPUID
// instructions at every start of every binary that links it — about 0.3–0.4
// ms of vox-mcp's cold start on a virtual machine, where each CPUID traps
// to the hypervisor (docs/benchmarks.md, "Cold start: where vox-mcp's time
// goes"). A Vox program hashes strings that its work budget bounds, where
// a vectorised hash would not be noticed.
package blake3

import (
	"encoding/binary"
	"math/bits"
)

const (
	blockLen = 64
	chunkLen = 1024

	flagChunkStart = 1 << 0
	flagChunkEnd   = 1 << 1
	flagParent     = 1 << 2
	flagRoot       = 1 << 3
)

// iv is BLAKE3's initialisation vector (SHA-256's).
var iv = [8]uint32{
	0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
	0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
}

// permutation reorders the message words between rounds.
var permutation = [16]int{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}

func g(s *[16]uint32, a, b, c, d int, mx, my uint32) {
	s[a] += s[b] + mx
	s[d] = bits.RotateLeft32(s[d]^s[a], -16)
	s[c] += s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -12)
	s[a] += s[b] + my
	s[d] = bits.RotateLeft32(s[d]^s[a], -8)
	s[c] += s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -7)
}

// compress is BLAKE3's compression function; it returns the first eight
// words of its output, the chaining value (the only words a 256-bit hash
// reads, at the root too).
func compress(cv [8]uint32, block *[16]uint32, counter uint64, n uint32, flags uint32) [8]uint32 {
	s := [16]uint32{
		cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
		iv[0], iv[1], iv[2], iv[3],
		uint32(counter), uint32(counter >> 32), n, flags,
	}
	m := *block
	for round := range 7 {
		g(&s, 0, 4, 8, 12, m[0], m[1])
		g(&s, 1, 5, 9, 13, m[2], m[3])
		g(&s, 2, 6, 10, 14, m[4], m[5])
		g(&s, 3, 7, 11, 15, m[6], m[7])
		g(&s, 0, 5, 10, 15, m[8], m[9])
		g(&s, 1, 6, 11, 12, m[10], m[11])
		g(&s, 2, 7, 8, 13, m[12], m[13])
		g(&s, 3, 4, 9, 14, m[14], m[15])
		if round < 6 {
			var p [16]uint32
			for i, j := range permutation {
				p[i] = m[j]
			}
			m = p
		}
	}
	var out [8]uint32
	for i := range out {
		out[i] = s[i] ^ s[i+8]
	}
	return out
}

// words reads up to 64 bytes as a block of little-endian words, zero
// padded.
func words(b []byte) *[16]uint32 {
	var buf [blockLen]byte
	copy(buf[:], b)
	var m [16]uint32
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(buf[4*i:])
	}
	return &m
}

// node is a compression not yet made: the last block of a chunk or a
// parent, whose flags depend on whether it is the root.
type node struct {
	cv      [8]uint32
	block   *[16]uint32
	counter uint64
	n       uint32
	flags   uint32
}

func (o node) chainingValue() [8]uint32 {
	return compress(o.cv, o.block, o.counter, o.n, o.flags)
}

// chunk compresses every block of one chunk (at most 1024 bytes) but the
// last, which it returns.
func chunk(data []byte, counter uint64) node {
	cv := iv
	flags := uint32(flagChunkStart)
	for len(data) > blockLen {
		cv = compress(cv, words(data[:blockLen]), counter, blockLen, flags)
		flags = 0
		data = data[blockLen:]
	}
	return node{cv: cv, block: words(data), counter: counter, n: uint32(len(data)), flags: flags | flagChunkEnd}
}

func parent(left, right [8]uint32) node {
	var m [16]uint32
	copy(m[:8], left[:])
	copy(m[8:], right[:])
	return node{cv: iv, block: &m, n: blockLen, flags: flagParent}
}

// Sum256 is the 256-bit BLAKE3 hash of data.
func Sum256(data []byte) [32]byte {
	// The chaining values of complete subtrees, merged as chunks arrive:
	// after chunk k (counting from 1) the stack holds one value per set
	// bit of k, as the BLAKE3 paper's incremental hashing keeps them.
	var stack [][8]uint32
	var counter uint64
	for len(data) > chunkLen {
		cv := chunk(data[:chunkLen], counter).chainingValue()
		counter++
		for total := counter; total&1 == 0; total >>= 1 {
			cv = parent(stack[len(stack)-1], cv).chainingValue()
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, cv)
		data = data[chunkLen:]
	}
	root := chunk(data, counter)
	for i := len(stack) - 1; i >= 0; i-- {
		root = parent(stack[i], root.chainingValue())
	}
	root.flags |= flagRoot
	var out [32]byte
	for i, w := range compress(root.cv, root.block, root.counter, root.n, root.flags) {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}
