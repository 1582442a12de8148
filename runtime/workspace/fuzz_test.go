package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseConfig feeds arbitrary bytes to the scan config parser: it must
// return a config or positioned errors, never panic.
func FuzzParseConfig(f *testing.F) {
	if src, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(ConfigPath))); err == nil {
		f.Add(src)
	}
	f.Add([]byte("scan_globs: [\"a/**/*.vox\"]\nexclude_globs: [\"a/{b,c}/**\"]\nlimits: {steps: 0}\nenv_allow: [HOME]\n"))
	f.Add([]byte("scan_globs: [\"a/[b\"]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, errs := ParseConfig("c.yaml", src)
		if (cfg == nil) == (len(errs) == 0) {
			t.Fatalf("config %v with errors %v", cfg, errs)
		}
		for _, e := range errs {
			if e.Line < 1 || e.Col < 1 {
				t.Fatalf("unpositioned error %v", e)
			}
		}
	})
}

// FuzzParseFixtures does the same for the fixtures parser (positioned JSON).
func FuzzParseFixtures(f *testing.F) {
	if src, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(FixturesPath))); err == nil {
		f.Add(src)
	}
	f.Add([]byte(`{"schema_version": 1, "fixtures": [{"tool": "a", "args": {"x": [1, 2.5e3, null]}, "expected": {"k": "v"}}, {"resource": "r://x", "expected_body": "b"}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		fx, errs := ParseFixtures("f.json", src)
		if (fx == nil) == (len(errs) == 0) {
			t.Fatalf("fixtures %v with errors %v", fx, errs)
		}
		for _, e := range errs {
			if e.Line < 1 || e.Col < 1 {
				t.Fatalf("unpositioned error %v", e)
			}
		}
	})
}
