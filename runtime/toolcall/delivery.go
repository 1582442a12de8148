package toolcall

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// Delivery gets every notification of a sessionless request (protocol
// 2026-07-28) to its client (docs/federation.md §9). mcp-go's forwarder
// takes a call's notifications off a channel and writes them to the
// request's stream; one it takes just as the response is being written is
// dropped, so a call's last progress report could be lost. Over HTTP such
// a request's notification (progress, log message) is therefore sent only
// once the previous one was written and flushed: SendProgress and SendLog
// wait for it, as the transport's writer reports (Wrote), and when the
// call returns nothing of it is still in flight. The wait is bounded
// (deliveryWait), and a Delivery whose notification was not written in
// that time stops waiting for good, so that a stream that cannot carry
// notifications costs a call one bound at most.
type Delivery struct {
	mu      sync.Mutex
	changed *sync.Cond
	sent    int64 // notifications of the request put on the channel
	written int64 // notifications of the request written and flushed
	gaveUp  bool  // a wait ran out: the writes are not awaited any more
}

// deliveryWait bounds one wait for a notification to be written.
const deliveryWait = time.Second

// NewDelivery returns the Delivery of one sessionless request.
func NewDelivery() *Delivery {
	d := &Delivery{}
	d.changed = sync.NewCond(&d.mu)
	return d
}

type deliveryKey struct{}

// WithDelivery returns ctx whose calls' notifications d keeps in order.
func WithDelivery(ctx context.Context, d *Delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

func deliveryFrom(ctx context.Context) *Delivery {
	d, _ := ctx.Value(deliveryKey{}).(*Delivery)
	return d
}

// callNotifications are the methods a call sends: what Wrote counts.
var callNotifications = [][]byte{[]byte(`"method":"notifications/progress"`), []byte(`"method":"notifications/message"`)}

// Count is the number of call notifications in what a transport writes
// (whole SSE events).
func Count(p []byte) int {
	n := 0
	for _, m := range callNotifications {
		n += bytes.Count(p, m)
	}
	return n
}

// Wrote is told that n call notifications of the request were written
// and flushed.
func (d *Delivery) Wrote(n int) {
	if n == 0 {
		return
	}
	d.mu.Lock()
	d.written += int64(n)
	d.mu.Unlock()
	d.changed.Broadcast()
}

// sentOne records a notification put on the channel and waits until the
// connections wrote as many, the wait bound passed or ctx ended.
func (d *Delivery) sentOne(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sent++
	want := d.sent
	if d.written >= want || d.gaveUp {
		return
	}
	deadline := time.Now().Add(deliveryWait)
	stop := context.AfterFunc(ctx, d.changed.Broadcast)
	defer stop()
	timer := time.AfterFunc(deliveryWait, d.changed.Broadcast)
	defer timer.Stop()
	for d.written < want && ctx.Err() == nil && time.Now().Before(deadline) {
		d.changed.Wait()
	}
	if d.written < want && ctx.Err() == nil {
		d.gaveUp = true
	}
}
