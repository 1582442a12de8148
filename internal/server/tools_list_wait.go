package server

import (
	"context"
	"time"
)

// firstListWait bounds how long a tools/list waits for the first scan
// (docs/federation.md §6, "The first list"). The first scan of a
// repository of a few hundred tools takes tens of milliseconds, of
// thousands well under a second even on a busy machine; 5 s leaves that
// room many times over, and is half the shortest request timeout of the
// common clients (the MCP Inspector's 10 s), so a list that waits its
// whole bound is still answered before the client gives up. A test sets
// it smaller.
var firstListWait = 5 * time.Second

// waitFirstList makes a tools/list made before the first scan ends wait
// for it, at most firstListWait, when the server started cold: neither
// the generated snapshot nor the surface cache could answer, so the list
// would lack every workspace tool, and a client that ignores
// notifications/tools/list_changed (many do) would never see them. A list
// past the bound is answered with what is registered, and list_changed
// follows when the scan installs its tools. A warm start (snapshot or
// record) answers at once, as does every list once the scan is
// installed, and every list when the workspace tools are not advertised
// (Options.WorkspaceTools). Over stdio the wait holds the reading of the next requests,
// as any request mcp-go answers in its read loop does.
func (s *Server) waitFirstList(ctx context.Context) {
	w := s.workspace
	// Workspace tools without the opt-in are not listed: the scan
	// cannot change the list.
	if w == nil || !w.cold || !w.advertise {
		return
	}
	select {
	case <-w.ready:
		return
	default:
	}
	// As a request waiting for the first scan does (waitFirstScan), it
	// lets a record check start; tests see from w.check that a list waits.
	w.checkNow()
	ctx, cancel := context.WithTimeout(ctx, firstListWait)
	defer cancel()
	_ = w.wait(ctx) // past the bound, what is registered is listed
}
