//go:build wine

package wineshim

import _ "unsafe" // for go:linkname

// Go deletes a file with NtSetInformationFile(FileDispositionInformationEx,
// POSIX semantics) and falls back to the older FileDispositionInformation
// only on the statuses Windows gives for a missing feature; Wine 8.0 gives
// STATUS_NOT_IMPLEMENTED, so every os.Remove and os.RemoveAll — t.TempDir's
// cleanup included — fails with "Invalid function". Go's own switch to the
// fallback (internal/syscall/windows.TestDeleteatFallback) is set instead;
// the test binary is linked with -ldflags=-checklinkname=0, which lets it
// be named.
//
//go:linkname deleteatFallback internal/syscall/windows.TestDeleteatFallback
var deleteatFallback bool

func init() { deleteatFallback = true }
