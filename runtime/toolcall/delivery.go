package toolcall

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// Delivery keeps the notifications of a request in order (docs/federation.md
// §9). mcp-go puts every notification of a session on one channel, which
// each POST stream of the session and the session's GET stream read: the
// progress reports of one call may leave on two connections, and the
// client may see 50 before 0; and a notification taken off the channel
// just as the response is written is dropped. So over HTTP a call's
// notification (progress, log message) is sent only once the previous one
// of its session was written to a connection: SendProgress and SendLog
// wait for it, as the HTTP transport's writers report (Wrote). Each wait
// is bounded (deliveryWait): a notification that no connection takes —
// the client left its GET stream, and the event store keeps it for a
// resume — holds the call up no longer.
type Delivery struct {
	mu      sync.Mutex
	changed *sync.Cond
	sent    int64 // notifications of calls put on the session's channel
	written int64 // notifications of calls written to a connection
}

// deliveryWait bounds one wait for a notification to be written.
const deliveryWait = time.Second

// NewDelivery returns the Delivery of one session (or of one sessionless
// request).
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

// DeliveryFrom is the Delivery of ctx, nil outside the HTTP transport.
func DeliveryFrom(ctx context.Context) *Delivery {
	return deliveryFrom(ctx)
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

// Wrote is told that n call notifications reached a connection of the
// session (written and flushed).
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
	if d.written >= want {
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
	if d.written < want {
		// Not written (a resume will replay it): the next ones need not
		// wait for it.
		d.written = want
	}
}
