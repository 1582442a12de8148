//go:build race

package transport

// raceEnabled: the race detector's sync.Pool drops a share of what is put
// back, so allocation counts are not exact under it.
const raceEnabled = true
