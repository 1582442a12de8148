package transport

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// TestPOSTEventsAreRecordedOnOneStream: the events of a POST are recorded
// on one stream whoever writes first — the call's notification (a stream
// named by the server) or mcp-go (its own stream); mcp-go's stream, made
// later, is the alias a resume reaches while the POST is served, and
// after it the recorded stream answers.
func TestPOSTEventsAreRecordedOnOneStream(t *testing.T) {
	events := NewEventStore(session.NewMemoryEventStore(0, 0, 0))
	ps := NewPostStream(context.Background(), httptest.NewRecorder(), nil, events.aliases)
	ctx := WithPostStream(context.Background(), ps)
	first, err := events.StoreEvent(ctx, "s", ps.recordedStream(""), json.RawMessage(`{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.StoreEvent(ctx, "s", "mcp-go-stream", json.RawMessage(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	replay := func() (string, []string) {
		var got []string
		stream, err := events.ReplayEventsAfter(context.Background(), "s", first, func(_ string, m json.RawMessage) error {
			got = append(got, string(m))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return stream, got
	}
	if stream, got := replay(); stream != "mcp-go-stream" || len(got) != 1 || got[0] != `{"n":2}` {
		t.Errorf("while served: resume reaches %q with %v, want mcp-go-stream with mcp-go's event", stream, got)
	}
	ps.End()
	if stream, got := replay(); stream != ps.stream || len(got) != 1 {
		t.Errorf("once answered: resume reaches %q with %v, want the recorded stream %q", stream, got, ps.stream)
	}

	// mcp-go first: its stream is the one, and no alias is kept.
	ps2 := NewPostStream(context.Background(), httptest.NewRecorder(), nil, events.aliases)
	ctx2 := WithPostStream(context.Background(), ps2)
	if _, err := events.StoreEvent(ctx2, "s", "mcp-go-2", json.RawMessage(`{"n":3}`)); err != nil {
		t.Fatal(err)
	}
	if got := ps2.recordedStream(""); got != "mcp-go-2" {
		t.Errorf("the call's notification after mcp-go's event is recorded on %q, want mcp-go-2", got)
	}
	n := 0
	events.aliases.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d aliases kept, want none", n)
	}
}
