package workspace

import (
	"fmt"
	"slices"

	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/vox"
)

// RefreshHint ends the errors that a refresh would resolve.
const RefreshHint = "run vox_workspace_mcp_refresh"

// current returns the file's compilation, recompiling it first when the
// file's size or modification time differ from the last compilation
// (docs/federation.md §3): an edited body takes effect on the next call.
// Snapshot files are compiled here on their first call. The check and the
// reread resolve the file beneath the workspace root, as the scan did
// (internal/safefs): a symlink leading outside or a FIFO swapped in since
// is refused at once, its target never read.
func (f *File) current() (*compiled, error) {
	if f.Abs == "" {
		return f.embedded(), nil
	}
	// Where the root's directories are watched, a file checked since the
	// last change beneath them is current without a stat.
	gen, tracked := f.root.changes()
	if tracked {
		if c := f.cur.Load(); c != nil && c.module != nil && f.checked.Load() == gen {
			return c, nil
		}
	}
	dir, err := f.root.open()
	if err != nil {
		return nil, fmt.Errorf("%s: workspace root: %s; %s", f.Path, unwrapPathError(err), RefreshHint)
	}
	c, err := f.check(dir)
	if err == nil && tracked {
		// A symlink's target may change in a directory that is not
		// watched: such a file is checked on every call.
		if li, lerr := dir.Lstat(f.Path); lerr == nil && li.Mode().IsRegular() {
			f.checked.Store(gen)
		}
	}
	return c, err
}

// check compares the file's size and modification time with its current
// compilation and recompiles it when they differ.
func (f *File) check(dir *safefs.Root) (*compiled, error) {
	info, err := dir.Stat(f.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s; %s", f.Path, readError(err), RefreshHint)
	}
	if m := info.Mode(); !m.IsRegular() {
		return nil, fmt.Errorf("%s: cannot read: is %s, not a regular file; %s", f.Path, safefs.KindOf(m), RefreshHint)
	}
	if c := f.cur.Load(); c != nil && c.module != nil && c.size == info.Size() && c.modTime.Equal(info.ModTime()) {
		return c, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.cur.Load()
	if prev != nil && prev.module != nil && prev.size == info.Size() && prev.modTime.Equal(info.ModTime()) {
		return prev, nil // another call recompiled it meanwhile
	}
	// A call is waiting for this module: it keeps its syntax tree.
	c := compileFile(dir, f.Path, prev, false)
	if c.module == nil {
		return nil, fmt.Errorf("%s: %s; %s", f.Path, c.readErr, RefreshHint)
	}
	f.cur.Store(c)
	return c, nil
}

// ToolModule returns the module to run tool t with, recompiling its file
// when it changed on disk. It fails, naming the file and saying to
// refresh, when the file no longer compiles or no longer declares the tool.
func (s *Surface) ToolModule(t *Tool) (*vox.Module, error) {
	c, err := t.file.current()
	if err != nil {
		return nil, err
	}
	if c.module.HasErrors() {
		return nil, fmt.Errorf("%s no longer compiles (%s); fix it, then %s", t.Path, fileErrorMessage(c.module.Diagnostics()), RefreshHint)
	}
	if !slices.ContainsFunc(c.module.Tools(), func(d vox.Tool) bool { return d.Name == t.Name }) {
		return nil, fmt.Errorf("%s no longer declares tool %s; %s", t.Path, t.Name, RefreshHint)
	}
	if d, ok := c.module.Broken(t.Name); ok {
		return nil, fmt.Errorf("%s: tool %s has an error now (%d:%d: %s [%s]); fix it, then %s", t.Path, t.Name, d.Line, d.Col, d.Message, d.Code, RefreshHint)
	}
	return c.module, nil
}

// ResourceModule is ToolModule for a resource; it returns the module and
// the name of the resource's function in it.
func (s *Surface) ResourceModule(r *Resource) (*vox.Module, string, error) {
	c, err := r.file.current()
	if err != nil {
		return nil, "", err
	}
	if c.module.HasErrors() {
		return nil, "", fmt.Errorf("%s no longer compiles (%s); fix it, then %s", r.Path, fileErrorMessage(c.module.Diagnostics()), RefreshHint)
	}
	i := slices.IndexFunc(c.module.Resources(), func(d vox.Resource) bool { return d.URI == r.URI })
	if i < 0 {
		return nil, "", fmt.Errorf("%s no longer declares resource %s; %s", r.Path, r.URI, RefreshHint)
	}
	if d, ok := c.module.Broken(c.module.Resources()[i].Func); ok {
		return nil, "", fmt.Errorf("%s: resource %s has an error now (%d:%d: %s [%s]); fix it, then %s", r.Path, r.URI, d.Line, d.Col, d.Message, d.Code, RefreshHint)
	}
	return c.module, c.module.Resources()[i].Func, nil
}

// PromptModule is ToolModule for a prompt.
func (s *Surface) PromptModule(p *Prompt) (*vox.Module, error) {
	c, err := p.file.current()
	if err != nil {
		return nil, err
	}
	if c.module.HasErrors() {
		return nil, fmt.Errorf("%s no longer compiles (%s); fix it, then %s", p.Path, fileErrorMessage(c.module.Diagnostics()), RefreshHint)
	}
	if !slices.ContainsFunc(c.module.Prompts(), func(d vox.Prompt) bool { return d.Name == p.Name }) {
		return nil, fmt.Errorf("%s no longer declares prompt %s; %s", p.Path, p.Name, RefreshHint)
	}
	if d, ok := c.module.Broken(p.Name); ok {
		return nil, fmt.Errorf("%s: prompt %s has an error now (%d:%d: %s [%s]); fix it, then %s", p.Path, p.Name, d.Line, d.Col, d.Message, d.Code, RefreshHint)
	}
	return c.module, nil
}

// embedded compiles an embedded file once; its content never changes.
func (f *File) embedded() *compiled {
	if c := f.cur.Load(); c != nil {
		return c
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.cur.Load(); c != nil {
		return c
	}
	c := &compiled{size: int64(len(f.data)), hash: Hash(f.data), module: vox.Compile(f.Path, f.data)}
	f.cur.Store(c)
	return c
}
