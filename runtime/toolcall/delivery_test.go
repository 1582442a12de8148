package toolcall

import (
	"context"
	"testing"
)

// TestDeliveryWaitsForTheWrite: a call's notification is counted sent,
// and the wait ends once a connection reports it written; one that no
// connection writes ends the wait at its bound, or when the call ends,
// and the next notifications do not wait for it.
func TestDeliveryWaitsForTheWrite(t *testing.T) {
	d := NewDelivery()
	done := make(chan struct{})
	go func() {
		d.sentOne(context.Background())
		close(done)
	}()
	d.Wrote(Count([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")))
	<-done
	if d.sent != 1 || d.written != 1 {
		t.Fatalf("sent %d, written %d; want 1 and 1", d.sent, d.written)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.sentOne(ctx) // the call ended: no wait
	d.sentOne(context.Background())
	if d.sent != 3 || d.written != 3 {
		t.Errorf("after two unwritten notifications: sent %d, written %d; want 3 and 3", d.sent, d.written)
	}
	if n := Count([]byte(`{"method":"notifications/tools/list_changed"}`)); n != 0 {
		t.Errorf("a list change counts %d, want 0: it is no call's", n)
	}
}
