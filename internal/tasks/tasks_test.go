package tasks

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/vox-lang/vox-mcp/internal/fleet/redistest"
)

// fakeClock is the clock of the Memory store's tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// stores are the stores under test: two instances sharing their tasks
// (for Memory, one process: the same store), and how to let time pass.
type stores struct {
	a, b    Store
	advance func(time.Duration)
	shared  bool // a and b are two instances
}

const testLease = 400 * time.Millisecond

func memoryStores(t *testing.T) stores {
	c := &fakeClock{t: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)}
	m := NewMemory(testLease, c.now)
	return stores{a: m, b: m, advance: c.add}
}

func redisStores(t *testing.T) stores {
	srv := redistest.Start(t)
	opts, err := redis.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	return stores{a: NewRedis(rdb, "vox-mcp", testLease), b: NewRedis(rdb, "vox-mcp", testLease), advance: time.Sleep, shared: true}
}

func eachStore(t *testing.T, f func(t *testing.T, s stores)) {
	t.Run("memory", func(t *testing.T) { f(t, memoryStores(t)) })
	t.Run("redis", func(t *testing.T) { f(t, redisStores(t)) })
}

// TestTaskLifecycle: a task is created working, read by its principal
// on any instance, finished with its result, and a finish after the end
// changes nothing.
func TestTaskLifecycle(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		task, err := s.a.Create(ctx, Task{Principal: "token:full", Tool: "vox_skill_run", TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if task.Status != Working || task.Owner != s.a.Instance() || len(task.ID) != 32 || task.TTL != time.Minute {
			t.Fatalf("created %+v", task)
		}
		got, err := s.b.Get(ctx, "token:full", task.ID)
		if err != nil || got.Status != Working || got.Tool != "vox_skill_run" || !got.Created.Equal(task.Created.Truncate(time.Millisecond)) {
			t.Fatalf("get on the other instance: %+v, %v", got, err)
		}
		if _, res, err := s.b.Result(ctx, "token:full", task.ID); err != nil || res != nil {
			t.Fatalf("result of a working task: %q, %v", res, err)
		}
		done, err := s.a.Finish(ctx, task.ID, Completed, "", []byte(`{"content":[]}`))
		if err != nil || done.Status != Completed {
			t.Fatalf("finish: %+v, %v", done, err)
		}
		got, res, err := s.b.Result(ctx, "token:full", task.ID)
		if err != nil || got.Status != Completed || string(res) != `{"content":[]}` {
			t.Fatalf("result: %+v %q %v", got, res, err)
		}
		if _, err := s.a.Finish(ctx, task.ID, Failed, "late", nil); !errors.Is(err, ErrTerminal) {
			t.Fatalf("a second finish: %v, want ErrTerminal", err)
		}
		if _, err := s.b.Cancel(ctx, "token:full", task.ID, "x"); !errors.Is(err, ErrTerminal) {
			t.Fatalf("cancelling a completed task: %v, want ErrTerminal", err)
		}
	})
}

// TestTaskPrincipals: a principal neither reads, lists, cancels nor gets
// the result of another's task; each lists only its own, oldest first.
func TestTaskPrincipals(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		mine, _ := s.a.Create(ctx, Task{Principal: "alice@https://issuer", Tool: "t"})
		s.advance(5 * time.Millisecond)
		mine2, _ := s.a.Create(ctx, Task{Principal: "alice@https://issuer", Tool: "t"})
		theirs, _ := s.a.Create(ctx, Task{Principal: "token:read", Tool: "t"})
		if _, err := s.b.Get(ctx, "token:read", mine.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another principal's get: %v", err)
		}
		if _, _, err := s.b.Result(ctx, "token:read", mine.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another principal's result: %v", err)
		}
		if _, err := s.b.Cancel(ctx, "token:read", mine.ID, "no"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another principal's cancel: %v", err)
		}
		list, err := s.b.List(ctx, "alice@https://issuer")
		if err != nil || len(list) != 2 || list[0].ID != mine.ID || list[1].ID != mine2.ID {
			t.Fatalf("list: %+v, %v", list, err)
		}
		list, _ = s.b.List(ctx, "token:read")
		if len(list) != 1 || list[0].ID != theirs.ID {
			t.Fatalf("the other's list: %+v", list)
		}
		if list, _ := s.b.List(ctx, "nobody"); len(list) != 0 {
			t.Fatalf("an unknown principal lists %+v", list)
		}
	})
}

// TestTaskCancelReachesTheRunner: a cancel on one instance ends the task
// and the running instance learns it at its next renewal; the end the
// runner then records changes nothing.
func TestTaskCancelReachesTheRunner(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		task, _ := s.a.Create(ctx, Task{Principal: "stdio", Tool: "t"})
		other, _ := s.a.Create(ctx, Task{Principal: "stdio", Tool: "t"})
		if stopped, err := s.a.Renew(ctx, []string{task.ID, other.ID}); err != nil || len(stopped) != 0 {
			t.Fatalf("renew before the cancel: %v %v", stopped, err)
		}
		c, err := s.b.Cancel(ctx, "stdio", task.ID, "cancelled by the client")
		if err != nil || c.Status != Cancelled || c.Message != "cancelled by the client" {
			t.Fatalf("cancel: %+v %v", c, err)
		}
		stopped, err := s.a.Renew(ctx, []string{task.ID, other.ID})
		if err != nil || len(stopped) != 1 || stopped[0] != task.ID {
			t.Fatalf("renew after the cancel: %v %v, want [%s]", stopped, err, task.ID)
		}
		if got, err := s.a.Finish(ctx, task.ID, Completed, "", []byte(`{}`)); !errors.Is(err, ErrTerminal) || got.Status != Cancelled {
			t.Fatalf("finish of a cancelled task: %+v %v", got, err)
		}
		if _, res, _ := s.b.Result(ctx, "stdio", task.ID); res != nil {
			t.Fatalf("a cancelled task has the result %q", res)
		}
	})
}

// TestTaskLeaseLapses: a task whose instance stops renewing is found
// failed once the lease lapsed, by any instance; one whose instance
// renews stays working.
func TestTaskLeaseLapses(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		task, _ := s.a.Create(ctx, Task{Principal: "stdio", Tool: "t"})
		for range 3 {
			s.advance(testLease / 2)
			if _, err := s.a.Renew(ctx, []string{task.ID}); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := s.b.Get(ctx, "stdio", task.ID); got.Status != Working {
			t.Fatalf("a renewed task is %s", got.Status)
		}
		s.advance(testLease + 100*time.Millisecond) // no renewal: the instance died
		got, err := s.b.Get(ctx, "stdio", task.ID)
		if err != nil || got.Status != Failed || got.Message != leaseLapsed {
			t.Fatalf("after the lease: %+v %v", got, err)
		}
		list, _ := s.b.List(ctx, "stdio")
		if len(list) != 1 || list[0].Status != Failed {
			t.Fatalf("list after the lease: %+v", list)
		}
		if _, err := s.a.Finish(ctx, task.ID, Completed, "", []byte(`{}`)); !errors.Is(err, ErrTerminal) {
			t.Fatalf("a late finish: %v", err)
		}
	})
}

// TestTaskExpiry: a task and its result are gone ttl after the task was
// created; the ttl a client asks for is clamped.
func TestTaskExpiry(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		s := memoryStores(t)
		ctx := context.Background()
		task, _ := s.a.Create(ctx, Task{Principal: "stdio", Tool: "t", TTL: time.Millisecond})
		if task.TTL != MinTTL {
			t.Fatalf("ttl %v, want the minimum %v", task.TTL, MinTTL)
		}
		_, _ = s.a.Finish(ctx, task.ID, Completed, "", []byte(`{}`))
		s.advance(MinTTL - time.Millisecond)
		if _, err := s.a.Get(ctx, "stdio", task.ID); err != nil {
			t.Fatalf("before its ttl: %v", err)
		}
		s.advance(time.Millisecond)
		if _, _, err := s.a.Result(ctx, "stdio", task.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("after its ttl: %v", err)
		}
		if big, _ := s.a.Create(ctx, Task{Principal: "stdio", TTL: 100 * time.Hour}); big.TTL != MaxTTL {
			t.Fatalf("ttl %v, want the maximum", big.TTL)
		}
	})
	t.Run("redis", func(t *testing.T) {
		s := redisStores(t)
		r := s.a.(*Redis)
		// Created MinTTL-300ms ago: Redis deletes it in 300 ms.
		r.now = func() time.Time { return time.Now().Add(-MinTTL + 300*time.Millisecond) }
		ctx := context.Background()
		task, err := r.Create(ctx, Task{Principal: "stdio", Tool: "t", TTL: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = r.Finish(ctx, task.ID, Completed, "", []byte(`{}`))
		if _, _, err := s.b.Result(ctx, "stdio", task.ID); err != nil {
			t.Fatalf("before its ttl: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
		if _, _, err := s.b.Result(ctx, "stdio", task.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("after its ttl: %v", err)
		}
		if list, _ := s.b.List(ctx, "stdio"); len(list) != 0 {
			t.Fatalf("an expired task is listed: %+v", list)
		}
	})
}

// TestTaskBounds: a principal holds at most MaxPerPrincipal live tasks,
// and a result over MaxResultBytes fails its task.
func TestTaskBounds(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		var last Task
		for range MaxPerPrincipal {
			var err error
			if last, err = s.a.Create(ctx, Task{Principal: "p", Tool: "t"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.a.Create(ctx, Task{Principal: "p", Tool: "t"}); !errors.Is(err, ErrFull) {
			t.Fatalf("task %d: %v, want ErrFull", MaxPerPrincipal+1, err)
		}
		if _, err := s.a.Create(ctx, Task{Principal: "q", Tool: "t"}); err != nil {
			t.Fatalf("another principal: %v", err)
		}
		got, err := s.a.Finish(ctx, last.ID, Completed, "", make([]byte, MaxResultBytes+1))
		if err != nil || got.Status != Failed {
			t.Fatalf("an oversized result: %+v %v", got, err)
		}
	})
}

// TestTaskInputRequired: a working task asks (input_required, its input
// kept), is not failed by its instance's lease meanwhile, and is resumed
// once — by another instance, which then runs it — to working; a resume
// of a task that does not ask, or has ended, is refused, and a cancel
// ends a task that asks.
func TestTaskInputRequired(t *testing.T) {
	eachStore(t, func(t *testing.T, s stores) {
		ctx := context.Background()
		task, err := s.a.Create(ctx, Task{Principal: "p", Tool: "ask"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.b.Resume(ctx, "p", task.ID); !errors.Is(err, ErrNotAsking) {
			t.Fatalf("resume of a working task: %v", err)
		}
		asked, err := s.a.Ask(ctx, task.ID, "waiting", []byte(`{"round":1}`))
		if err != nil || asked.Status != InputRequired || asked.Input != `{"round":1}` {
			t.Fatalf("ask: %+v, %v", asked, err)
		}
		s.advance(2 * testLease) // a's lease lapses: nothing runs the task
		got, err := s.b.Get(ctx, "p", task.ID)
		if err != nil || got.Status != InputRequired || got.Message != "waiting" {
			t.Fatalf("a task that asks, its instance's lease lapsed: %+v, %v", got, err)
		}
		if _, _, err := s.b.Resume(ctx, "q", task.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("another principal's resume: %v", err)
		}
		resumed, input, err := s.b.Resume(ctx, "p", task.ID)
		if err != nil || resumed.Status != Working || resumed.Owner != s.b.Instance() || resumed.Input != "" || string(input) != `{"round":1}` {
			t.Fatalf("resume: %+v %q, %v", resumed, input, err)
		}
		if _, _, err := s.a.Resume(ctx, "p", task.ID); !errors.Is(err, ErrNotAsking) {
			t.Fatalf("a second resume of the round: %v", err)
		}
		if got, err := s.a.Get(ctx, "p", task.ID); err != nil || got.Status != Working {
			t.Fatalf("after the resume, b's lease held: %+v, %v", got, err)
		}
		if _, err := s.b.Ask(ctx, task.ID, "again", []byte(`{"round":2}`)); err != nil {
			t.Fatal(err)
		}
		if c, err := s.a.Cancel(ctx, "p", task.ID, "no"); err != nil || c.Status != Cancelled || c.Input != "" {
			t.Fatalf("cancel of a task that asks: %+v, %v", c, err)
		}
		if _, _, err := s.a.Resume(ctx, "p", task.ID); !errors.Is(err, ErrTerminal) {
			t.Fatalf("resume of a cancelled task: %v", err)
		}
		if _, err := s.a.Ask(ctx, task.ID, "late", nil); !errors.Is(err, ErrTerminal) {
			t.Fatalf("ask of a cancelled task: %v", err)
		}

		// Without a round (2025-11-25) the call still runs, waiting for
		// its client: a renewal keeps it, a lapsed lease fails it.
		waiting, err := s.a.Create(ctx, Task{Principal: "p", Tool: "ask"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.a.Ask(ctx, waiting.ID, "waiting", nil); err != nil {
			t.Fatal(err)
		}
		if stopped, err := s.a.Renew(ctx, []string{waiting.ID}); err != nil || len(stopped) != 0 {
			t.Fatalf("renewal of a task whose call waits: %v, %v", stopped, err)
		}
		s.advance(2 * testLease)
		if got, err := s.b.Get(ctx, "p", waiting.ID); err != nil || got.Status != Failed {
			t.Fatalf("a waiting call, its instance's lease lapsed: %+v, %v", got, err)
		}
	})
}
