package skills

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRehydrateKeepsUnchangedSkills(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("alpha", "First."))
	writeFile(t, filepath.Join(root, "beta", "SKILL.md"), skillMD("beta", "Second."))
	writeFile(t, filepath.Join(root, "beta", "notes.md"), "one")
	r := New(testConfig(t, root))
	r.Hydrate()
	alpha, _ := r.Snapshot().Get("alpha")
	beta, _ := r.Snapshot().Get("beta")

	if changed, _ := r.Rehydrate(); changed {
		t.Fatal("Rehydrate with nothing changed committed a new state")
	}

	// A file of beta grows: beta is loaded again, alpha stays as it was.
	writeFile(t, filepath.Join(root, "beta", "notes.md"), "one and two")
	if changed, _ := r.Rehydrate(); !changed {
		t.Fatal("Rehydrate missed a changed file")
	}
	snap := r.Snapshot()
	if in, _ := snap.Get("alpha"); in != alpha {
		t.Error("the unchanged skill alpha was loaded again")
	}
	if in, _ := snap.Get("beta"); in == beta {
		t.Error("the changed skill beta was not loaded again")
	}

	// A new skill folder appears.
	writeFile(t, filepath.Join(root, "gamma", "SKILL.md"), skillMD("gamma", "Third."))
	if changed, _ := r.Rehydrate(); !changed {
		t.Fatal("Rehydrate missed a new skill")
	}
	if _, ok := r.Snapshot().Get("gamma"); !ok {
		t.Error("the new skill gamma is not installed")
	}

	// A skill's description changes in SKILL.md, same size: the
	// modification time and the parsed skill tell.
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("alpha", "Fresh."))
	if changed, _ := r.Rehydrate(); !changed {
		t.Fatal("Rehydrate missed an edited SKILL.md")
	}
	if in, _ := r.Snapshot().Get("alpha"); in.Description != "Fresh." {
		t.Errorf("alpha's description is %q after the edit", in.Description)
	}
}

func TestRehydrateLeavesUninstalledSkillsOut(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("alpha", "First."))
	writeFile(t, filepath.Join(root, "beta", "SKILL.md"), skillMD("beta", "Second."))
	r := New(testConfig(t, root))
	r.Hydrate()
	if _, err := r.Uninstall("alpha"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "beta", "SKILL.md"), skillMD("beta", "Changed."))
	if changed, _ := r.Rehydrate(); !changed {
		t.Fatal("Rehydrate missed beta's change")
	}
	if _, ok := r.Snapshot().Get("alpha"); ok {
		t.Error("a watcher's reload brought back the uninstalled skill alpha")
	}
	// An explicit Hydrate (a refresh) reads every folder again.
	r.Hydrate()
	if _, ok := r.Snapshot().Get("alpha"); !ok {
		t.Error("Hydrate did not bring alpha back")
	}
}

func TestWatchReloadsChangedSkills(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("alpha", "First."))
	writeFile(t, filepath.Join(root, "alpha", "docs", "deep", "guide.md"), "v1")
	r := New(testConfig(t, root))
	r.Hydrate()

	reloads := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.Watch(ctx, WatchOptions{Debounce: 20 * time.Millisecond, Reloaded: func([]string) { reloads <- struct{}{} }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// The watches are set up asynchronously: keep touching until seen.
	waitReload := func(what string, change func(i int)) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			change(i)
			select {
			case <-reloads:
				return
			case <-tick.C:
			case <-deadline:
				t.Fatalf("no reload after %s", what)
			}
		}
	}
	before, _ := r.Snapshot().Get("alpha")
	waitReload("a file deep in a skill changed", func(i int) {
		writeFile(t, filepath.Join(root, "alpha", "docs", "deep", "guide.md"), "v2"+strings.Repeat("!", i))
	})
	if in, _ := r.Snapshot().Get("alpha"); in == before {
		t.Error("alpha was not loaded again")
	}
	waitReload("a new skill folder", func(int) {
		writeFile(t, filepath.Join(root, "beta", "SKILL.md"), skillMD("beta", "Second."))
	})
	if _, ok := r.Snapshot().Get("beta"); !ok {
		t.Error("the new skill beta is not installed")
	}
	waitReload("a skill folder removed", func(int) {
		if err := os.RemoveAll(filepath.Join(root, "beta")); err != nil {
			t.Fatal(err)
		}
	})
	if _, ok := r.Snapshot().Get("beta"); ok {
		t.Error("the removed skill beta is still installed")
	}
}

func TestWatchCapsItsFolders(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", "SKILL.md"), skillMD("alpha", "First."))
	for i := range 20 {
		if err := os.MkdirAll(filepath.Join(root, "alpha", "d", strings.Repeat("x", i+1)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := New(testConfig(t, root))
	r.Hydrate()
	var logs bytes.Buffer // folders logs synchronously
	w := &skillWatcher{r: r, opts: WatchOptions{MaxDirs: 5, Log: slog.New(slog.NewTextHandler(&logs, nil))}}
	if got := len(w.folders()); got != 5 {
		t.Errorf("watching %d folders, want the cap of 5", got)
	}
	if !strings.Contains(logs.String(), "more folders than are watched") {
		t.Errorf("no warning about the cap: %q", logs.String())
	}
}
