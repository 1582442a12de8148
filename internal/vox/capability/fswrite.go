package capability

import (
	"context"
	"errors"
	"io/fs"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// fs.write is the one writing capability (docs/vox-language.md,
// Capabilities). Writing is how a tool changes the workspace it is served
// from, and the workspace holds what git, editors, agents and vox-mcp
// itself run, so a write is allowed only when all of these hold
// (docs/security.md, "Writes never reach what runs"):
//
//   - the person granted it: the path matches an operator's --allow-write
//     glob, or one of the scan config's write_globs that vox trust
//     granted;
//   - a repository glob never opens a protected path (internal/protect:
//     .git, the scan config, .vox files, skill roots, agent and editor
//     configurations); only an operator glob that matches it does;
//   - no component of the path is a symbolic link (safefs.ReplaceFile),
//     so the path checked is the file written.

// fsWrite writes text to a granted path: whole (a file beside it,
// renamed over it, so that a reader or the watcher never sees half of
// it), creating missing parent folders, following no symbolic link. It
// returns the bytes written.
func fsWrite(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	p := strArg(th, "fs", "write", args[0])
	text := strArg(th, "fs", "write", args[1])
	rel := confine(th, "write", p)
	checkWrite(th, c.Powers, rel)
	th.Charge(int64(len(text)))
	if replaying(th.Context()) {
		// This write was made in an earlier round of the call: the replay
		// answers as that round did, without writing again.
		return eval.OkVal(eval.Int(int64(len(text))))
	}
	root, err := safefs.OpenRoot(c.Root)
	if err != nil {
		th.Failf("fs.write: cannot open the workspace root: %v", err)
	}
	defer root.Close()
	if err := root.ReplaceFile(rel, []byte(text), 0o644); err != nil {
		return writeErr(th, p, rel, err)
	}
	return eval.OkVal(eval.Int(int64(len(text))))
}

// checkWrite fails the call unless the powers let it write rel.
func checkWrite(th *eval.Thread, pw *Powers, rel string) {
	if pw != nil && matchAny(pw.OperatorWrite, rel) {
		return
	}
	if pw != nil {
		if rule, ok := pw.Protected.Match(rel); ok {
			th.Failf("capability denied: fs.write to %s: protected (%s: %s); the scan config's write_globs never open it, only vox-mcp --allow-write naming it does", rel, rule.Pattern, rule.Why)
		}
		if matchAny(pw.Write, rel) {
			return
		}
		if matchAny(pw.WithheldWrite, rel) {
			th.Failf("capability denied: fs.write to %s: the scan config's write_globs allow it, but %s; %s", rel, pw.Reason, pw.Hint)
		}
	}
	if pw == nil || len(pw.Write)+len(pw.WithheldWrite)+len(pw.OperatorWrite) == 0 {
		th.Failf("capability denied: fs.write: the scan config allows no writes; list the paths tools may write in its write_globs")
	}
	th.Failf("capability denied: fs.write to %s: it matches none of the scan config's write_globs", rel)
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

// matchAny reports whether a cleaned workspace path matches a glob.
func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// writeErr turns what safefs refused into the call's outcome: a link on
// the path or a path leaving the workspace fails the call as a denied
// capability; anything else (a folder in the way, a full disk) is the Err
// value a tool can match.
func writeErr(th *eval.Thread, p, rel string, err error) eval.Value {
	var pe *fs.PathError
	at := rel
	if errors.As(err, &pe) {
		at, err = pe.Path, pe.Err
	}
	switch {
	case errors.Is(err, safefs.ErrSymlink):
		th.Failf("capability denied: fs.write to %s: %s is a symbolic link, and fs.write follows none", rel, at)
	case errors.Is(err, safefs.ErrEscapes):
		th.Failf("capability denied: fs.write outside the workspace")
	}
	if nr := (*safefs.NotRegularError)(nil); errors.As(err, &nr) {
		return eval.ErrVal(eval.Str(p + ": is " + safefs.KindOf(nr.Mode) + "; fs.write writes regular files only"))
	}
	if at != rel {
		return eval.ErrVal(eval.Str(p + ": " + at + ": " + err.Error()))
	}
	return eval.ErrVal(eval.Str(p + ": " + err.Error()))
}
