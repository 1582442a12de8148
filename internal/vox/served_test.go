package vox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox/check"
)

// TestCompileServedDropsTheTreeUntilNeeded: a lean module (CompileServed)
// declares, reports and answers exactly what the same file compiled with
// CompileWith does, holds no syntax tree until its first call or question
// needs one, and makes it once when many calls start at the same time.
func TestCompileServedDropsTheTreeUntilNeeded(t *testing.T) {
	src := bridgeSrc + `
@tool "asks"
fn asks() to str { sample("hi", 10)["text"] }

@resource("docs://guide.md", "The guide")
fn guide() to str { "# Guide" }

@tool "broken"
fn broken() to int { return "not an int" }
`
	full := CompileWith("served.vox", []byte(src), check.Options{})
	lean := CompileServed("served.vox", []byte(src), check.Options{})
	if lean.res != nil {
		t.Fatal("a lean module holds its syntax tree after compiling")
	}
	if !reflect.DeepEqual(full.Tools(), lean.Tools()) || !reflect.DeepEqual(full.Resources(), lean.Resources()) ||
		!reflect.DeepEqual(full.Diagnostics(), lean.Diagnostics()) || full.HasErrors() != lean.HasErrors() || full.AnyBroken() != lean.AnyBroken() {
		t.Fatalf("the lean module declares or reports otherwise:\n%+v\n%+v\n%v\n%v", full.Tools(), lean.Tools(), full.Diagnostics(), lean.Diagnostics())
	}
	if _, ok := lean.Broken("broken"); !ok || lean.res != nil {
		t.Fatal("Broken needs the tree, or does not answer")
	}
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Go(func() {
			r, err := lean.Call(context.Background(), "greet", []byte(`{"name":"Ada","times":2}`), nil)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = string(r.JSON)
		})
	}
	wg.Wait()
	want, err := full.Call(context.Background(), "greet", []byte(`{"name":"Ada","times":2}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range results {
		if got != string(want.JSON) {
			t.Fatalf("the lean module answers %s, the full one %s", got, want.JSON)
		}
	}
	if lean.res == nil {
		t.Fatal("no tree after a call")
	}
	for _, fn := range []string{"greet", "asks", "guide", "missing"} {
		if got, want := lean.ClientCapabilities(fn), full.ClientCapabilities(fn); !slices.Equal(got, want) {
			t.Errorf("ClientCapabilities(%s) = %v, want %v", fn, got, want)
		}
		if lean.HasFunc(fn) != full.HasFunc(fn) {
			t.Errorf("HasFunc(%s) differs", fn)
		}
	}
	// A question alone makes the tree too.
	other := CompileServed("served.vox", []byte(src), check.Options{})
	if caps := other.ClientCapabilities("asks"); !slices.Equal(caps, []string{"sampling"}) || other.Resolved() == nil {
		t.Errorf("ClientCapabilities(asks) of a fresh lean module = %v", caps)
	}
}

// TestCompileServedKeepsNothingOfTheReusedSlabs: the slabs a lean module
// was parsed and resolved in are zeroed and reused by the next lean
// compilation, so a module that kept anything in them would change when
// other files are compiled after it. Every corpus file compiled lean,
// after all of them and then once more each, declares, reports and runs
// exactly what the same file compiled with CompileWith does.
func TestCompileServedKeepsNothingOfTheReusedSlabs(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.vox")
	if err != nil || len(files) < 10 {
		t.Fatalf("corpus: %v, %d files", err, len(files))
	}
	srcs := make([][]byte, len(files))
	lean := make([]*Module, len(files))
	for i, f := range files {
		if srcs[i], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
		lean[i] = CompileServed(f, srcs[i], check.Options{})
	}
	for i, f := range files { // the slabs are reused by every file again
		CompileServed(f, srcs[i], check.Options{})
	}
	for i, f := range files {
		full := CompileWith(f, srcs[i], check.Options{})
		m := lean[i]
		if !reflect.DeepEqual(full.Tools(), m.Tools()) || !reflect.DeepEqual(full.Resources(), m.Resources()) ||
			!reflect.DeepEqual(full.Prompts(), m.Prompts()) || !reflect.DeepEqual(full.Diagnostics(), m.Diagnostics()) ||
			full.HasErrors() != m.HasErrors() || full.AnyBroken() != m.AnyBroken() {
			t.Fatalf("%s: the lean module declares or reports otherwise once its slabs were reused", f)
		}
		for _, tool := range full.Tools() {
			if _, broken := full.Broken(tool.Name); broken || !m.HasFunc(tool.Name) {
				continue
			}
			want, werr := full.Call(context.Background(), tool.Name, []byte(`{}`), nil)
			got, gerr := m.Call(context.Background(), tool.Name, []byte(`{}`), nil)
			if (werr == nil) != (gerr == nil) || werr == nil && !bytes.Equal(want.JSON, got.JSON) {
				t.Errorf("%s: %s answers %s (%v), the full module %s (%v)", f, tool.Name, got.JSON, gerr, want.JSON, werr)
			}
		}
	}
}
