package gates

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vox-lang/vox-mcp/gen"
	"github.com/vox-lang/vox-mcp/runtime/registry"
)

// Wiring is what operations-verify compares the catalog with: the vox
// CLI's real command table.
type Wiring struct {
	Commands [][]string // vox command paths
}

// OperationsVerifyName is the gate's name.
const OperationsVerifyName = "operations-verify"

// OperationsVerify checks the catalog of the repository at root (
// docs/ci-gates.md): it validates, its MCP tools and handlers match in both
// directions, its active CLI rows and the commands match in both
// directions, and generated/catalog is up to date.
func OperationsVerify(root string, w Wiring) *Report {
	r := NewReport(OperationsVerifyName)
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(registry.CatalogPath))); errors.Is(err, fs.ErrNotExist) {
		return r.Skip("no catalog").Finish()
	}
	cat, err := gen.LoadCatalog(root)
	if err != nil {
		addGenErrors(r, err)
		return r.Finish()
	}
	at := func(op *registry.Operation) Problem {
		return Problem{Path: registry.CatalogPath, Line: op.Line, Col: op.Col}
	}

	// Handlers need no check here: every MCP row (but those of
	// exemptions.mcp_tools) is a method of the generated Handlers
	// interface, which the server binary must implement to compile, and a
	// method whose row is gone refers to types that no longer exist.
	mcpTools := len(cat.MCPTools())

	// CLI commands, both directions.
	exemptPaths := map[string]bool{}
	for _, p := range cat.Exemptions.CLIPaths {
		exemptPaths[strings.Join(p, " ")] = true
	}
	commands := map[string]bool{}
	for _, c := range w.Commands {
		commands[strings.Join(c, " ")] = true
	}
	rowByPath := map[string]bool{}
	cliRows := 0
	for i := range cat.Operations {
		op := &cat.Operations[i]
		if op.CLI == nil {
			continue
		}
		cliRows++
		path := strings.Join(op.CLI.Path, " ")
		rowByPath[path] = true
		if op.CLI.Status == registry.CLIStatusActive && !commands[path] && !exemptPaths[path] {
			r.Problemf(at(op), "CLI row %q (operation %q) is active but vox has no such command: add the command in cmd/vox or change the row's status", path, op.ID)
		}
	}
	for _, c := range w.Commands {
		path := strings.Join(c, " ")
		if !rowByPath[path] && !exemptPaths[path] {
			r.Problemf(Problem{Path: registry.CatalogPath}, "vox command %q has no catalog row: add a row with cli.path %s", path, formatPath(c))
		}
	}

	// Drift of generated/catalog.
	checkDrift(r, root, "generated/catalog")

	r.Detail = fmt.Sprintf("%d operations, %d MCP tools, %d CLI commands", len(cat.Operations), mcpTools, cliRows)
	r.Summary = map[string]any{"operations": len(cat.Operations), "mcp_tools": mcpTools, "cli_commands": cliRows}
	return r.Finish()
}

// checkDrift compares the files of one generated folder with a fresh
// generation (write=false) and reports the stale ones with a diff.
func checkDrift(r *Report, root, dir string) {
	res, err := gen.GenerateDirs(root, false, dir)
	if err != nil {
		addGenErrors(r, err)
		return
	}
	stale := res.Stale()
	for _, f := range stale {
		what := "is stale"
		switch {
		case f.Removed:
			what = "is no longer generated"
		case f.Old == nil:
			what = "is missing"
		}
		r.Problemf(Problem{Path: f.Path}, "%s: run: go generate ./...", what)
	}
	if len(stale) > 0 {
		r.Diff = (&gen.Result{Files: stale}).Diff()
	}
}

// addGenErrors turns the generator's positioned errors into problems.
func addGenErrors(r *Report, err error) {
	var es gen.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			r.Problemf(Problem{Path: e.Path, Line: e.Line, Col: e.Col}, "%s", e.Message)
		}
		return
	}
	r.Problemf(Problem{Path: registry.CatalogPath}, "%v", err)
}

func formatPath(p []string) string { return "[" + strings.Join(p, ", ") + "]" }
