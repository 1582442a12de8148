package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func replay(t *testing.T, m EventStore, sid, last string) (string, []string, error) {
	t.Helper()
	var got []string
	stream, err := m.ReplayEventsAfter(context.Background(), sid, last, func(id string, msg json.RawMessage) error {
		got = append(got, id+"="+string(msg))
		return nil
	})
	return stream, got, err
}

func TestMemoryEventStoreReplaysItsStreamOnly(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryEventStore(0, 0, 0)
	prime, _ := m.StoreEvent(ctx, "a", "s1", nil)
	m.StoreEvent(ctx, "a", "s1", json.RawMessage(`1`))
	m.StoreEvent(ctx, "a", "s2", json.RawMessage(`x`))
	m.StoreEvent(ctx, "a", "s1", json.RawMessage(`2`))
	other, _ := m.StoreEvent(ctx, "b", "s3", json.RawMessage(`secret`))

	stream, got, err := replay(t, m, "a", prime)
	if err != nil || stream != "s1" || strings.Join(got, ",") != "2=1,4=2" {
		t.Fatalf("replay after the priming event = %q %v %v, want s1 [2=1 4=2]", stream, got, err)
	}
	// An id of session b presented by session a names a's own event of
	// that number (here the first of s1), never b's.
	if _, got, _ := replay(t, m, "a", other); strings.Contains(strings.Join(got, ","), "secret") {
		t.Fatalf("session a replayed session b's event: %v", got)
	}
	for _, bad := range []string{"99", "", "1\n2", "-1", "abc"} {
		if _, _, err := replay(t, m, "a", bad); !errors.Is(err, ErrUnknownEvent) {
			t.Errorf("replay after %q: err = %v, want ErrUnknownEvent", bad, err)
		}
	}
	if _, _, err := replay(t, m, "nobody", prime); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("replay for an unknown session: err = %v, want ErrUnknownEvent", err)
	}
	m.PurgeSession(ctx, "a")
	if _, _, err := replay(t, m, "a", prime); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("replay after purge: err = %v, want ErrUnknownEvent", err)
	}
	if m.Sessions() != 1 {
		t.Errorf("sessions after purging a = %d, want 1", m.Sessions())
	}
}

func TestMemoryEventStoreIsBounded(t *testing.T) {
	ctx := context.Background()
	const perSession, perBytes, total = 10, 4096, 16384
	m := NewMemoryEventStore(perSession, perBytes, total)
	msg := json.RawMessage(strings.Repeat("x", 100))
	first, _ := m.StoreEvent(ctx, "flood", "s", msg)
	for range 100000 {
		if _, err := m.StoreEvent(ctx, "flood", "s", msg); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := replay(t, m, "flood", first); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("resume from an evicted event: err = %v, want ErrUnknownEvent", err)
	}
	if n := len(m.sessions["flood"].events); n != perSession {
		t.Errorf("the flooding session keeps %d events, want %d", n, perSession)
	}
	// Many sessions: the total stays bounded, and the largest loses first.
	for i := range 1000 {
		for range 5 {
			m.StoreEvent(ctx, fmt.Sprint("s", i), "s", msg)
		}
	}
	if b := m.Bytes(); b > total {
		t.Errorf("the store holds %d bytes, over its bound %d", b, total)
	}
	if _, err := m.StoreEvent(ctx, "big", "s", json.RawMessage(strings.Repeat("y", perBytes))); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("an event over the per-session bound: err = %v, want ErrEventTooLarge", err)
	}
}
