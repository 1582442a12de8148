package vox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var fnNameRE = regexp.MustCompile(`(?m)^\s*(?:pub\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)`)

// FuzzCall compiles arbitrary programs (every function body included) and
// calls every function in them with no arguments under small limits:
// nothing may panic or hang, every failure must be a *Error, and only the
// expected kinds may occur (an Internal error is a recovered panic, which
// is a bug).
func FuzzCall(f *testing.F) {
	for _, pattern := range []string{"testdata/run/*.vox", "testdata/corpus/*.vox", "testdata/check/*.vox"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, chunk := range strings.Split(string(data), "\n---\n") {
				f.Add(chunk)
			}
		}
	}
	f.Add("fn f() { let mut s = \"ab\"\n loop { s = s + s } }")
	f.Add("fn f(n = 0) { f(n + 1) }")
	env := &Env{Root: "testdata/fsroot", Limits: Limits{Steps: 20000, MaxDepth: 64, Timeout: 2 * time.Second, MaxOutputBytes: 1 << 16, MaxValueBytes: 1 << 20}}
	f.Fuzz(func(t *testing.T, src string) {
		m := Compile("fuzz.vox", []byte(src))
		for _, d := range m.Diagnostics() {
			if d.Code == "vox/internal/panic" {
				t.Fatalf("compile panicked: %s", d.Message)
			}
		}
		// Bodies are compiled on their first call; compile them all so
		// the compiler sees every function, called or not.
		if m.res != nil {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("compiling the function bodies panicked: %v", r)
					}
				}()
				m.program().Precompile()
			}()
		}
		if m.HasErrors() {
			return
		}
		names := map[string]bool{}
		for _, match := range fnNameRE.FindAllStringSubmatch(src, -1) {
			names[match[1]] = true
		}
		for name := range names {
			_, err := m.Call(context.Background(), name, nil, env)
			if err == nil {
				continue
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: error %T: %v", name, err, err)
			}
			if e.Kind == Internal {
				t.Fatalf("%s: internal error: %s", name, e.Message)
			}
		}
		for _, r := range m.Resources() {
			if _, err := m.ReadResource(context.Background(), r.URI, env); err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Kind == Internal {
					t.Fatalf("resource %s: %v", r.URI, err)
				}
			}
		}
	})
}
