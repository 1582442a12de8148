// Package wineshim adapts Go's Windows runtime to Wine 8.0 (Debian 12) in
// the Windows tests run under it (make test-windows builds them with
// -tags wine). The test packages import it from a wine-tagged file; no
// product binary links it.
package wineshim
