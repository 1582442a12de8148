package gen

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/dave/jennifer/jen"

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
	return []output{{path: "generated/workspace/workspace.go", data: data}}, nil
}

// catalogToolNames returns the MCP tool names of the repository's own
// catalog, which shadow workspace tools of the same name. The generator
// reads the catalog file rather than the compiled tables so that it never
// depends on generated code. An invalid catalog is reported by the catalog
// producer.
//
// The names are read on the first question, so that the loader scans and
// compiles the .vox files while the catalog producer parses the catalog.
func catalogToolNames(in *inputs) func(string) bool {
	names := sync.OnceValue(func() map[string]bool {
		cat, err := in.catalog()
		if err != nil {
			return nil
		}
		names := map[string]bool{}
		for _, op := range cat.MCPTools() {
			names[op.MCP.Name] = true
		}
		return names
	})
	return func(n string) bool { return names()[n] }
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
	f := newGeneratedFile("workspace", workspace.ConfigPath+" and the .vox files it selects",
		"Package workspace is the snapshot of this repository's workspace MCP surface (its .vox tools and resources), compiled by the generator (gen); vox-mcp serves it at start-up when its root is this repository.")
	tableFormatCheck(f, regenerateCommand)
	f.Line()
	fileComment(f, "Snapshot is the workspace surface of this repository at generation time.")
	return renderSnapshot(f, "Snapshot", snap)
}

// renderSnapshot adds "var <name> = &Snapshot{...}" to f and renders it.
func renderSnapshot(f *jen.File, name string, snap *workspace.Snapshot) ([]byte, error) {
	f.ImportAlias(workspacePkg, "loader")
	var fs fields
	fs.str("Module", snap.Module)
	fs.str("ConfigSHA256", snap.ConfigSHA256)
	if len(snap.Tools) > 0 {
		fs.add("Tools", jen.Index().Qual(workspacePkg, "SnapshotTool").ValuesFunc(func(g *jen.Group) {
			for _, t := range snap.Tools {
				var tf fields
				tf.str("Name", t.Name)
				tf.str("Description", t.Description)
				tf.add("InputSchema", rawJSON(t.InputSchema))
				tf.str("Signature", t.Signature)
				tf.str("Path", t.Path)
				tf.add("Line", jen.Lit(t.Line))
				tf.str("Hash", t.Hash)
				g.Line().Add(tf.values())
			}
			g.Line()
		}))
	}
	if len(snap.Resources) > 0 {
		fs.add("Resources", jen.Index().Qual(workspacePkg, "SnapshotResource").ValuesFunc(func(g *jen.Group) {
			for _, r := range snap.Resources {
				var rf fields
				rf.str("URI", r.URI)
				rf.str("Description", r.Description)
				rf.str("MIMEType", r.MIMEType)
				rf.str("Func", r.Func)
				rf.str("Path", r.Path)
				rf.add("Line", jen.Lit(r.Line))
				rf.str("Hash", r.Hash)
				g.Line().Add(rf.values())
			}
			g.Line()
		}))
	}
	res := snap.Result
	var rf fields
	rf.add("ToolCount", jen.Lit(res.ToolCount))
	rf.add("ResourceCount", jen.Lit(res.ResourceCount))
	// Arrays of the refresh result are never nil (docs/tool-results.md).
	rf.add("Shadowed", stringSlice2(res.Shadowed))
	rf.add("DuplicateTools", stringSlice2(res.DuplicateTools))
	rf.add("DuplicateResources", stringSlice2(res.DuplicateResources))
	rf.add("Errors", jen.Index().Qual(workspacePkg, "FileError").ValuesFunc(func(g *jen.Group) {
		for _, e := range res.Errors {
			g.Line().Values(jen.Id("Path").Op(":").Lit(e.Path), jen.Id("Message").Op(":").Lit(e.Message))
		}
		if len(res.Errors) > 0 {
			g.Line()
		}
	}))
	fs.add("Result", jen.Qual(workspacePkg, "Result").Add(rf.values()))
	f.Var().Id(name).Op("=").Op("&").Qual(workspacePkg, "Snapshot").Add(fs.values())

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stringSlice2 is stringSlice that writes an empty literal for an empty
// list instead of nothing.
func stringSlice2(v []string) jen.Code {
	return jen.Index().String().Add(stringSliceValues(v))
}
