// Package buildinfo reports the version and commit a binary was built from.
//
// Release builds stamp both through -ldflags
// ("-X github.com/vox-lang/vox-mcp/internal/buildinfo.version=v1.2.3
// -X github.com/vox-lang/vox-mcp/internal/buildinfo.commit=abc123"); other
// builds fall back to what the Go toolchain recorded: the module version
// (usually "(devel)") and the VCS revision.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Set by -ldflags -X in release builds; empty otherwise.
var (
	version string
	commit  string
)

var resolved = sync.OnceValues(func() (string, string) {
	v, c := version, commit
	if v != "" && c != "" {
		return v, c
	}
	info, ok := debug.ReadBuildInfo()
	if v == "" {
		v = "(devel)"
		if ok && info.Main.Version != "" {
			v = info.Main.Version
		}
	}
	if c == "" {
		c = "unknown"
		if ok {
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" {
					c = s.Value
				}
			}
		}
	}
	return v, c
})

// Version is the stamped release version, or the module version the
// toolchain recorded ("(devel)" for builds from a working copy).
func Version() string { v, _ := resolved(); return v }

// Commit is the stamped commit, or the VCS revision the toolchain recorded,
// or "unknown".
func Commit() string { _, c := resolved(); return c }

// Line is the --version output of a binary: "<binary> <version> <commit>".
func Line(binary string) string { return binary + " " + Version() + " " + Commit() }
