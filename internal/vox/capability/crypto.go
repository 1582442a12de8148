package capability

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"github.com/vox-lang/vox-mcp/internal/blake3"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// ---- crypto ----
//
// The reference's crypto.hash_secure (BLAKE3) and crypto.uuid, and SHA-256
// as an extension; crypto.hash_fast (XXH3-128) is std.hash_fast
// (stdroot.go).

// hashWork is the work of hashing one byte, in the units of Thread.Work.
const hashWork = 4

func cryptoHashSecure(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s := strArg(th, "crypto", "hash_secure", args[0])
	th.Work(int64(len(s)) * hashWork)
	sum := blake3.Sum256([]byte(s))
	return eval.Str(hex.EncodeToString(sum[:]))
}

func cryptoSHA256(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	s := strArg(th, "crypto", "sha256", args[0])
	th.Work(int64(len(s)) * hashWork)
	sum := sha256.Sum256([]byte(s))
	return eval.Str(hex.EncodeToString(sum[:]))
}

func cryptoUUID(th *eval.Thread, _ *Config, _ []eval.Value) eval.Value {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24 and later)
	h := hex.EncodeToString(b[:])
	return eval.Str("vox-" + h[:16] + "-" + h[16:])
}
