package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
	"github.com/vox-lang/vox-mcp/internal/session"
)

// A stream's events stored through one instance are replayed by another:
// Last-Event-ID works across the fleet.
func TestEventsResumeOnAnotherInstance(t *testing.T) {
	rs := redistest.Start(t)
	a, b := open(t, rs.URL, 0).Events(time.Hour), open(t, rs.URL, 0).Events(time.Hour)
	ctx := context.Background()
	var ids []string
	for i, m := range []string{"", `{"n":1}`, `{"n":2}`, `{"n":3}`} {
		stream := "post-1"
		if i == 2 {
			stream = "get" // another stream of the session: not replayed
		}
		id, err := a.StoreEvent(ctx, "sess", stream, json.RawMessage(m))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var got []string
	stream, err := b.ReplayEventsAfter(ctx, "sess", ids[0], func(id string, m json.RawMessage) error {
		got = append(got, id+" "+string(m))
		return nil
	})
	want := []string{ids[1] + ` {"n":1}`, ids[3] + ` {"n":3}`}
	if err != nil || stream != "post-1" || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("replay after the priming event on b = %q, %q, %v; want post-1, %q", stream, got, err, want)
	}
	for name, id := range map[string]string{"another session's": ids[1], "invented": "17-0", "malformed": "not-an-id"} {
		sid := "other"
		if name != "another session's" {
			sid = "sess"
		}
		if _, err := b.ReplayEventsAfter(ctx, sid, id, func(string, json.RawMessage) error { return nil }); !errors.Is(err, session.ErrUnknownEvent) {
			t.Errorf("replay after %s id: %v, want ErrUnknownEvent", name, err)
		}
	}
	if _, err := a.StoreEvent(ctx, "sess", "post-1", json.RawMessage(strings.Repeat("x", session.DefaultEventBytesPerSession))); !errors.Is(err, session.ErrEventTooLarge) {
		t.Errorf("an event over the per-session bound: %v", err)
	}
	if err := b.PurgeSession(ctx, "sess"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReplayEventsAfter(ctx, "sess", ids[0], func(string, json.RawMessage) error { return nil }); !errors.Is(err, session.ErrUnknownEvent) {
		t.Errorf("replay after the session was purged: %v", err)
	}
}

// A session keeps at most its last session.DefaultEventsPerSession events.
func TestEventsAreBounded(t *testing.T) {
	rs := redistest.Start(t)
	ev := open(t, rs.URL, 0).Events(time.Hour)
	ctx := context.Background()
	first, err := ev.StoreEvent(ctx, "s", "x", json.RawMessage(`{"n":0}`))
	if err != nil {
		t.Fatal(err)
	}
	big := fmt.Sprintf(`{"pad":%q}`, strings.Repeat("y", session.DefaultEventBytesPerSession/4))
	for range 4 {
		if _, err := ev.StoreEvent(ctx, "s", "x", json.RawMessage(big)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ev.ReplayEventsAfter(ctx, "s", first, func(string, json.RawMessage) error { return nil }); !errors.Is(err, session.ErrUnknownEvent) {
		t.Fatalf("the oldest event survived 4 events of a quarter of the byte bound each: %v", err)
	}
	n, err := ev.s.rdb.Get(ctx, ev.keys("s")[1]).Int()
	if err != nil || n > session.DefaultEventBytesPerSession {
		t.Fatalf("the session's events count %d bytes (%v), over the bound of %d", n, err, session.DefaultEventBytesPerSession)
	}
	for range session.DefaultEventsPerSession + 5 {
		if _, err := ev.StoreEvent(ctx, "c", "x", json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if l, _ := ev.s.rdb.XLen(ctx, ev.keys("c")[0]).Result(); l != session.DefaultEventsPerSession {
		t.Fatalf("the session keeps %d events, want %d", l, session.DefaultEventsPerSession)
	}
}
