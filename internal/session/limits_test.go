package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A subscribed URI over MaxURIBytes is refused with a *LimitError naming
// the bound, and nothing of it is kept: not the subscription, not an
// entry for the session.
func TestMemoryStoreRefusesAHugeURI(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore(10, func(string, time.Time) error { return nil })
	exp := time.Now().Add(time.Hour)
	huge := "big://" + strings.Repeat("a", MaxURIBytes)
	err := m.Subscribe(ctx, "a", exp, "addr-a", huge)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("at most %d", MaxURIBytes)) {
		t.Fatalf("a URI of %d bytes: %v, want a limit error naming %d", len(huge), err, MaxURIBytes)
	}
	if m.Len() != 0 {
		t.Errorf("the refused subscription left %d sessions with state", m.Len())
	}
	if got, _ := m.Subscribers(ctx, huge); len(got) != 0 {
		t.Errorf("the refused URI has subscribers %v", got)
	}
	// The longest URI allowed is kept.
	longest := "big://" + strings.Repeat("a", MaxURIBytes-len("big://"))
	if err := m.Subscribe(ctx, "a", exp, "addr-a", longest); err != nil {
		t.Fatalf("a URI of exactly %d bytes: %v", MaxURIBytes, err)
	}
}

// A session's subscriptions together take at most MaxSubscriptionBytes:
// the one that would pass it is refused and not kept; subscribing again
// to a kept URI costs nothing; an unsubscribe frees its bytes.
func TestMemoryStoreBoundsASessionsSubscriptionBytes(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryStore(10, func(string, time.Time) error { return nil })
	exp := time.Now().Add(time.Hour)
	uri := func(i int) string { return fmt.Sprintf("big://%03d/%s", i, strings.Repeat("a", MaxURIBytes-10)) }
	fits := MaxSubscriptionBytes / SubscriptionCost(uri(0))
	for i := range fits {
		if err := m.Subscribe(ctx, "a", exp, "addr-a", uri(i)); err != nil {
			t.Fatalf("subscription %d of %d that fit: %v", i+1, fits, err)
		}
	}
	err := m.Subscribe(ctx, "a", exp, "addr-a", uri(fits))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), fmt.Sprintf("at most %d bytes together", MaxSubscriptionBytes)) {
		t.Fatalf("the subscription past the bytes bound: %v", err)
	}
	if got, _ := m.Subscribers(ctx, uri(fits)); len(got) != 0 {
		t.Errorf("the refused subscription was kept: %v", got)
	}
	if err := m.Subscribe(ctx, "a", exp, "addr-a", uri(0)); err != nil {
		t.Errorf("subscribing again to a kept URI: %v", err)
	}
	// Another session has its own bound.
	if err := m.Subscribe(ctx, "b", exp, "addr-b", uri(fits)); err != nil {
		t.Errorf("another session: %v", err)
	}
	m.Unsubscribe(ctx, "a", uri(1))
	if err := m.Subscribe(ctx, "a", exp, "addr-a", uri(fits)); err != nil {
		t.Errorf("after an unsubscribe: %v", err)
	}
	// An expired session starts from nothing.
	m.now = func() time.Time { return exp }
	if err := m.Subscribe(ctx, "a", exp.Add(time.Hour), "addr-a", uri(fits+1)); err != nil {
		t.Errorf("the session's state expired: %v", err)
	}
}

// The limits themselves: CheckSubscription counts a URI held already as
// nothing, and refuses the count bound before the bytes bound.
func TestCheckSubscription(t *testing.T) {
	if err := CheckSubscription(MaxSubscriptions, MaxSubscriptionBytes, true, "x://a"); err != nil {
		t.Errorf("a URI held already: %v", err)
	}
	if err := CheckSubscription(MaxSubscriptions, 0, false, "x://a"); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "1000 resource subscriptions") {
		t.Errorf("past the count: %v", err)
	}
	if err := CheckSubscription(0, MaxSubscriptionBytes-SubscriptionCost("x://a"), false, "x://a"); err != nil {
		t.Errorf("exactly at the bytes bound: %v", err)
	}
	if err := CheckSubscription(0, MaxSubscriptionBytes-SubscriptionCost("x://a")+1, false, "x://a"); !errors.Is(err, ErrLimit) {
		t.Errorf("one byte past the bytes bound: %v", err)
	}
}
