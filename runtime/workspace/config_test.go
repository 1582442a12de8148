package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConfigValid(t *testing.T) {
	src := `x-vox-version: 1
scan_globs: ["tools/**/*.vox", "lib/*.vox"]
exclude_globs: ["tools/old/**"]
limits: {steps: 0, timeout_ms: 2500, max_depth: 64}
env_allow: [HOME, VOX_TOKEN_NAME]
write_globs: ["generated/**/*.vox"]
`
	cfg, errs := ParseConfig(ConfigPath, []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := patterns(cfg.ScanGlobs); got != "tools/**/*.vox lib/*.vox" {
		t.Errorf("scan globs = %q", got)
	}
	if got := patterns(cfg.ExcludeGlobs); got != strings.Join(DefaultExcludes, " ")+" tools/old/**" {
		t.Errorf("excludes = %q (the configured ones are added to the defaults)", got)
	}
	if g := cfg.ScanGlobs[1]; g.Pos.Line != 2 || g.Pos.Col != 32 {
		t.Errorf("second glob at %d:%d, want 2:32", g.Pos.Line, g.Pos.Col)
	}
	if *cfg.Limits.Steps != 0 || *cfg.Limits.TimeoutMS != 2500 || *cfg.Limits.MaxDepth != 64 || cfg.Limits.MaxValueBytes != nil {
		t.Errorf("limits = %+v", cfg.Limits)
	}
	if got := strings.Join(cfg.WritePatterns(), " "); got != "generated/**/*.vox" {
		t.Errorf("write globs = %q", got)
	}
	if strings.Join(cfg.EnvAllow, ",") != "HOME,VOX_TOKEN_NAME" || cfg.Missing || len(cfg.SHA256) != 64 {
		t.Errorf("config = %+v", cfg)
	}
}

func patterns(gs []Glob) string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Pattern)
	}
	return strings.Join(out, " ")
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"empty", "", "x.yaml:1:1: the file is empty: want a mapping with scan_globs"},
		// The list opens on line 1; the parser gives up at the end of
		// the file, on line 2.
		{"syntax", "scan_globs: [a\n", "x.yaml:2:1: invalid YAML: did not find expected ',' or ']'"},
		{"alias bomb", "scan_globs: [a]\nx-a: &a [x, x, x, x, x, x, x, x, x, x]\nx-b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
			"x-c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nx-d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
			"x-e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nx-f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
			"x.yaml:6:38: alias *d repeats 11111 values, and aliases may repeat at most 100000 values in one file"},
		{"missing globs", "description: x\n", `x.yaml:1:1: top level: missing required key "scan_globs"`},
		{"empty globs", "scan_globs: []\n", "x.yaml:1:13: scan_globs: want at least 1 item(s), got 0"},
		{"unknown key", "scan_globs: [a]\nscan_glob: [b]\n", `x.yaml:2:1: unknown key "scan_glob" in top level (did you mean scan_globs?); allowed: description, env_allow, exclude_globs, limits, scan_globs, write_globs, x-vox-version`},
		{"unknown limit", "scan_globs: [a]\nlimits:\n  stepz: 3\n", `x.yaml:3:3: unknown key "stepz" in limits (did you mean steps?); allowed: max_depth, max_output_bytes, max_value_bytes, steps, timeout_ms`},
		{"bad limit", "scan_globs: [a]\nlimits: {max_depth: 0}\n", "x.yaml:2:21: limits.max_depth: 0 is below the minimum 1"},
		{"bad type", "scan_globs: a.vox\n", "x.yaml:1:13: scan_globs: got string, want array"},
		{"bad glob", "scan_globs:\n  - ok/*.vox\n  - \"a/[b.vox\"\n", `x.yaml:3:5: invalid glob "a/[b.vox"`},
		{"escaping glob", "scan_globs: [\"../x/*.vox\"]\n", `x.yaml:1:14: invalid glob "../x/*.vox": globs may not leave the repository root (..)`},
		{"escaping write glob", "scan_globs: [a]\nwrite_globs: [\"../x\"]\n", `x.yaml:2:15: invalid glob "../x": globs may not leave the repository root (..)`},
		{"bad env", "scan_globs: [a]\nenv_allow: [\"A-B\"]\n", `x.yaml:2:13: env_allow[0]: "A-B" does not match`},
		{"duplicate key", "scan_globs: [a]\nscan_globs: [b]\n", `x.yaml:2:1: duplicate key "scan_globs" (first at line 1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := ParseConfig("x.yaml", []byte(c.src))
			if len(errs) == 0 {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(errs.Error(), c.want) {
				t.Errorf("errors:\n%s\nwant one containing %q", errs, c.want)
			}
		})
	}
}

func TestLoadConfigMissingAndRepo(t *testing.T) {
	dir := t.TempDir()
	cfg, err := LoadConfig(dir)
	if err != nil || !cfg.Missing || patterns(cfg.ScanGlobs) != "**/*.vox" || patterns(cfg.ExcludeGlobs) != strings.Join(DefaultExcludes, " ") {
		t.Fatalf("missing config: %+v, %v", cfg, err)
	}
	// This repository's own config.
	cfg, err = LoadConfig(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if patterns(cfg.ScanGlobs) != "examples/**/*.vox" {
		t.Errorf("repository scan globs = %q", patterns(cfg.ScanGlobs))
	}
	// An invalid config is an error, never the defaults.
	os.MkdirAll(filepath.Join(dir, "contracts", "mcp"), 0o755)
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(ConfigPath)), []byte("scan_globs: 3\n"), 0o644)
	if _, err := LoadConfig(dir); err == nil || !strings.Contains(err.Error(), ConfigPath+":1:13:") {
		t.Errorf("invalid config: err = %v", err)
	}
}
