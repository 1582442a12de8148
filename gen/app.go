package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	voxmcp "github.com/vox-lang/vox-mcp"
	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// AppOptions configure WriteApp ("vox gen app").
type AppOptions struct {
	// Out is the directory of the app's main package.
	Out string
	// Files are the .vox files to serve, in order (the first declaration
	// of a tool name or resource URI wins, as in a workspace).
	Files []string
	// Module, when set, makes Out a module of its own: a go.mod with this
	// path is written. It is required when Out is not inside a module that
	// can import the product.
	Module string
	// Replace, when set, adds a replace directive pointing the product
	// module at this directory (a vox-mcp checkout).
	Replace string
	// Version is the product version the go.mod requires (this binary's).
	Version string
}

// App is what WriteApp wrote.
type App struct {
	// Files are the written files, relative to Out.
	Files []string
	// Build is the command that builds the app, run in Out: "go build",
	// preceded by the step that records the product's checksum when the
	// app's go.sum cannot hold it yet (no --replace).
	Build string
	// Command is the regenerate command written into the headers, as run
	// in Out (paths relative to it).
	Command string
}

// develVersion is required with a replace when this binary has no
// release version.
const develVersion = "v0.0.0-00010101000000-000000000000"

var semverRE = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// WriteApp writes a standalone stdio MCP server main package into
// o.Out (docs/gen-app.md): the sources copied into Out/vox/, tables.go
// (the tools' and resources' tables) and main.go (embedding each source by
// name and calling runtime/app.Main), plus a go.mod and go.sum when Out
// needs a module of its own. Sources that do not compile, duplicate tools
// or resources, or names the app cannot serve or go:embed cannot take are
// errors.
func WriteApp(o AppOptions) (*App, error) {
	if len(o.Files) == 0 {
		return nil, errors.New("give at least one .vox file")
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, err
	}
	mod, err := appModule(out, o)
	if err != nil {
		return nil, err
	}
	command := appCommand(out, o)
	// Copy the sources into Out/vox, keeping their order for the merge.
	cfg := workspace.DefaultConfig()
	cfg.ScanGlobs = nil
	sources := map[string][]byte{}
	var written []string
	for _, f := range o.Files {
		src, err := safefs.ReadNamedFile(f, workspace.MaxSourceBytes)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(f)
		if !strings.HasSuffix(base, ".vox") || strings.ContainsAny(base, "*?[]{}\\") {
			return nil, fmt.Errorf("%s: want a .vox file whose name has no glob characters", f)
		}
		rel := "vox/" + base
		if err := module.CheckFilePath(rel); err != nil {
			return nil, fmt.Errorf("%s: the app cannot embed a source named %q (%v): go:embed takes names of letters, digits, spaces and !#$%%&()+,-.=@^_~ that are not a Windows device name such as con or aux; rename it", f, base, err)
		}
		if _, dup := sources[rel]; dup {
			return nil, fmt.Errorf("%s: another file is also named %s; the app keeps one folder of sources, rename one", f, base)
		}
		sources[rel] = src
		cfg.ScanGlobs = append(cfg.ScanGlobs, workspace.Glob{Pattern: rel})
	}
	if err := os.MkdirAll(filepath.Join(out, "vox"), 0o755); err != nil {
		return nil, err
	}
	// Sources of an earlier run that are no longer wanted would still be
	// embedded: remove them.
	old, _ := filepath.Glob(filepath.Join(out, "vox", "*.vox"))
	for _, p := range old {
		if _, keep := sources["vox/"+filepath.Base(p)]; !keep {
			if err := os.Remove(p); err != nil {
				return nil, err
			}
		}
	}
	for _, g := range cfg.ScanGlobs {
		if err := writeFileAtomic(filepath.Join(out, filepath.FromSlash(g.Pattern)), sources[g.Pattern]); err != nil {
			return nil, err
		}
		written = append(written, g.Pattern)
	}
	surface, err := (&workspace.Loader{Root: out}).LoadWith(cfg)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, e := range surface.Result.Errors {
		problems = append(problems, e.Path+": "+e.Message)
	}
	for _, f := range surface.Findings {
		problems = append(problems, fmt.Sprintf("%s:%d:%d: %s %s is already declared at %s:%d", f.Path, f.Line, f.Col, strings.ReplaceAll(string(f.Kind), "_", " "), f.Name, f.FirstPath, f.FirstLine))
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	if surface.ToolCount() == 0 && len(surface.Resources) == 0 {
		return nil, errors.New("the files declare no tool and no resource")
	}

	tables := &tableFile{pkg: "main", command: command, source: strings.Join(written, " "), formatCheck: command + " in this directory"}
	tables.addSnapshot("tables are the app's tools and resources; their sources are embedded from vox/.", "tables", surface.Snapshot(""))
	if err := writeFileAtomic(filepath.Join(out, "tables.go"), tables.render()); err != nil {
		return nil, err
	}
	written = append(written, "tables.go")

	name := filepath.Base(out)
	main := newFile("main", command, strings.Join(written[:len(written)-1], " "),
		"Command "+name+" is a standalone MCP server (stdio) for the Vox tools and resources in vox/, generated by vox gen app. It serves only those; run it with --root DIR to choose the directory their fs.* calls read.")
	main.Anon("embed")
	main.Comment("sources are the .vox files the tables were compiled from.")
	// One directive per source, naming the file: a directory pattern
	// (//go:embed vox) silently skips names starting with . or _, and
	// all:vox would also embed whatever else lies in vox/.
	main.Comment("")
	for _, g := range cfg.ScanGlobs {
		main.Comment(embedDirective(g.Pattern))
	}
	main.Var().Id("sources").Qual("embed", "FS")
	main.Func().Id("main").Params().Block(
		jen.Qual("os", "Exit").Call(jen.Qual(ProductModule+"/runtime/app", "Main").Call(
			jen.Lit(name), jen.Id("tables"), jen.Id("sources"),
			jen.Qual("os", "Args").Index(jen.Lit(1), jen.Empty()), jen.Qual("os", "Stdin"), jen.Qual("os", "Stdout"), jen.Qual("os", "Stderr"),
		)),
	)
	var buf bytes.Buffer
	if err := main.Render(&buf); err != nil {
		return nil, err
	}
	// jennifer writes "// //go:embed ..."; a directive must be a bare
	// comment line directly above the variable.
	code := bytes.ReplaceAll(buf.Bytes(), []byte("\n// //go:embed "), []byte("\n//go:embed "))
	if err := writeFileAtomic(filepath.Join(out, "main.go"), code); err != nil {
		return nil, err
	}
	written = append(written, "main.go")
	app := &App{Build: "go build", Command: command}
	if mod != nil {
		if err := writeFileAtomic(filepath.Join(out, "go.mod"), mod.goMod); err != nil {
			return nil, err
		}
		if err := writeFileAtomic(filepath.Join(out, "go.sum"), mod.goSum); err != nil {
			return nil, err
		}
		written = append(written, "go.mod", "go.sum")
		if mod.step != "" {
			app.Build = mod.step + " && go build"
		}
	}
	app.Files = written
	return app, nil
}

// embedDirective is the //go:embed line of one source, its path quoted
// when it holds a space (which would split it into two patterns).
func embedDirective(rel string) string {
	if strings.Contains(rel, " ") {
		rel = strconv.Quote(rel)
	}
	return "//go:embed " + rel
}

// appCommand is the command that regenerates the app, as run in its
// directory: every path relative to Out, so that the generated headers
// hold no absolute path and stay the same wherever the app is generated.
func appCommand(out string, o AppOptions) string {
	rel := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return filepath.ToSlash(p)
		}
		r, err := filepath.Rel(out, abs)
		if err != nil {
			return filepath.ToSlash(p)
		}
		return filepath.ToSlash(r)
	}
	parts := []string{"vox gen app --out ."}
	if o.Module != "" {
		parts = append(parts, "--module "+o.Module)
	}
	if o.Replace != "" {
		parts = append(parts, "--replace "+rel(o.Replace))
	}
	for _, f := range o.Files {
		parts = append(parts, rel(f))
	}
	return strings.Join(parts, " ")
}

// appModuleFiles are the go.mod and go.sum "vox gen app" writes for an
// app that is a module of its own, and the one step the user must take
// before go build when the files cannot be complete.
type appModuleFiles struct {
	goMod, goSum []byte
	// step is the command to run in the app's directory before go build
	// (empty when go build works offline at once).
	step string
}

// appModule decides whether the app needs a module of its own and returns
// its files (nil when Out lives in a module that can import the product).
//
// The go.mod requires the product and, as indirect requirements, every
// module the product requires, at the product's versions; the go.sum is
// the product's. Both come from the --replace checkout when one is given
// (that is what the app builds against), else from the go.mod and go.sum
// built into this binary. So the printed "go build" needs no network: the
// module cache that built the product holds everything, and no checksum
// is missing. Without --replace the product's own checksum cannot be known
// before it is published, so one "go mod download" step records it
// (docs/gen-app.md).
func appModule(out string, o AppOptions) (*appModuleFiles, error) {
	if o.Module == "" {
		if dir, mod := enclosingModule(out); dir != "" {
			if mod == ProductModule || requiresProduct(filepath.Join(dir, "go.mod")) {
				return nil, nil
			}
			return nil, fmt.Errorf("%s is inside module %s, which does not require %s: add the requirement, or pass --module PATH to make the app a module of its own", o.Out, mod, ProductModule)
		}
		return nil, fmt.Errorf("%s is not inside a Go module: pass --module PATH (and --replace DIR to build against a vox-mcp checkout)", o.Out)
	}
	if err := module.CheckImportPath(o.Module); err != nil {
		return nil, fmt.Errorf("--module %s: %v", o.Module, err)
	}
	productMod, productSum := voxmcp.GoMod, voxmcp.GoSum
	version := o.Version
	replacePath := ""
	if o.Replace != "" {
		abs, err := filepath.Abs(o.Replace)
		if err != nil {
			return nil, err
		}
		if workspace.ModulePath(abs) != ProductModule {
			return nil, fmt.Errorf("--replace %s: not a vox-mcp checkout (its go.mod does not declare %s)", o.Replace, ProductModule)
		}
		if productMod, err = os.ReadFile(filepath.Join(abs, "go.mod")); err != nil {
			return nil, fmt.Errorf("--replace %s: %v", o.Replace, err)
		}
		if productSum, err = os.ReadFile(filepath.Join(abs, "go.sum")); err != nil {
			return nil, fmt.Errorf("--replace %s: %v (run go mod tidy in the checkout)", o.Replace, err)
		}
		replacePath = relativeModulePath(out, abs)
		version = develVersion
	} else if !semverRE.MatchString(version) {
		return nil, fmt.Errorf("this vox is a development build (version %s) that no go.mod can require: pass --replace DIR pointing at a vox-mcp checkout", version)
	}
	product, err := modfile.ParseLax("go.mod", productMod, nil)
	if err != nil {
		return nil, fmt.Errorf("the go.mod of %s: %v", ProductModule, err)
	}
	app := &modfile.File{}
	if err := app.AddModuleStmt(o.Module); err != nil {
		return nil, err
	}
	goVersion := "1.26.0"
	if product.Go != nil {
		goVersion = product.Go.Version
	}
	if err := app.AddGoStmt(goVersion); err != nil {
		return nil, err
	}
	requires := []*modfile.Require{{Mod: module.Version{Path: ProductModule, Version: version}}}
	for _, r := range product.Require {
		requires = append(requires, &modfile.Require{Mod: r.Mod, Indirect: true})
	}
	app.SetRequireSeparateIndirect(requires)
	if replacePath != "" {
		if err := app.AddReplace(ProductModule, "", replacePath, ""); err != nil {
			return nil, err
		}
	}
	app.Cleanup()
	goMod, err := app.Format()
	if err != nil {
		return nil, err
	}
	files := &appModuleFiles{goMod: goMod, goSum: productSum}
	if replacePath == "" {
		files.step = "go mod download " + ProductModule
	}
	return files, nil
}

// relativeModulePath returns target as a replace path relative to the
// directory of the app's go.mod ("../vox-mcp"), so that the app and the
// checkout can move together; it stays absolute when no relative path
// exists (another volume).
func relativeModulePath(from, target string) string {
	rel, err := filepath.Rel(from, target)
	if err != nil {
		return target
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") && rel != ".." {
		rel = "./" + rel
	}
	return rel
}

// enclosingModule returns the directory holding the go.mod that governs
// dir, and its module path.
func enclosingModule(dir string) (string, string) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, workspace.ModulePath(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

// requiresProduct reports whether a go.mod requires the product module.
func requiresProduct(goMod string) bool {
	data, err := os.ReadFile(goMod)
	if err != nil {
		return false
	}
	f, err := modfile.ParseLax(goMod, data, nil)
	if err != nil {
		return false
	}
	for _, r := range f.Require {
		if r.Mod.Path == ProductModule {
			return true
		}
	}
	return false
}
