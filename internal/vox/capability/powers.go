package capability

import (
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/vox-lang/vox-mcp/internal/protect"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// Powers are what a call may do beyond reading its workspace: read named
// environment variables and write files (docs/security.md, "Consent: a
// repository grants itself nothing"). Whoever runs the interpreter builds
// them from what the person granted — a vox trust record matching the
// scan config's request, or the operator's --allow-env and --allow-write
// — never from the scan config alone. A nil *Powers grants nothing.
type Powers struct {
	// Env are the variables env.get reads.
	Env []string
	// Write are the repository's write_globs, granted by vox trust; they
	// never open a Protected path.
	Write []string
	// OperatorWrite are the operator's --allow-write globs; they open
	// every path they match, protected ones included.
	OperatorWrite []string
	// Protected are the paths no repository grant makes writable.
	Protected *protect.Set
	// WithheldEnv and WithheldWrite are what the scan config asks for and
	// was not granted, Reason why and Hint how to grant it: the denials
	// name them.
	WithheldEnv, WithheldWrite []string
	Reason, Hint               string
	// Key identifies what the powers grant and protect: two Powers with
	// one Key are the same, so a refresh that changes nothing keeps the
	// powers (and what is built from them) it had.
	Key string

	// warned records the withheld variables whose env.get was logged.
	warned sync.Map
}

// withheldEnv reports whether name was asked for and withheld, logging
// that once per name through the call's log.
func (p *Powers) withheldEnv(th *eval.Thread, name string) {
	if p == nil || !slices.Contains(p.WithheldEnv, name) {
		return
	}
	if _, done := p.warned.LoadOrStore(name, true); done {
		return
	}
	th.Log(slog.LevelWarn, []eval.Value{eval.Str("env.get(\"" + name + "\") returns None: the scan config's env_allow names it, but " + p.Reason + "; " + p.Hint)})
}

// CanWrite reports whether fs.write may write anything at all.
func (p *Powers) CanWrite() bool { return p != nil && len(p.Write)+len(p.OperatorWrite) > 0 }

func (p *Powers) env() []string {
	if p == nil {
		return nil
	}
	return p.Env
}

// Mutating reports whether a capability use, as the resolver records it
// (resolve.Module.Capabilities: "fs.write", or "fs.*" for a namespace
// used as a value), may change anything outside the call: fs.write, or a
// namespace holding it (fs, std) used as a value.
func Mutating(use string) bool {
	ns, fn, _ := strings.Cut(use, ".")
	for _, n := range table {
		if n.Name != ns {
			continue
		}
		if n.lib.Members {
			return true
		}
		for _, f := range n.Funcs {
			if f.mutates && (fn == "*" || fn == f.Name) {
				return true
			}
		}
	}
	return false
}
