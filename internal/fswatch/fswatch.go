// Package fswatch is the loop both watchers of vox-mcp --watch share —
// the workspace's (docs/federation.md §4) and the skill folders'
// (docs/skills.md §2): fsnotify events, filtered, settle into one call
// after a quiet time; the watch set is brought in step after each call;
// and when the system has no watches left, the watcher polls instead.
package fswatch

import (
	"context"
	"errors"
	"log/slog"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options configure Run.
type Options struct {
	// What names the watched things in the log ("the workspace").
	What string
	Log  *slog.Logger
	// Debounce is the quiet time before OnChange.
	Debounce time.Duration
	// Sync makes w's watches what is wanted now. Run calls it before the
	// first event and after every OnChange; an error for which Exhausted
	// is true switches to Poll.
	Sync func(w *fsnotify.Watcher) error
	// Relevant reports whether an event may change what is watched for.
	Relevant func(fsnotify.Event) bool
	// OnError is told of an error of the watcher (such as a queue
	// overflow, which lost events) and reports whether to call OnChange as
	// for an event.
	OnError func(error) (changed bool)
	// OnChange runs after a burst of relevant events has settled; calls
	// never overlap.
	OnChange func()
	// StartPolling is called when the system cannot watch (no inotify
	// instance, or no watches left); the poll it returns then runs every
	// PollInterval until ctx is done.
	StartPolling func() (poll func())
	PollInterval time.Duration
	// CatchUp makes Run call OnChange once after the first Sync, as for a
	// change: what changed between the caller's load and the watches being
	// in place has no event, and placing thousands of watches on a loaded
	// machine takes seconds.
	CatchUp bool
	// Resync, when a value arrives, makes Run call Sync without a change:
	// what is wanted grew (a resource read a file in a new folder).
	Resync <-chan struct{}
}

// Exhausted reports an error of a system out of inotify watches or
// instances.
func Exhausted(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE)
}

// Run watches until ctx is done. It returns Sync's first error unless
// that error is Exhausted (then it polls), and nil when ctx ends.
func Run(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		o.Log.Warn("cannot watch "+o.What+"; polling instead", "err", err, "every", o.PollInterval)
		return poll(ctx, o)
	}
	defer fw.Close()
	exhausted := func(err error) error {
		o.Log.Warn("the system has no file watches left (raise fs.inotify.max_user_watches); polling "+o.What+" instead", "err", err, "every", o.PollInterval)
		fw.Close()
		return poll(ctx, o)
	}
	if err := o.Sync(fw); err != nil {
		if Exhausted(err) {
			return exhausted(err)
		}
		return err
	}
	var timer *time.Timer
	var fire <-chan time.Time
	settle := func() {
		if timer == nil {
			timer = time.NewTimer(o.Debounce)
		} else {
			timer.Reset(o.Debounce)
		}
		fire = timer.C
	}
	if o.CatchUp {
		settle()
	}
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if o.Relevant(ev) {
				settle()
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			if o.OnError(err) {
				settle()
			}
		case <-o.Resync:
			if err := o.Sync(fw); err != nil {
				if Exhausted(err) {
					return exhausted(err)
				}
				o.Log.Warn("cannot update the watches of "+o.What, "err", err)
			}
		case <-fire:
			fire = nil
			o.OnChange()
			if err := o.Sync(fw); err != nil {
				if Exhausted(err) {
					return exhausted(err)
				}
				o.Log.Warn("cannot update the watches of "+o.What, "err", err)
			}
		}
	}
}

// poll polls every o.PollInterval until ctx is done.
func poll(ctx context.Context, o Options) error {
	tick := o.StartPolling()
	t := time.NewTicker(o.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			tick()
		}
	}
}
