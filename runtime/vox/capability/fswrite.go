package capability

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vox-lang/vox-mcp/runtime/vox/eval"
)

// fs.write is the one writing capability (docs/vox-language.md,
// Capabilities): a repository opts in with write_globs in its scan config,
// and a tool may then write text files whose workspace paths match one of
// them, and nothing else. Writing is how a tool changes the workspace it
// is served from — a new .vox file is a new tool once the server
// refreshes (vox-mcp --watch) — so every other write stays denied.

// fsWrite writes text to a file matching the write globs: whole (a file
// beside it, renamed over it, so that a reader or the watcher never sees
// half of it), creating missing parent folders, never following a
// symbolic link out of the workspace. It returns the bytes written.
func fsWrite(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	p := strArg(th, "fs", "write", args[0])
	text := strArg(th, "fs", "write", args[1])
	rel := confine(th, "write", p)
	if !writable(c.WriteGlobs, rel) {
		if len(c.WriteGlobs) == 0 {
			th.Failf("capability denied: fs.write: the scan config allows no writes; list the paths tools may write in its write_globs")
		}
		th.Failf("capability denied: fs.write to %s: it matches none of the scan config's write_globs", rel)
	}
	th.Charge(int64(len(text)))
	if replaying(th.Context()) {
		// This write was made in an earlier round of the call: the replay
		// answers as that round did, without writing again.
		return eval.OkVal(eval.Int(int64(len(text))))
	}
	root, err := os.OpenRoot(c.Root)
	if err != nil {
		th.Failf("fs.write: cannot open the workspace root: %v", err)
	}
	defer root.Close()
	if dir := path.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return writeErr(th, p, err)
		}
	}
	if info, err := root.Lstat(rel); err == nil && !info.Mode().IsRegular() {
		return eval.ErrVal(eval.Str(p + ": is " + kindOf(info.Mode()) + "; fs.write writes regular files only"))
	}
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+".vox-write-"+randomSuffix())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return writeErr(th, p, err)
	}
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Rename(tmp, rel)
	}
	if werr != nil {
		_ = root.Remove(tmp)
		return writeErr(th, p, werr)
	}
	return eval.OkVal(eval.Int(int64(len(text))))
}

// replayingKey carries, in a call's context, whether the call is being
// replayed up to its last answered question (protocol 2026-07-28 runs a
// tool that asked its client again from the start: docs/vox-language.md,
// Asking the user and the model).
type replayingKey struct{}

// WithReplaying returns ctx for a call that reports through replaying
// whether it is still before its last recorded answer: fs.write writes
// nothing meanwhile, so a tool's writes happen once however many rounds
// its questions take.
func WithReplaying(ctx context.Context, replaying func() bool) context.Context {
	return context.WithValue(ctx, replayingKey{}, replaying)
}

func replaying(ctx context.Context) bool {
	f, _ := ctx.Value(replayingKey{}).(func() bool)
	return f != nil && f()
}

// writable reports whether a cleaned workspace path matches a write glob.
func writable(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

func writeErr(th *eval.Thread, p string, err error) eval.Value {
	if isEscape(err) {
		th.Failf("capability denied: fs.write outside the workspace")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return eval.ErrVal(eval.Str(p + ": " + err.Error()))
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
