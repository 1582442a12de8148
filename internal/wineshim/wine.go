package wineshim

import "testing"

// symlinksReason is why a test that makes symbolic links cannot run under
// Wine: Wine 8.0's CreateSymbolicLinkW is a stub that reports success and
// creates nothing, so os.Symlink returns nil and the link is missing
// (docs/platforms.md, "Skipped under Wine").
const symlinksReason = "under Wine 8.0 os.Symlink succeeds but creates nothing (CreateSymbolicLinkW is a stub): this test's links would be missing"

// SkipSymlinks skips t when the test binary runs under Wine (built with
// -tags wine by make test-windows), because the test needs the symbolic
// links it makes; on Windows and everywhere else it does nothing.
func SkipSymlinks(t testing.TB) {
	t.Helper()
	if Wine {
		t.Skip(symlinksReason)
	}
}
