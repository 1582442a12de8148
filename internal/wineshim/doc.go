// Package wineshim adapts Go's Windows runtime to Wine 8.0 (Debian 12) in
// the Windows tests run under it (make test-windows builds them with
// -tags wine), and lets a test skip what Wine cannot do (SkipSymlinks).
// Only test files import it; no product binary links it.
package wineshim
