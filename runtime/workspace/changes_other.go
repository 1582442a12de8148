//go:build !linux

package workspace

// changeTracker is Linux's inotify (changes_linux.go); elsewhere every
// call stats its tool's file (docs/federation.md §3).
type changeTracker struct{}

func processTracker() *changeTracker { return nil }

func (*changeTracker) settled() uint64 { return 0 }

func (*changeTracker) watch(*trackedDirs, map[string]bool) (bool, uint64) { return false, 0 }

func (*changeTracker) release(*trackedDirs) {}

func (*changeTracker) tornCount() uint64 { return 0 }

func watchedFS(string) bool { return false }

func (*changeTracker) beginChanges(*trackedDirs) {}

func (*changeTracker) watchDir(*trackedDirs, string) bool { return false }

func (*changeTracker) takeChanges(*trackedDirs) ([]string, bool) { return nil, false }

func (*changeTracker) watchEntries(*trackedDirs, map[string]map[string]bool) (bool, uint64) {
	return false, 0
}
