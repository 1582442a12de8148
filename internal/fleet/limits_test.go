package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
	"github.com/vox-lang/vox-mcp/internal/session"
)

// storedSubscriptionBytes reads the subscriptions hash of the real store:
// how many fields the session key holds, what they cost together
// (session.SubscriptionCost of each URI), and the longest URI.
func storedSubscriptionBytes(t *testing.T, s *Store, key string) (n, bytes, longest int) {
	t.Helper()
	all, err := s.rdb.HGetAll(context.Background(), s.subsKey).Result()
	if err != nil {
		t.Fatal(err)
	}
	for f := range all {
		k, u, _ := strings.Cut(f, "\x00")
		if k != key {
			continue
		}
		n++
		bytes += session.SubscriptionCost(u)
		longest = max(longest, len(u))
	}
	return n, bytes, longest
}

// In fleet mode the store holds no subscribed URI over
// session.MaxURIBytes and no session's subscriptions over
// session.MaxSubscriptionBytes: the subscription that would pass a bound
// is refused with a limit error before anything is written, through the
// instance that filled the session and through another one.
func TestStoreHoldsNothingOverTheSubscriptionBounds(t *testing.T) {
	rs := redistest.Start(t)
	a, b := open(t, rs.URL, time.Minute), open(t, rs.URL, time.Minute)
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)

	huge := "big://" + strings.Repeat("a", 8<<20)
	if err := a.Subscribe(ctx, "s1", exp, "addr-s1", huge); !errors.Is(err, session.ErrLimit) {
		t.Fatalf("an 8 MB URI: %v, want a limit error", err)
	}
	if n, _, _ := storedSubscriptionBytes(t, a, "s1"); n != 0 {
		t.Fatalf("the store holds %d subscriptions after the refused 8 MB URI", n)
	}

	uri := func(i int) string {
		return fmt.Sprintf("big://%03d/%s", i, strings.Repeat("a", session.MaxURIBytes-10))
	}
	fits := session.MaxSubscriptionBytes / session.SubscriptionCost(uri(0))
	for i := range fits {
		if err := a.Subscribe(ctx, "s1", exp, "addr-s1", uri(i)); err != nil {
			t.Fatalf("subscription %d of %d that fit: %v", i+1, fits, err)
		}
	}
	err := a.Subscribe(ctx, "s1", exp, "addr-s1", uri(fits))
	if !errors.Is(err, session.ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("at most %d bytes together", session.MaxSubscriptionBytes)) {
		t.Fatalf("the subscription past the bytes bound: %v", err)
	}
	eventually(t, "the other instance's mirror sees the session's subscriptions", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.subs["s1"]) == fits
	})
	if err := b.Subscribe(ctx, "s1", exp, "addr-s1", uri(fits+1)); !errors.Is(err, session.ErrLimit) {
		t.Fatalf("the subscription past the bytes bound through another instance: %v", err)
	}
	n, bytes, longest := storedSubscriptionBytes(t, a, "s1")
	if n != fits || bytes > session.MaxSubscriptionBytes || longest > session.MaxURIBytes {
		t.Fatalf("the store holds %d subscriptions of %d bytes (longest URI %d) for the session; want %d within %d bytes, no URI over %d",
			n, bytes, longest, fits, session.MaxSubscriptionBytes, session.MaxURIBytes)
	}
	// An unsubscribe frees the room again.
	if err := b.Unsubscribe(ctx, "s1", uri(0)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first instance's mirror sees the unsubscribe", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.subs["s1"]) == fits-1
	})
	if err := a.Subscribe(ctx, "s1", exp, "addr-s1", uri(fits)); err != nil {
		t.Fatalf("after an unsubscribe: %v", err)
	}
}
