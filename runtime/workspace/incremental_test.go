package workspace

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/wineshim"
)

// describeSurface writes everything a surface serves, in its own order:
// the result, the findings, every tool and resource as listed and as
// looked up by name.
func describeSurface(t *testing.T, s *Surface) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "result %s\nfindings %+v\n", resultJSON(t, s.Result), s.Findings)
	for _, tl := range s.Tools() {
		got, ok := s.Tool(tl.Name)
		fmt.Fprintf(&b, "tool %s %q %s %s %s:%d %s lookup=%v\n", tl.Name, tl.Description, tl.InputSchema, tl.Signature, tl.Path, tl.Line, tl.Hash, ok && got == tl)
	}
	for _, r := range s.Resources {
		got, ok := s.Resource(r.URI)
		fmt.Fprintf(&b, "resource %s %q %s %s %s:%d %s lookup=%v\n", r.URI, r.Description, r.MIMEType, r.Func, r.Path, r.Line, r.Hash, ok && got == r)
	}
	return b.String()
}

// TestIncrementalLoadsMatchFullLoads edits a workspace at random — bodies,
// descriptions, lines, names, duplicates, shadowed names, invalid names,
// compile errors, resources, added and removed files, per-call recompiles —
// and checks after every refresh that the loader, which merges only what
// changed when it can, serves exactly what a fresh loader serves.
func TestIncrementalLoadsMatchFullLoads(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	root := workspaceTree(t, cfgExamples, nil)
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	shadows := func(n string) bool { return n == "catalog_tool" }
	type tool struct{ name, desc, body string }
	type file struct {
		tools  []tool
		res    []string
		broken bool
		pad    int // blank lines before the first declaration
	}
	files := map[string]*file{}
	names := []string{"alpha", "beta", "gamma", "delta", "catalog_tool", "bad name", "eps"}
	write := func(path string, f *file) {
		var b strings.Builder
		b.WriteString(strings.Repeat("\n", f.pad))
		for _, tl := range f.tools {
			fmt.Fprintf(&b, "@tool %q\nfn %s(x: int = 1) to int { %s }\n\n", tl.desc, strings.ReplaceAll(tl.name, " ", ""), tl.body)
			if tl.name == "bad name" {
				// An invalid name: longer than 64 characters.
				s := b.String()
				b.Reset()
				b.WriteString(strings.Replace(s, "fn badname(", "fn "+strings.Repeat("b", 70)+"(", 1))
			}
		}
		for i, uri := range f.res {
			fmt.Fprintf(&b, "@resource(%q, \"R\")\nfn res%d() to str { \"r\" }\n\n", uri, i)
		}
		if f.broken {
			b.WriteString("fn broken( {\n")
		}
		p := filepath.Join(root, "tools", path)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		// A new modification time on every write, as an editor's save.
		mt := time.Now().Add(time.Duration(r.IntN(1<<30)) * time.Millisecond)
		os.Chtimes(p, mt, mt)
	}
	newFile := func() *file {
		f := &file{}
		for j := range 1 + r.IntN(3) {
			f.tools = append(f.tools, tool{fmt.Sprintf("t%d_%d", r.IntN(1000), j), "desc", "x + 1"})
		}
		return f
	}
	for i := range 12 {
		f := newFile()
		if i%4 == 0 {
			f.res = []string{fmt.Sprintf("docs://f%d.md", i)}
		}
		files[fmt.Sprintf("f%02d.vox", i)] = f
		write(fmt.Sprintf("f%02d.vox", i), f)
	}
	l := &Loader{Root: root, Shadows: shadows}
	prevSurface := load(t, l)
	incremental := 0
	// Under Wine every file open goes through wineserver and the 400
	// steps take a minute and a half: 100 still put the Windows way of
	// finding the changed files (a stat of each, stat_other.go) through
	// every kind of edit, and the merge, the same code on every system,
	// gets its 400 on the others.
	steps := 400
	if wineshim.Wine {
		steps = 100
	}
	for step := range steps {
		keys := make([]string, 0, len(files))
		for k := range files {
			keys = append(keys, k)
		}
		path := keys[r.IntN(len(keys))]
		f := files[path]
		what := r.IntN(12)
		switch what {
		case 0, 1, 2, 3: // a body edit: the common case
			tl := &f.tools[r.IntN(len(f.tools))]
			tl.body = fmt.Sprintf("x + %d", r.IntN(100))
		case 4: // a description edit
			f.tools[r.IntN(len(f.tools))].desc = fmt.Sprintf("desc %d", r.IntN(100))
		case 5: // lines move
			f.pad = r.IntN(3)
		case 6: // a rename, maybe into a duplicate, a shadowed or an invalid name
			f.tools[r.IntN(len(f.tools))].name = names[r.IntN(len(names))]
		case 7:
			f.broken = !f.broken
		case 8: // resources, maybe duplicate or reserved
			switch r.IntN(3) {
			case 0:
				f.res = nil
			case 1:
				f.res = []string{"docs://shared.md"}
			default:
				f.res = []string{"skill://x/SKILL.md", fmt.Sprintf("docs://%d.md", r.IntN(5))}
			}
		case 9: // a file appears
			path = fmt.Sprintf("f%02d.vox", 12+r.IntN(6))
			if files[path] == nil {
				f = newFile()
				files[path] = f
			}
		case 10: // a file goes
			if len(files) > 3 {
				os.Remove(filepath.Join(root, "tools", path))
				delete(files, path)
				f = nil
			}
		case 11: // the edit is picked up by a call before the refresh
			f.tools[0].body = fmt.Sprintf("x * %d", r.IntN(100))
		}
		if f != nil {
			write(path, f)
		}
		if what == 11 {
			if s := l.last.surface; s != nil {
				for _, tl := range s.Tools() {
					if tl.Path == "tools/"+path {
						s.ToolModule(tl) // recompiles the file in place
						break
					}
				}
			}
		}
		got := load(t, l)
		if sharesMaps(got, prevSurface) {
			incremental++
		}
		prevSurface = got
		want := load(t, &Loader{Root: root, Shadows: shadows})
		if g, w := describeSurface(t, got), describeSurface(t, want); g != w {
			t.Fatalf("step %d (edit %d of %s): the loader serves\n%s\na fresh load serves\n%s", step, what, path, g, w)
		}
		if !reflect.DeepEqual(got.Snapshot("m"), want.Snapshot("m")) {
			t.Fatalf("step %d: snapshots differ", step)
		}
	}
	t.Logf("%d of %d refreshes merged incrementally", incremental, steps)
	if incremental < steps/8 {
		t.Errorf("only %d of %d refreshes merged incrementally", incremental, steps)
	}
}

// sharesMaps reports whether s was built from prev by merging only what
// changed: such a surface follows prev (ToolChanges) and shares its tree
// of tools.
func sharesMaps(s, prev *Surface) bool {
	_, ok := s.ToolChanges(prev)
	return ok
}
