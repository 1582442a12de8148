package vox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestConcurrentCallsWait: with one slot, a second call waits for the
// first and fails at its own timeout with an error naming the limit and
// the hint; the slot is free again afterwards.
func TestConcurrentCallsWait(t *testing.T) {
	defer SetMaxima(Maxima{})
	SetMaxima(Maxima{ConcurrentCalls: 1, Hint: "raise --max-concurrent-calls"})
	m := compileOK(t, "fn spin() { loop { } }\nfn one() { 1 }\n")
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		close(started)
		m.Call(ctx, "spin", nil, &Env{Limits: Limits{Timeout: time.Minute}})
	}()
	<-started
	var err error
	for { // until the spinning call holds the slot
		_, err = m.Call(context.Background(), "one", nil, &Env{Limits: Limits{Timeout: 50 * time.Millisecond}})
		if err != nil {
			break
		}
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != LimitError || !strings.Contains(e.Message, "limit of 1 concurrent calls") || !strings.HasSuffix(e.Message, "raise --max-concurrent-calls") {
		t.Fatalf("got %v", err)
	}
	cancel()
	<-done
	if _, err := m.Call(context.Background(), "one", nil, nil); err != nil {
		t.Fatalf("after the first call: %v", err)
	}
}

// TestAllocationBudget: allocations count across values, each of which
// stays under max_value_bytes.
func TestAllocationBudget(t *testing.T) {
	m := compileOK(t, `fn grow() {
    let mut s = "x".repeat(1000)
    let mut n = 0
    while n < 10000 { s = s + "y"; n = n + 1 }
    s.len()
}
`)
	_, err := m.Call(context.Background(), "grow", nil, &Env{Limits: Limits{MaxAllocBytes: 1 << 20, Steps: 1 << 30}})
	var e *Error
	if !errors.As(err, &e) || e.Limit != "max_alloc_bytes" || !strings.HasPrefix(e.Message, "max_alloc_bytes limit of 1048576 exceeded") {
		t.Fatalf("got %v", err)
	}
	if _, err := m.Call(context.Background(), "grow", nil, &Env{Limits: Limits{MaxAllocBytes: 1 << 30, Steps: 1 << 30}}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
}

// TestLower: a config lowers the maxima, and neither 0 nor a larger
// value lifts them.
func TestLower(t *testing.T) {
	max := DefaultLimits()
	got := Lower(max, Limits{Steps: 0, Timeout: 0, MaxDepth: 1 << 20, MaxValueBytes: 1024})
	if got.Steps != max.Steps || got.Timeout != max.Timeout || got.MaxDepth != max.MaxDepth || got.MaxValueBytes != 1024 {
		t.Fatalf("got %+v", got)
	}
}
