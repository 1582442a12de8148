package workspace

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/protect"
	"github.com/vox-lang/vox-mcp/internal/trust"
	"github.com/vox-lang/vox-mcp/internal/vox/capability"
)

// Requested is what the scan config asks for beyond reading the
// workspace: a request that the person running vox-mcp grants or not
// (docs/security.md, "Consent: a repository grants itself nothing").
func (c *Config) Requested() trust.Powers {
	if c == nil {
		return trust.Powers{}
	}
	return trust.Powers{Env: c.EnvAllow, Write: c.WritePatterns()}
}

// Consent decides what the calls of a workspace may do: the powers its
// scan config asks for when a vox trust record matches them, and the
// operator's in every case; the paths of internal/protect are never
// writable through the repository's globs.
type Consent struct {
	// Operator is what --allow-env and --allow-write grant directly.
	Operator trust.Operator
	// Store holds the vox trust records; nil grants nothing the config
	// asks for.
	Store *trust.Store
	// ProtectDirs are more folders, absolute, whose content no repository
	// grant makes writable when the workspace holds them: the skill roots
	// of VOX_SKILL_ROOTS. The user's vox-mcp config folder (the trust
	// records) and cache folder are always added.
	ProtectDirs []string
}

// DefaultConsent is the consent of a process run by the user: the
// records of trust.DefaultStore (none when the user has no config folder)
// and the given operator grant.
func DefaultConsent(op trust.Operator, protectDirs []string) *Consent {
	store, err := trust.DefaultStore()
	if err != nil {
		store = nil
	}
	return &Consent{Operator: op, Store: store, ProtectDirs: protectDirs}
}

// Powers returns the powers of calls on the workspace at root with the
// scan config cfg, and the grant they come from. A nil Consent grants
// nothing.
func (c *Consent) Powers(root string, cfg *Config) (*capability.Powers, trust.Grant) {
	if c == nil {
		c = &Consent{}
	}
	g := trust.Decide(root, cfg.Requested(), c.Operator, c.Store)
	var scan []string
	if cfg != nil {
		for _, sg := range cfg.ScanGlobs {
			scan = append(scan, sg.Pattern)
		}
	}
	dirs := c.protectedDirs(root)
	p := &capability.Powers{
		Env:           g.Env,
		Write:         g.Write,
		OperatorWrite: g.OperatorWrite,
		Protected:     protect.New(protect.Options{ScanGlobs: scan, Dirs: dirs}),
		WithheldEnv:   g.Withheld.Env,
		WithheldWrite: g.Withheld.Write,
		Reason:        g.Reason(),
		Hint:          g.Hint(),
		Key:           fmt.Sprintf("%q %q %q %q %q %q %q %v", g.Env, g.Write, g.OperatorWrite, g.Withheld.Env, g.Withheld.Write, g.Reason(), scan, dirs),
	}
	return p, g
}

// protectedDirs are the folders of ProtectDirs and the user's vox-mcp
// folders that lie below root, relative to it.
func (c *Consent) protectedDirs(root string) []protect.Dir {
	type dir struct{ path, why string }
	var dirs []dir
	if d, err := trust.Dir(); err == nil {
		dirs = append(dirs, dir{d, "the user's vox-mcp config folder: the vox trust records"})
	}
	if d, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, dir{filepath.Join(d, "vox-mcp"), "the user's vox-mcp cache folder: recorded surfaces"})
	}
	for _, d := range c.ProtectDirs {
		dirs = append(dirs, dir{d, "a skill root: skills whose commands vox_skill_run runs"})
	}
	base := resolved(root)
	var out []protect.Dir
	for _, d := range dirs {
		rel, err := filepath.Rel(base, resolved(d.path))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, protect.Dir{Path: filepath.ToSlash(rel), Why: d.why})
	}
	return out
}

// resolved is p absolute with its symbolic links resolved as far as it
// exists, so that a folder named two ways compares equal.
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	// A folder not made yet: resolve its nearest existing parent.
	parent, name := filepath.Split(abs)
	parent = filepath.Clean(parent)
	if parent == abs {
		return abs
	}
	return filepath.Join(resolved(parent), name)
}

// LogWithheld logs, once, which powers the scan config asks for are
// withheld and why, and which the operator granted: the server calls it
// at start-up and when a refresh changes the grant.
func LogWithheld(log *slog.Logger, g trust.Grant) {
	if !g.Withheld.Empty() {
		log.Warn("the workspace's scan config asks for powers that are withheld: "+g.Reason()+"; "+g.Hint(),
			"root", g.Root, "withheld", g.Withheld.String(), "config", ConfigPath)
	}
	if g.State == trust.Trusted {
		log.Info("the workspace is trusted: its scan config's powers are granted", "root", g.Root, "granted", g.Requested.String())
	}
	if len(g.OperatorWrite) > 0 {
		log.Info("fs.write may write what --allow-write grants", "globs", strings.Join(g.OperatorWrite, ", "))
	}
}
