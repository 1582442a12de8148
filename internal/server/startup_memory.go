package server

import "runtime/debug"

// returnStartupMemory gives the operating system back the heap pages that
// the start-up work used and freed, when Options.ReturnStartupMemory is
// set: it runs once the first workspace scan has ended (and recorded the
// surface, workspace_cache.go) and once the sandbox self-test has ended.
//
// Why (docs/benchmarks.md, "Resident memory at start-up"): that work — the
// scan or the record's check, the catalog's schemas, the self-test's fork
// — allocates a few megabytes that are garbage once it ends, and the Go
// runtime keeps freed pages while the heap is under its 4 MB minimum goal,
// so an idle server kept about 1 MB of resident memory it no longer used.
// debug.FreeOSMemory collects and returns them at once; it costs one
// collection of a small heap (well under a millisecond), after the first
// tools/list has been answered, so neither the cold start nor the calls
// pay it.
func (s *Server) returnStartupMemory() {
	if s.opts.ReturnStartupMemory {
		debug.FreeOSMemory()
	}
}
