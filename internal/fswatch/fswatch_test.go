package fswatch

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A burst of relevant events settles into one OnChange; an irrelevant
// event calls nothing.
func TestRunSettlesABurstIntoOneCall(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	changed := make(chan struct{}, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	synced := make(chan struct{}, 10)
	go func() {
		done <- Run(ctx, Options{
			What:     "the test folder",
			Debounce: 150 * time.Millisecond,
			Sync: func(w *fsnotify.Watcher) error {
				defer func() { synced <- struct{}{} }()
				return w.Add(dir)
			},
			Relevant:     func(ev fsnotify.Event) bool { return filepath.Ext(ev.Name) == ".vox" },
			OnError:      func(error) bool { return false },
			OnChange:     func() { calls.Add(1); changed <- struct{}{} },
			StartPolling: func() func() { t.Error("polled although watching works"); return func() {} },
		})
	}()
	<-synced
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(dir, "a.vox"), []byte{byte('a' + i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no OnChange after the burst")
	}
	<-synced // the watches are brought in step after the call
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("OnChange called %d times for one burst, want 1", n)
	}
}

// A system without watches left polls instead.
func TestRunPollsWhenWatchesAreExhausted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	polls := 0
	err := Run(ctx, Options{
		Sync:         func(*fsnotify.Watcher) error { return syscall.ENOSPC },
		Relevant:     func(fsnotify.Event) bool { return true },
		OnError:      func(error) bool { return false },
		OnChange:     func() {},
		StartPolling: func() func() { return func() { polls++; cancel() } },
		PollInterval: time.Millisecond,
	})
	if err != nil || polls == 0 {
		t.Errorf("Run = %v after %d polls; want nil after polling", err, polls)
	}
}

// With CatchUp, a change made before the watches were placed (no event
// will ever tell of it) is caught by one OnChange after the first Sync;
// without it, Run waits for an event.
func TestRunCatchesUpAfterTheFirstSync(t *testing.T) {
	for _, catchUp := range []bool{true, false} {
		changed := make(chan struct{}, 1)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Run(ctx, Options{
				What:         "the test folder",
				Debounce:     10 * time.Millisecond,
				Sync:         func(w *fsnotify.Watcher) error { return w.Add(t.TempDir()) },
				Relevant:     func(fsnotify.Event) bool { return true },
				OnError:      func(error) bool { return false },
				OnChange:     func() { changed <- struct{}{} },
				StartPolling: func() func() { return func() {} },
				CatchUp:      catchUp,
			})
		}()
		wait := 300 * time.Millisecond // nothing must come
		if catchUp {
			wait = 20 * time.Second // the call must come
		}
		select {
		case <-changed:
			if !catchUp {
				t.Error("OnChange without CatchUp and without an event")
			}
		case <-time.After(wait):
			if catchUp {
				t.Error("no OnChange after the first Sync with CatchUp")
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
