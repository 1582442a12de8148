package server

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// The URIs kept for expanded-URI subscriptions are bounded: past
// maxExpandedSubscriptions a new one is not kept, and the log says so
// once, so that sessions subscribing to many expanded URIs cannot make
// every refresh ask the session state about an unbounded set.
func TestExpandedSubscriptionsAreBounded(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	var e expandedSubscriptions
	for i := range maxExpandedSubscriptions + 10 {
		e.add(fmt.Sprintf("notes://%d", i), log)
	}
	e.add("notes://0", log) // kept already: no change
	if len(e.uris) != maxExpandedSubscriptions {
		t.Errorf("%d URIs kept, want %d", len(e.uris), maxExpandedSubscriptions)
	}
	if n := strings.Count(logs.String(), "too many subscribed URIs of resource templates"); n != 1 {
		t.Errorf("the cap was logged %d times, want once:\n%s", n, logs.String())
	}
}

// The expanded URIs kept are bounded in bytes too: each may be as long
// as session.MaxURIBytes; forgetting one frees its bytes.
func TestExpandedSubscriptionsAreBoundedInBytes(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	var e expandedSubscriptions
	long := func(i int) string { return fmt.Sprintf("notes://%04d/%s", i, strings.Repeat("a", 8000)) }
	for i := range maxExpandedSubscriptions {
		e.add(long(i), log)
	}
	if e.bytes > maxExpandedSubscriptionBytes || len(e.uris) != maxExpandedSubscriptionBytes/len(long(0)) {
		t.Errorf("%d URIs of %d bytes kept, want %d within %d bytes", len(e.uris), e.bytes, maxExpandedSubscriptionBytes/len(long(0)), maxExpandedSubscriptionBytes)
	}
	e.forget([]string{long(0), "never://kept"})
	if e.add(long(9999), log); len(e.uris) != maxExpandedSubscriptionBytes/len(long(0)) {
		t.Errorf("after forgetting one: %d URIs", len(e.uris))
	}
}
