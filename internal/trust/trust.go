// Package trust is vox-mcp's consent model (docs/security.md, "Consent:
// a repository grants itself nothing"). A repository's scan config is
// written by the repository, so what it asks for — env_allow, the
// variables env.get may read, and write_globs, the paths fs.write may
// write — is a request, not a grant. The person running vox-mcp grants
// it with `vox trust DIR`, which records the workspace root and the
// digest of the powers asked for in the user's config folder, never in
// the workspace; or directly, as an operator, with vox-mcp --allow-env
// and --allow-write. Until a record matches, and again whenever the
// powers asked for change, none is granted; unrelated edits of the config
// change no digest and need no new trust.
//
// This is the model direnv (direnv allow), mise (mise trust) and VS Code's
// Workspace Trust made familiar; it is written here because it is the
// product: no library keeps such records.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Powers are what a workspace's scan config asks for beyond reading the
// workspace. A widening setting added to the config later is a field
// here, so that it is in the digest and withheld until trusted.
type Powers struct {
	Env   []string `json:"env_allow,omitempty"`   // variables env.get may read
	Write []string `json:"write_globs,omitempty"` // paths fs.write may write
}

// Normal returns p with each list sorted and without repeats: the form
// the digest is taken of, so that reordering the config needs no new
// trust.
func (p Powers) Normal() Powers {
	norm := func(xs []string) []string {
		out := slices.Clone(xs)
		slices.Sort(out)
		return slices.Compact(out)
	}
	return Powers{Env: norm(p.Env), Write: norm(p.Write)}
}

// Empty reports whether p asks for nothing.
func (p Powers) Empty() bool { return len(p.Env) == 0 && len(p.Write) == 0 }

// Digest is "sha256:" and the hex SHA-256 of the normal form's JSON: the
// powers, not the file, so that only a change of what is asked for makes
// a record stale.
func (p Powers) Digest() string {
	n := p.Normal()
	b, _ := json.Marshal(struct {
		Version int      `json:"v"`
		Env     []string `json:"env_allow"`
		Write   []string `json:"write_globs"`
	}{1, orEmpty(n.Env), orEmpty(n.Write)})
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// String describes p for messages: "env_allow GITHUB_TOKEN, HOME;
// write_globs out/**", or "nothing".
func (p Powers) String() string {
	var parts []string
	if len(p.Env) > 0 {
		parts = append(parts, "env_allow "+strings.Join(p.Env, ", "))
	}
	if len(p.Write) > 0 {
		parts = append(parts, "write_globs "+strings.Join(p.Write, ", "))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// Operator is what the person starting vox-mcp (or vox run) grants
// directly, for CI and containers: --allow-env NAME and --allow-write
// GLOB. An operator's write glob also opens the protected paths it
// matches (internal/protect).
type Operator struct {
	Env   []string
	Write []string
}

// State says why a workspace has the powers it has.
type State int

// The states of a grant.
const (
	// NothingAsked: the scan config asks for no power.
	NothingAsked State = iota
	// Trusted: a record of vox trust matches the powers asked for.
	Trusted
	// Untrusted: no record names the workspace.
	Untrusted
	// Changed: a record names the workspace, but the powers asked for
	// changed since.
	Changed
	// Unreadable: the records could not be read; nothing is granted.
	Unreadable
)

// Grant is what a workspace's calls may do: the powers a matching record
// grants, and the operator's.
type Grant struct {
	Root      string // the workspace root, canonical (Canonical) when it exists
	Requested Powers // what the scan config asks for, normal form
	State     State
	// Env are the variables env.get may read: the requested ones when
	// trusted, and the operator's.
	Env []string
	// Write are the repository's write globs when trusted; OperatorWrite
	// the operator's.
	Write, OperatorWrite []string
	// Withheld is what was asked for and is not granted.
	Withheld Powers
	// Err is why the records could not be read (State Unreadable).
	Err error
}

// Decide grants a workspace's requested powers when a record of store
// matches them, and the operator's in every case. A nil store grants
// only the operator's.
func Decide(root string, requested Powers, op Operator, store *Store) Grant {
	req := requested.Normal()
	if canon, err := Canonical(root); err == nil {
		root = canon
	}
	g := Grant{Root: root, Requested: req, OperatorWrite: slices.Clone(op.Write)}
	switch {
	case req.Empty():
		g.State = NothingAsked
	case store == nil:
		g.State = Untrusted
	default:
		rec, found, err := store.Lookup(root)
		switch {
		case err != nil:
			g.State, g.Err = Unreadable, err
		case !found:
			g.State = Untrusted
		case rec.Digest != req.Digest():
			g.State = Changed
		default:
			g.State = Trusted
		}
	}
	if g.State == Trusted {
		g.Env, g.Write = slices.Clone(req.Env), slices.Clone(req.Write)
	} else {
		for _, name := range req.Env {
			if !slices.Contains(op.Env, name) {
				g.Withheld.Env = append(g.Withheld.Env, name)
			}
		}
		g.Withheld.Write = slices.Clone(req.Write)
	}
	for _, name := range op.Env {
		if !slices.Contains(g.Env, name) {
			g.Env = append(g.Env, name)
		}
	}
	return g
}

// Reason says why the withheld powers are withheld, for the log and the
// denials: "" when nothing is.
func (g Grant) Reason() string {
	if g.Withheld.Empty() {
		return ""
	}
	switch g.State {
	case Changed:
		return "the scan config asks for other powers than when this workspace was trusted"
	case Unreadable:
		return fmt.Sprintf("the trust records cannot be read (%v)", g.Err)
	}
	return "this workspace is not trusted"
}

// Hint is the one sentence every withheld power's message ends with: the
// command that grants the powers, and the operator's flags.
func (g Grant) Hint() string {
	return fmt.Sprintf("run `vox trust %s` to grant what its scan config asks for, or grant directly with --allow-env NAME and --allow-write GLOB", shellQuote(g.Root))
}

// shellQuote quotes p for a POSIX shell when it needs it.
func shellQuote(p string) string {
	if p != "" && !strings.ContainsFunc(p, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '\\' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
