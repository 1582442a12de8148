package sandbox

import (
	"bytes"
	"os"
	"sync"
	"time"
)

// The output of a run is captured the same way on every system: the
// process writes into pipes, and these readers keep the first OutputCap
// bytes of each.

// timedOutResult is the result of a run stopped by its timeout or context.
func timedOutResult(stdout, stderr *capture) Result {
	r := Result{ExitCode: -1, TimedOut: true}
	if stdout != nil {
		r.Stdout, r.Stderr = stdout.text(), stderr.text()
		r.Truncated = stdout.truncated || stderr.truncated
	}
	return r
}

// capture reads one output stream, keeping the first OutputCap bytes and
// draining the rest so that the writer never blocks on a full pipe.
type capture struct {
	f         *os.File
	buf       bytes.Buffer
	truncated bool
	done      chan struct{}
	counter   *outputCounter // nil: nobody listens
}

func newCapture(f *os.File, counter *outputCounter) *capture {
	c := &capture{f: f, done: make(chan struct{}), counter: counter}
	go c.loop()
	return c
}

// outputCounter adds up the bytes both captures read and reports the sum
// to Spec.Output, growing, at most every OutputReportEvery.
type outputCounter struct {
	report func(int64)

	mu       sync.Mutex
	total    int64
	reported int64
	last     time.Time
}

// flush reports the final count when it grew since the last report.
func (o *outputCounter) flush() {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.total > o.reported {
		o.reported = o.total
		o.report(o.total)
	}
}

func (o *outputCounter) add(n int) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += int64(n)
	if now := time.Now(); n > 0 && now.Sub(o.last) >= OutputReportEvery {
		o.reported, o.last = o.total, now
		o.report(o.total)
	}
}

func (c *capture) loop() {
	defer close(c.done)
	chunk := make([]byte, 64<<10)
	for {
		n, err := c.f.Read(chunk)
		c.counter.add(n)
		if n > 0 {
			room := OutputCap - c.buf.Len()
			if n > room {
				n, c.truncated = room, true
			}
			c.buf.Write(chunk[:n])
		}
		if err != nil {
			return
		}
	}
}

// text is the kept output, with the marker when the stream was cut. Call it
// only after done is closed.
func (c *capture) text() string {
	if c.truncated {
		return c.buf.String() + truncationMarker
	}
	return c.buf.String()
}
