package sandbox

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// The macOS sandbox is a Seatbelt profile (SBPL, the Scheme dialect of
// sandbox-exec(1)) generated from the policy of docs/sandbox.md, "macOS":
// deny by default; read, but not write, the skill folder
// and the system folders a command needs to start; read and write only
// the run's private temporary folder; no network; nothing else of the
// home or the workspace. The generator is platform-neutral so that its
// output is golden-tested on every host (testdata/seatbelt/).

// seatbeltSystemReads are the folders and files a command may read (and
// execute from) besides the skill folder and the temporary folder, each
// with why it is needed. macOS resolves every path before Seatbelt checks
// it, so these are the real paths (/private/etc, not /etc).
var seatbeltSystemReads = []struct {
	filter, path, why string
}{
	// The shell, the standard tools and their libraries: /usr/bin,
	// /usr/lib (libSystem and every dylib), /usr/libexec, /usr/share
	// (locale and terminfo data) and /usr/local/bin of PATH, as /usr is
	// bound whole on Linux.
	{"subpath", "/usr", "the tools of PATH and their libraries"},
	{"subpath", "/bin", "/bin/sh and the base tools"},
	{"subpath", "/sbin", "base tools some scripts call by path (sbin of PATH on Linux too)"},
	// Frameworks and the dyld shared cache, which holds every system
	// library since macOS 11: /System/Library/dyld on 11 and 12,
	// /System/Volumes/Preboot/Cryptexes/OS/System/Library/dyld from 13.
	{"subpath", "/System", "system frameworks and the dyld shared cache"},
	// The dyld shared cache of macOS 10.15 and earlier.
	{"subpath", "/private/var/db/dyld", "the dyld shared cache before macOS 11"},
	// /bin/sh is a launcher that reads this symlink to pick the shell
	// (bash, dash or zsh) it executes.
	{"literal", "/private/var/select/sh", "/bin/sh reads it to choose the shell"},
	// Certificates, as /etc/ssl is bound on Linux.
	{"subpath", "/private/etc/ssl", "certificates"},
}

// seatbeltDevices may be read and written: the sink and the sources of
// zeros and randomness, as the Linux sandbox binds them. No tty: a command
// that opened the terminal vox-mcp was started from could inject input.
var seatbeltDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"}

// seatbeltSymlinks are the root's symlinks into /private: a path through
// them (/tmp/..., /var/...) is resolved, which reads the link itself.
var seatbeltSymlinks = []string{"/etc", "/tmp", "/var"}

// seatbeltProfile is the profile of a run whose skill folder is skillDir
// and whose private temporary folder is tempDir, both absolute, clean and
// free of symlinks (Seatbelt compares the resolved path of every access).
// A path that cannot be written as an SBPL string literal is refused.
// Paths are macOS paths on every system, read with package path (not
// filepath), so the profile is generated and tested alike under Wine.
func seatbeltProfile(skillDir, tempDir string) (string, error) {
	for _, p := range []struct{ what, path string }{{"skill folder", skillDir}, {"temporary folder", tempDir}} {
		if !path.IsAbs(p.path) || path.Clean(p.path) != p.path || p.path == "/" {
			return "", fmt.Errorf("sandbox: seatbelt profile: the %s %q is not a clean absolute path below /", p.what, p.path)
		}
	}
	skill, err := sbplString(skillDir)
	if err != nil {
		return "", fmt.Errorf("sandbox: seatbelt profile: skill folder: %w", err)
	}
	temp, err := sbplString(tempDir)
	if err != nil {
		return "", fmt.Errorf("sandbox: seatbelt profile: temporary folder: %w", err)
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("(version 1)")
	line(";; vox-mcp skill sandbox (docs/sandbox.md, \"macOS\"): deny by default.")
	line("(deny default)")
	line("")
	line(";; Start processes: fork, and execute only what may be read below.")
	line("(allow process-fork)")
	line("(allow process-exec (subpath \"/usr\") (subpath \"/bin\") (subpath \"/sbin\") (subpath %s) (subpath %s))", skill, temp)
	line(";; Signal and inspect only the run's own processes (job control, kill %%1).")
	line("(allow signal (target same-sandbox))")
	line("(allow process-info* (target same-sandbox))")
	line(";; Read-only kernel settings (hw.ncpu, kern.osversion): the C library and most runtimes ask at start.")
	line("(allow sysctl-read)")
	line("")
	line(";; The system folders a command needs, read-only.")
	for _, r := range seatbeltSystemReads {
		line("(allow file-read* (%s %s)) ; %s", r.filter, mustSBPL(r.path), r.why)
	}
	line(";; The root's symlinks into /private, read to resolve paths through them.")
	for _, l := range seatbeltSymlinks {
		line("(allow file-read-metadata (literal %s))", mustSBPL(l))
	}
	line(";; Devices: no tty. /dev/fd/N (and /dev/stdin, a symlink to it) only duplicates a descriptor the process has.")
	for _, d := range seatbeltDevices {
		line("(allow file-read* file-write-data (literal %s))", mustSBPL(d))
	}
	line("(allow file-read* file-write-data (subpath \"/dev/fd\"))")
	for _, d := range []string{"/dev/stdin", "/dev/stdout", "/dev/stderr"} {
		line("(allow file-read-metadata (literal %s))", mustSBPL(d))
	}
	line("")
	line(";; The folders above the skill and temporary folders: their metadata only (getcwd, realpath),")
	line(";; not their entries or files.")
	for _, a := range ancestors(skillDir, tempDir) {
		line("(allow file-read-metadata (literal %s))", mustSBPL(a)) // a prefix of a path accepted above
	}
	line(";; The skill folder, read-only.")
	line("(allow file-read* (subpath %s))", skill)
	line(";; The run's private temporary folder: working folder and $HOME, read-write.")
	line("(allow file-read* file-write* (subpath %s))", temp)
	line("")
	line(";; No network: no network-outbound, network-inbound or network-bind is allowed, so sockets")
	line(";; connect nowhere, not even to the loopback interface or a local socket of the host.")
	line(";; No mach-lookup, iokit or ipc is allowed either: the host's services are out of reach.")
	return b.String(), nil
}

// ancestors lists, sorted and without repeats, the folders above each
// path, / included.
func ancestors(paths ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		for d := path.Dir(p); ; d = path.Dir(d) {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
			if d == "/" {
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// mustSBPL is sbplString of a path known to be acceptable: a constant, or
// a prefix of a path sbplString accepted.
func mustSBPL(s string) string {
	q, err := sbplString(s)
	if err != nil {
		panic(err)
	}
	return q
}

// sbplString writes s as an SBPL string literal: in double quotes, with
// backslash and double quote escaped by a backslash, so that the string
// cannot end early and add rules. Control characters (a newline, a NUL)
// and bytes that are not UTF-8 are refused rather than escaped: the
// profile reader's escapes beyond \\ and \" are not documented, and a
// path holding them would be matched against a string nobody can check.
func sbplString(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("path %q is not valid UTF-8; a sandbox profile cannot name it", s)
	}
	for i, r := range s {
		if r < 0x20 || r == 0x7f {
			return "", fmt.Errorf("path %q holds the control character %U at byte %d; a sandbox profile cannot name it: rename the folder", s, r, i)
		}
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String(), nil
}
