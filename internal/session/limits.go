package session

import (
	"errors"
	"fmt"
)

// Bounds of what a client may make the server keep for a session beyond
// one request (docs/security.md, "State a client makes the server keep";
// docs/federation.md §8, "Per-session state"). Each value a client
// supplies and the server keeps is bounded in bytes, and a session's
// subscriptions together are bounded in number and in bytes, in memory
// and in the fleet's store alike: a client must not turn one session into
// gigabytes that stay for its whole lifetime.
const (
	// MaxURIBytes bounds one subscribed resource URI: far above any URI a
	// resource is named by (a file path is at most 4,096 bytes on Linux),
	// low enough that the session's bounds below hold a useful number of
	// them.
	MaxURIBytes = 8 << 10
	// MaxSubscriptions bounds the resource subscriptions of one session.
	MaxSubscriptions = 1000
	// MaxSubscriptionBytes bounds the bytes of one session's
	// subscriptions together, each counted as its URI plus
	// SubscriptionOverhead: 1,000 subscriptions of URIs of 190 bytes, or
	// 31 of the longest URIs.
	MaxSubscriptionBytes = 256 << 10
	// SubscriptionOverhead is what a subscription counts besides its URI:
	// its map entry and the address its notifications go to, about what
	// the in-memory store spends on it.
	SubscriptionOverhead = 64
	// MaxClientInfoBytes bounds what initialize's clientInfo and
	// capabilities take together as JSON: mcp-go keeps both with the
	// session until it ends or has been idle for its lifetime. A real
	// client sends a few hundred bytes; an icon as a data: URI still fits.
	MaxClientInfoBytes = 64 << 10
)

// ErrLimit matches every *LimitError with errors.Is.
var ErrLimit = errors.New("session bound exceeded")

// LimitError is the refusal of a value that would take a session past one
// of its bounds; nothing of it was kept. The server answers it with
// JSON-RPC -32602, its text naming the bound and what is allowed.
type LimitError struct{ msg string }

func (e *LimitError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrLimit) match.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// limitf is a *LimitError of the formatted text.
func limitf(format string, args ...any) *LimitError {
	return &LimitError{msg: fmt.Sprintf(format, args...)}
}

// SubscriptionCost is what a subscription to uri counts toward
// MaxSubscriptionBytes.
func SubscriptionCost(uri string) int { return len(uri) + SubscriptionOverhead }

// CheckSubscribedURI refuses a URI longer than MaxURIBytes.
func CheckSubscribedURI(uri string) error {
	if len(uri) > MaxURIBytes {
		return limitf("the uri has %d bytes; a subscribed resource URI may have at most %d", len(uri), MaxURIBytes)
	}
	return nil
}

// CheckSubscription decides whether a session holding count subscriptions
// of bytes bytes (SubscriptionCost each) may add one to uri; a URI it
// holds already (has) costs nothing more.
func CheckSubscription(count, bytes int, has bool, uri string) error {
	if err := CheckSubscribedURI(uri); err != nil {
		return err
	}
	if has {
		return nil
	}
	if count >= MaxSubscriptions {
		return limitf("this session already has %d resource subscriptions, the most one may hold: unsubscribe from some first", MaxSubscriptions)
	}
	if cost := SubscriptionCost(uri); bytes+cost > MaxSubscriptionBytes {
		return limitf("this session's resource subscriptions take %d bytes and this one %d more (its URI plus %d); a session's subscriptions may take at most %d bytes together: unsubscribe from some first",
			bytes, cost, SubscriptionOverhead, MaxSubscriptionBytes)
	}
	return nil
}
