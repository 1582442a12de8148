package session

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// Hash is how a session id is written where it must not be readable — the
// audit trail's lines and the spans' mcp.session.id (docs/security.md,
// "Audit trail"): the first 16 hex digits of HMAC-SHA-256 of the id under
// key. Over HTTP a session id is a credential; one function keeps a
// session's hash the same in both under the same key.
func Hash(key []byte, id string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))[:16]
}
