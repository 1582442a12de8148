package toolcall

import (
	"context"
	"testing"
)

// TestDeliveryWaitsForTheWrite: a call's notification is counted sent,
// and the wait ends once the transport reports it written; one that is
// not written ends the wait when the call ends, or at its bound, after
// which no notification of the request waits any more.
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
	if d.gaveUp {
		t.Error("a call that ended gave the Delivery up")
	}
	d.sentOne(context.Background()) // never written: the bound ends it
	if !d.gaveUp {
		t.Error("an unwritten notification did not give the Delivery up")
	}
	d.sentOne(context.Background()) // returns at once
	if d.sent != 4 {
		t.Errorf("sent %d, want 4", d.sent)
	}
	if n := Count([]byte(`{"method":"notifications/tools/list_changed"}`)); n != 0 {
		t.Errorf("a list change counts %d, want 0: it is no call's", n)
	}
}
