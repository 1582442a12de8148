package gen

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

const workspacePkg = ProductModule + "/runtime/workspace"

// produceWorkspace compiles the repository's workspace surface — the .vox
// files selected by contracts/mcp/workspace-mcp-surface.v1.yaml — into the
// snapshot generated/workspace/workspace.go (docs/federation.md §6). A
// repository without a scan config has no snapshot. Per-file errors of the
// .vox files are recorded in the snapshot (the parity gate reports them);
// only an invalid scan config stops generation.
func produceWorkspace(in *inputs) ([]output, error) {
	root := in.root
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(workspace.ConfigPath))); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	cfg, err := workspace.LoadConfig(root)
	if err != nil {
		return nil, genErrors(err)
	}
	surface, err := (&workspace.Loader{Root: root, Shadows: catalogToolNames(in)}).LoadWith(cfg)
	if err != nil {
		return nil, genErrors(err)
	}
	data, err := renderWorkspace(surface.Snapshot(workspace.ModulePath(root)))
	if err != nil {
		return nil, err
	}
	out := output{path: "generated/workspace/workspace.go", data: data}
	if err := in.settle(&out); err != nil {
		return nil, err
	}
	return []output{out}, nil
}

// catalogToolNames returns the MCP tool names of the repository's own
// catalog, which shadow workspace tools of the same name. The generator
// reads the catalog file rather than the compiled tables so that it never
// depends on generated code. An invalid catalog is reported by the catalog
// producer.
func catalogToolNames(in *inputs) func(string) bool {
	return func(n string) bool { return in.catalogToolNames()[n] }
}

// genErrors converts the loader's errors into the generator's: positioned
// contract errors are already Errors; a glob the scan rejects is an error
// of the scan config.
func genErrors(err error) error {
	var se *workspace.ScanError
	if errors.As(err, &se) {
		return Errors{{Path: workspace.ConfigPath, Message: se.Msg}}
	}
	return err
}

// renderWorkspace emits generated/workspace/workspace.go.
func renderWorkspace(snap *workspace.Snapshot) ([]byte, error) {
	f := &tableFile{
		pkg: "workspace", command: regenerateCommand, source: workspace.ConfigPath + " and the .vox files it selects",
		doc:         "Package workspace is the snapshot of this repository's workspace MCP surface (its .vox tools and resources), compiled by the generator (gen); vox-mcp serves it at start-up when its root is this repository.",
		formatCheck: regenerateCommand,
	}
	f.addSnapshot("Snapshot is the workspace surface of this repository at generation time.", "Snapshot", snap)
	return f.render(), nil
}

// addSnapshot adds "var <name> = &loader.Snapshot{...}" to f, a table
// file (emit_table.go).
func (f *tableFile) addSnapshot(doc, name string, snap *workspace.Snapshot) {
	f.loader = "loader"
	v := goComposite("&loader.Snapshot")
	v.str("Module", snap.Module)
	v.str("ConfigSHA256", snap.ConfigSHA256)
	if len(snap.Tools) > 0 {
		tools := goComposite("[]loader.SnapshotTool")
		for _, t := range snap.Tools {
			tv := goComposite("")
			tv.str("Name", t.Name)
			tv.str("Description", t.Description)
			tv.add("InputSchema", goSchema(t.InputSchema))
			if t.OutputSchema != nil {
				tv.add("OutputSchema", goSchema(t.OutputSchema))
			}
			tv.str("Signature", t.Signature)
			tv.str("Path", t.Path)
			tv.add("Line", goInt(t.Line))
			tv.str("Hash", t.Hash)
			if t.Mutates {
				tv.add("Mutates", goText("true"))
			}
			if t.LongRunning {
				tv.add("LongRunning", goText("true"))
			}
			tools.add("", tv)
		}
		v.add("Tools", tools)
	}
	if len(snap.Resources) > 0 {
		resources := goComposite("[]loader.SnapshotResource")
		for _, r := range snap.Resources {
			rv := goComposite("")
			rv.str("URI", r.URI)
			rv.str("Description", r.Description)
			rv.str("MIMEType", r.MIMEType)
			rv.str("Func", r.Func)
			if len(r.Variables) > 0 {
				vars := goComposite("[]string")
				for _, name := range r.Variables {
					vars.add("", goText(strconv.Quote(name)))
				}
				rv.add("Variables", vars)
			}
			addCompletions(rv, r.Completions)
			rv.str("Path", r.Path)
			rv.add("Line", goInt(r.Line))
			rv.str("Hash", r.Hash)
			resources.add("", rv)
		}
		v.add("Resources", resources)
	}
	if len(snap.Prompts) > 0 {
		prompts := goComposite("[]loader.SnapshotPrompt")
		for _, p := range snap.Prompts {
			pv := goComposite("")
			pv.str("Name", p.Name)
			pv.str("Description", p.Description)
			if len(p.Arguments) > 0 {
				args := goComposite("[]loader.PromptArgument")
				for _, a := range p.Arguments {
					av := goComposite("")
					av.str("Name", a.Name)
					av.add("Required", goText(strconv.FormatBool(a.Required)))
					args.add("", av)
				}
				pv.add("Arguments", args)
			}
			addCompletions(pv, p.Completions)
			pv.str("Path", p.Path)
			pv.add("Line", goInt(p.Line))
			pv.str("Hash", p.Hash)
			prompts.add("", pv)
		}
		v.add("Prompts", prompts)
	}
	res := snap.Result
	rv := goComposite("loader.Result")
	rv.add("ToolCount", goInt(res.ToolCount))
	rv.add("ResourceCount", goInt(res.ResourceCount))
	// Arrays of the refresh result are never nil (docs/tool-results.md).
	rv.add("Shadowed", goStrings(res.Shadowed))
	rv.add("DuplicateTools", goStrings(res.DuplicateTools))
	rv.add("DuplicateResources", goStrings(res.DuplicateResources))
	errs := goComposite("[]loader.FileError")
	for _, e := range res.Errors {
		errs.add("", goText("{Path: "+strconv.Quote(e.Path)+", Message: "+strconv.Quote(e.Message)+"}"))
	}
	rv.add("Errors", errs)
	v.add("Result", rv)
	f.addVar(doc, name, v)
}

// addCompletions adds the @mcp.complete functions of a prompt or a
// resource template, when it has any.
func addCompletions(v *goValue, cs []workspace.Completion) {
	if len(cs) == 0 {
		return
	}
	list := goComposite("[]loader.Completion")
	for _, c := range cs {
		cv := goComposite("")
		cv.str("Param", c.Param)
		cv.str("Func", c.Func)
		list.add("", cv)
	}
	v.add("Completions", list)
}
