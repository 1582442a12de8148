// Package protect is the table of workspace paths that a repository's own
// grant can never make writable (docs/security.md, "Writes never reach
// what runs"): the files git, an editor, an agent, a CI service or
// vox-mcp itself will later run or read to decide what runs. fs.write
// refuses them even when the scan config's write_globs match and the
// person trusted the workspace; only an operator's --allow-write that
// matches the path opens one.
//
// Names are compared as the file systems vox-mcp runs on compare them,
// so that a spelling one of them takes for a protected name is protected
// on every system (Fold): case-insensitively (macOS, Windows), after
// Unicode normalisation and with the code points HFS+ ignores removed
// (macOS), with trailing dots and spaces and an alternate data stream
// suffix dropped (Windows). On Windows a component that may be an 8.3
// short name (NAME~N) could name any protected folder, so it is refused
// there (ShortNames).
package protect

import (
	"path"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/unicode/norm"
)

// Rule is one row of the table: a doublestar pattern over the folded,
// slash-separated workspace path, and why the path is protected.
type Rule struct {
	Pattern string
	Why     string
}

// Table is every path protected in every workspace, whatever its config
// says. docs/security.md shows it; TestTableIsDocumented keeps the two
// equal.
var Table = []Rule{
	{"**/.git", "git's repository: its config (core.fsmonitor, core.hooksPath, aliases) and hooks run at the next git command; a .git file points git at another repository"},
	{"**/.git/**", "git's repository: its config (core.fsmonitor, core.hooksPath, aliases) and hooks run at the next git command"},
	{"**/.gitmodules", "git fetches and checks out the submodules it names"},
	{"**/.gitattributes", "git runs the filter and diff drivers it selects"},
	{"**/*.vox", "Vox code: the server serves what it declares and runs it"},
	{"contracts/mcp/workspace-mcp-surface.v1.yaml", "the scan config: what the repository asks to be served and granted"},
	{"contracts/mcp/workspace-tool-fixtures.v1.json", "the fixtures the CI gates call the workspace tools with"},
	{"**/.vox/**", "vox-mcp's folder: installed skills, whose commands vox_skill_run runs"},
	{"**/.agents/**", "agent skills and their scripts"},
	{"assets/skills/**", "a skill root: skills whose commands vox_skill_run runs"},
	{"**/.mcp.json", "the MCP servers Claude Code and other agents start"},
	{"**/.claude/**", "Claude Code's settings (hooks run commands), commands and skills"},
	{"**/.cursor/**", "Cursor's MCP servers, rules and skills"},
	{"**/.vscode/**", "VS Code's tasks (run when the folder opens), launch configurations, settings and MCP servers"},
	{"**/*.code-workspace", "a VS Code workspace file: its tasks and settings"},
	{"**/.idea/**", "JetBrains run configurations and external tools"},
	{"**/.zed/**", "Zed's tasks and language servers"},
	{"**/.gemini/**", "Gemini CLI's settings and MCP servers"},
	{"**/.codex/**", "Codex's configuration and MCP servers"},
	{"**/.windsurf/**", "Windsurf's rules and MCP servers"},
	{"**/.continue/**", "Continue's configuration and MCP servers"},
	{"**/.amazonq/**", "Amazon Q's MCP servers"},
	{"**/.roo/**", "Roo Code's MCP servers and rules"},
	{"**/.kiro/**", "Kiro's hooks and MCP servers"},
	{"**/.devcontainer/**", "dev container lifecycle commands"},
	{"**/.devcontainer.json", "dev container lifecycle commands"},
	{"**/.github/workflows/**", "CI runs them with the repository's secrets"},
	{"**/.github/actions/**", "CI runs them with the repository's secrets"},
	{"**/.github/skills/**", "VS Code's and GitHub Copilot's agent skills and their scripts"},
	{"**/.gitlab-ci.yml", "CI runs it with the repository's secrets"},
	{"**/.circleci/**", "CI runs it with the repository's secrets"},
	{"**/.husky/**", "git hooks a hook manager installs"},
	{"**/.pre-commit-config.yaml", "git hooks a hook manager installs"},
	{"**/lefthook.yml", "git hooks a hook manager installs"},
	{"**/.lefthook.yml", "git hooks a hook manager installs"},
	{"**/.envrc", "direnv runs it when a shell enters the folder"},
	{"**/mise.toml", "mise runs its hooks and tasks"},
	{"**/.mise.toml", "mise runs its hooks and tasks"},
	{"**/.exrc", "Vim and Neovim run it with 'exrc'"},
	{"**/.nvimrc", "Neovim runs it with 'exrc'"},
	{"**/.nvim.lua", "Neovim runs it with 'exrc'"},
}

// Set is the protected paths of one workspace: the Table and what the
// workspace's own configuration adds.
type Set struct {
	rules      []Rule
	shortNames bool
}

// Options are what a workspace adds to the Table.
type Options struct {
	// ScanGlobs are the scan config's scan_globs: every file they match
	// is code the server serves.
	ScanGlobs []string
	// Dirs are folders below the root, slash-separated and relative to it,
	// that are protected with everything below them: the skill roots of
	// VOX_SKILL_ROOTS and the user's vox-mcp config and cache folders
	// when the root holds them (the trust records live there).
	Dirs []Dir
	// ShortNames refuses every path with a component that may be an 8.3
	// short name; always on Windows, where such names exist.
	ShortNames bool
}

// Dir is a protected folder and why.
type Dir struct {
	Path string
	Why  string
}

// New returns the Set of a workspace.
func New(o Options) *Set {
	s := &Set{rules: append([]Rule(nil), Table...), shortNames: o.ShortNames || runtime.GOOS == "windows"}
	for _, g := range o.ScanGlobs {
		s.rules = append(s.rules, Rule{Pattern: Fold(g), Why: "a scan_globs pattern of the scan config matches it: the server serves what it declares"})
	}
	for _, d := range o.Dirs {
		p := Fold(path.Clean(d.Path))
		if p == "." {
			p = ""
		}
		s.rules = append(s.rules, Rule{Pattern: p, Why: d.Why}, Rule{Pattern: p + "/**", Why: d.Why})
	}
	return s
}

// Match reports whether the workspace path rel (cleaned, slash-separated,
// relative to the root) is protected, and the rule that protects it.
func (s *Set) Match(rel string) (Rule, bool) {
	if s == nil {
		return Rule{}, false
	}
	if s.shortNames {
		for _, c := range strings.Split(rel, "/") {
			if MayBeShortName(c) {
				return Rule{Pattern: c, Why: "it may be the 8.3 short name of a protected name (on Windows GIT~1 can be .git): use the long name"}, true
			}
		}
	}
	folded := Fold(rel)
	for _, r := range s.rules {
		if ok, _ := doublestar.Match(r.Pattern, folded); ok {
			return r, true
		}
	}
	return Rule{}, false
}

// Fold is the form of a slash-separated path in which two spellings that
// macOS's or Windows's file systems take for one name are equal: each
// component has the code points HFS+ ignores removed, is NFC-normalised
// and case-folded, loses its trailing dots and spaces and an alternate
// data stream suffix (":stream", "::$DATA"). Fold of a doublestar pattern
// folds its literal parts the same way.
func Fold(p string) string {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		parts[i] = foldName(c)
	}
	return strings.Join(parts, "/")
}

func foldName(c string) string {
	if c == "." || c == ".." {
		return c
	}
	if strings.ContainsFunc(c, ignorable) {
		c = strings.Map(func(r rune) rune {
			if ignorable(r) {
				return -1
			}
			return r
		}, c)
	}
	c = norm.NFC.String(c)
	// Upper then lower: a dotless ı and a long ſ, which NTFS's upcase
	// table takes for I and S, fold to i and s; the Kelvin sign to k.
	c = strings.ToLower(strings.ToUpper(c))
	if i := strings.IndexByte(c, ':'); i > 0 {
		c = c[:i]
	}
	c = strings.TrimRight(c, ". ")
	if c == "" {
		return "."
	}
	return c
}

// ignorable reports the code points HFS+ ignores in names (git's
// is_hfs_dotgit list): zero-width joiners and marks, directional
// formatting and the byte order mark.
func ignorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// MayBeShortName reports whether a path component has the form of an
// 8.3 short name that Windows generates for a long one: up to six
// characters, a tilde, digits, and an extension of up to three.
func MayBeShortName(c string) bool {
	base, _, _ := strings.Cut(c, ".")
	i := strings.LastIndexByte(base, '~')
	if i < 0 || i == len(base)-1 || utf8.RuneCountInString(base[:i]) > 6 {
		return false
	}
	for _, r := range base[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
