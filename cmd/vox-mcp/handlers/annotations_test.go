package handlers_test

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/internal/server"
)

// hintProbe is a call that shows what a catalog tool does: setup runs
// first (its effects are not observed), then the call.
type hintProbe struct {
	setup func(t *testing.T, s *server.Server, src string)
	args  string
}

// hintProbes has one probe per catalog tool; a tool without one fails
// TestEveryToolsHintsMatchItsBehaviour, so a new row needs a probe.
var hintProbes = map[string][]hintProbe{
	"vox_tool_search":           {{args: `{"query":"skill"}`}},
	"vox_workspace_mcp_refresh": {{args: `{}`}},
	"vox_check":                 {{args: `{"source":"fn f() to int { 1 }"}`}},
	"vox_skill_list":            {{args: `{}`}},
	"vox_skill_search":          {{args: `{"query":"pdf"}`}},
	"vox_skill_info":            {{args: `{"id":"pdf-forms"}`}},
	"vox_skill_use":             {{args: `{"id":"pdf-forms"}`}},
	"vox_skill_parse":           {{args: `{"skill_md":"---\nname: a\ndescription: b\n---\nbody\n"}`}},
	"vox_skill_install":         {{args: `{"skill_md":"---\nname: fresh\ndescription: A fresh skill.\n---\nbody\n"}`}},
	"vox_skill_uninstall":       {{args: `{"id":"release-notes"}`}},
	"vox_skill_discover":        {{args: `{}`}},
	// Adding from a folder writes files; from a git URL it reaches the
	// network, which this server may not.
	"vox_skill_add": {{args: `{"source":"SRC"}`}, {args: `{"source":"https://example.invalid/skills.git"}`}},
	"vox_skill_remove": {{
		setup: func(t *testing.T, s *server.Server, _ string) {
			ok(t, s, "vox_skill_install", `{"skill_md":"---\nname: doomed\ndescription: To be removed.\n---\nbody\n"}`)
		},
		args: `{"id":"doomed"}`,
	}},
	"vox_skill_run": {{args: `{"id":"release-notes","command":"echo spawned"}`}},
}

// observed is the state a probe may change: every file under the
// server's folders, the installed skills, whether the session may call a
// tool outside the skill's allowlist, and what the call said.
type observed struct {
	files  map[string][32]byte
	skills []string
	free   bool // vox_test_net is callable: no active skill restricts the session
}

type effects struct {
	wrote, deleted, added, removed, session, spawned, network bool
}

func (e effects) any() bool {
	return e.wrote || e.deleted || e.added || e.removed || e.session || e.spawned || e.network
}

// TestEveryToolsHintsMatchItsBehaviour calls every catalog tool on a fresh
// server and compares what it did with the hints its row derives
// (docs/contracts.md §1): readOnlyHint exactly when no call changed
// anything, destructiveHint exactly when one removed something (files or
// registry entries), openWorldHint exactly when one reached for the
// network, and idempotentHint only when a second call changes nothing
// more.
func TestEveryToolsHintsMatchItsBehaviour(t *testing.T) {
	hints := map[string]map[string]any{}
	// Configured as the probes' servers: where the host has no working
	// sandbox, a server that keeps it on does not list vox_skill_run
	// (docs/sandbox.md, "Where skill commands run").
	s0, _ := skillServer(t, server.Options{SkillSandboxOff: true})
	for _, tl := range rpc(t, s0, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)["result"].(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		if ann, ok := m["annotations"].(map[string]any); ok {
			hints[m["name"].(string)] = ann
		}
	}
	for _, op := range catalog.Catalog.MCPTools() {
		name := op.MCP.Name
		probes, okProbe := hintProbes[name]
		if !okProbe {
			t.Errorf("%s: no probe in hintProbes; add a call that shows what it does", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			var seen effects
			idempotent := true
			for _, p := range probes {
				s, src := probeServer(t)
				args := strings.ReplaceAll(p.args, "SRC", filepath.ToSlash(src))
				if p.setup != nil {
					p.setup(t, s, src)
				}
				before := observe(t, s)
				text, _, _ := call(t, s, name, args)
				after := observe(t, s)
				e := diff(before, after)
				e.spawned = strings.Contains(text, "spawned")
				e.network = strings.Contains(text, "needs network access")
				seen = or(seen, e)
				// A second call must change nothing more for idempotentHint.
				call(t, s, name, args)
				if again := observe(t, s); diff(after, again).any() {
					idempotent = false
				}
			}
			ann := hints[name]
			check := func(hint string, want bool) {
				if got, _ := ann[hint].(bool); got != want {
					t.Errorf("%s = %v, but the calls did %+v (side_effect_class %v)", hint, ann[hint], seen, op.Classes())
				}
			}
			check("readOnlyHint", !seen.any())
			check("destructiveHint", seen.deleted || seen.removed)
			check("openWorldHint", seen.network)
			if ann["idempotentHint"] == true && !idempotent {
				t.Errorf("idempotentHint is true, but a second call changed more")
			}
		})
	}
}

func or(a, b effects) effects {
	return effects{a.wrote || b.wrote, a.deleted || b.deleted, a.added || b.added, a.removed || b.removed,
		a.session || b.session, a.spawned || b.spawned, a.network || b.network}
}

// probeServer is a server with two skills in a root of its own, unisolated
// skill runs (the probe only needs to see that a process ran), and a local
// skill folder to add from.
func probeServer(t *testing.T) (*server.Server, string) {
	t.Helper()
	s, _ := skillServer(t, server.Options{SkillSandboxOff: true}, "pdf-forms", "release-notes")
	src := filepath.Join(s.Root(), "incoming")
	skillFixture(t, "skills", "csv-insights", src)
	return s, filepath.Join("incoming", "csv-insights")
}

func observe(t *testing.T, s *server.Server) observed {
	t.Helper()
	o := observed{files: map[string][32]byte{}}
	reg := skillRegistry(t, s)
	cfg := reg.Config()
	dirs := append([]string{s.Root(), cfg.Home}, cfg.Roots...)
	for _, in := range reg.Snapshot().Skills() {
		o.skills = append(o.skills, in.ID)
	}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			o.files[p] = sha256.Sum256(b)
			return nil
		})
	}
	slices.Sort(o.skills)
	_, denied, _ := call(t, s, "vox_test_net", `{}`)
	o.free = !denied
	return o
}

func diff(a, b observed) effects {
	var e effects
	for p, h := range b.files {
		if old, ok := a.files[p]; !ok || old != h {
			e.wrote = true
		}
	}
	for p := range a.files {
		if _, ok := b.files[p]; !ok {
			e.deleted = true
		}
	}
	for _, id := range b.skills {
		if !slices.Contains(a.skills, id) {
			e.added = true
		}
	}
	for _, id := range a.skills {
		if !slices.Contains(b.skills, id) {
			e.removed = true
		}
	}
	e.session = a.free != b.free
	return e
}
