package gates

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vox-lang/vox-mcp/gen"
	"github.com/vox-lang/vox-mcp/internal/contractdoc"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// SurfaceParityName is the gate's name.
const SurfaceParityName = "mcp-vox-surface-parity"

// snapshotDir is the generated workspace snapshot's folder.
const snapshotDir = "generated/workspace"

// fixtureTimeout bounds one fixture call beyond the interpreter's limits.
const fixtureTimeout = 30 * time.Second

// SurfaceParitySummary is the gate's summary (docs/tool-results.md): the
// refresh result plus the fixture counts and the snapshot state.
type SurfaceParitySummary struct {
	workspace.Result
	ToolFixtures     int    `json:"tool_fixtures"`
	ResourceFixtures int    `json:"resource_fixtures"`
	Snapshot         string `json:"snapshot"` // equal, stale or absent
}

// SurfaceParity checks the workspace surface of the repository at root
// (docs/ci-gates.md): it loads it with the server's loader, reports per-file
// errors and duplicates as problems and shadowed names as warnings, checks
// descriptions and schemas, compares generated/workspace with a fresh scan,
// and runs every fixture. shadows names the catalog tools the server
// serves (nil: none).
func SurfaceParity(root string, shadows func(string) bool) *Report {
	r := NewReport(SurfaceParityName)
	surface, err := (&workspace.Loader{Root: root, Shadows: shadows}).Load()
	if err != nil {
		addContractErrors(r, err, workspace.ConfigPath)
		return r.Finish()
	}
	sum := &SurfaceParitySummary{Result: surface.Result, Snapshot: "absent"}
	r.Summary = sum

	for _, e := range surface.Result.Errors {
		for _, part := range strings.Split(e.Message, "; ") {
			p := Problem{Path: e.Path}
			p.Line, p.Col, part = splitPosition(part)
			r.Problemf(p, "%s", part)
		}
	}
	for _, f := range surface.Findings {
		at := Problem{Path: f.Path, Line: f.Line, Col: f.Col}
		switch f.Kind {
		case workspace.Shadowed:
			r.Warnf(at, "workspace tool %s is shadowed by the catalog tool of the same name and is not served: rename it", f.Name)
		case workspace.DuplicateTool:
			r.Problemf(at, "duplicate workspace tool %s (first declared at %s:%d, which wins): rename one", f.Name, f.FirstPath, f.FirstLine)
		case workspace.DuplicateResource:
			r.Problemf(at, "duplicate workspace resource %s (first declared at %s:%d, which wins): change one URI", f.Name, f.FirstPath, f.FirstLine)
		}
	}
	for _, t := range surface.Tools() {
		at := Problem{Path: t.Path, Line: t.Line, Col: 1}
		if strings.TrimSpace(t.Description) == "" {
			r.Problemf(at, "workspace tool %s has no description: write one after @tool (agents choose tools by it)", t.Name)
		}
		var schema struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(t.InputSchema, &schema) != nil || schema.Type != "object" {
			r.Problemf(at, "workspace tool %s: input schema is not an object schema", t.Name)
		}
	}
	for _, res := range surface.Resources {
		if strings.TrimSpace(res.Description) == "" {
			r.Problemf(Problem{Path: res.Path, Line: res.Line, Col: 1}, "workspace resource %s has no description", res.URI)
		}
	}

	sum.Snapshot = checkSnapshot(r, root)

	noFixtures := runFixtures(r, root, surface, sum)
	r.Detail = fmt.Sprintf("%d workspace tools, %d resources, %d tool fixtures, %d resource fixtures",
		surface.Result.ToolCount, surface.Result.ResourceCount, sum.ToolFixtures, sum.ResourceFixtures)
	if noFixtures {
		r.Detail += "; no fixtures file, no fixtures run"
	}
	return r.Finish()
}

// splitPosition splits a leading "line:col: " off a per-file message.
func splitPosition(msg string) (int, int, string) {
	a, rest, ok := strings.Cut(msg, ":")
	if !ok {
		return 0, 0, msg
	}
	b, text, ok := strings.Cut(rest, ": ")
	line, err1 := strconv.Atoi(a)
	col, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, msg
	}
	return line, col, text
}

// checkSnapshot compares generated/workspace with a fresh generation and
// returns "equal", "stale" or "absent".
func checkSnapshot(r *Report, root string) string {
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(snapshotDir))); errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	before := len(r.Problems)
	checkDrift(r, root, snapshotDir)
	if len(r.Problems) > before {
		return "stale"
	}
	return "equal"
}

// runFixtures runs contracts/mcp/workspace-tool-fixtures.v1.json against
// the surface; it reports whether the root has no fixtures file.
func runFixtures(r *Report, root string, surface *workspace.Surface, sum *SurfaceParitySummary) bool {
	fx, err := workspace.LoadFixtures(root)
	if err != nil {
		addContractErrors(r, err, workspace.FixturesPath)
		return false
	}
	if fx == nil {
		return true
	}
	for i, f := range fx.Items {
		at := Problem{Path: fx.Path, Line: f.Pos.Line, Col: f.Pos.Col}
		ctx, cancel := context.WithTimeout(context.Background(), fixtureTimeout)
		if f.Tool != "" {
			sum.ToolFixtures++
			runToolFixture(ctx, r, at, i, surface, f)
		} else {
			sum.ResourceFixtures++
			runResourceFixture(ctx, r, at, i, surface, f)
		}
		cancel()
	}
	return false
}

func runToolFixture(ctx context.Context, r *Report, at Problem, i int, surface *workspace.Surface, f workspace.Fixture) {
	t, ok := surface.Tool(f.Tool)
	if !ok {
		r.Problemf(at, "fixture %d: workspace tool %s is not in the surface", i, f.Tool)
		return
	}
	res, err := surface.CallTool(ctx, t, f.Args, nil)
	switch {
	case f.ExpectError != "" && err == nil:
		r.Problemf(at, "fixture %d: %s succeeded with %s, want an error containing %q", i, f.Tool, res.JSON, f.ExpectError)
	case f.ExpectError != "" && !strings.Contains(err.Error(), f.ExpectError):
		r.Problemf(at, "fixture %d: %s failed with %q, want an error containing %q", i, f.Tool, err.Error(), f.ExpectError)
	case f.ExpectError == "" && err != nil:
		r.Problemf(at, "fixture %d: %s failed: %v", i, f.Tool, err)
	case f.ExpectError == "" && f.Expected != nil && !jsonEqualNumeric(res.JSON, f.Expected):
		r.Problemf(at, "fixture %d: %s returned %s, want %s", i, f.Tool, res.JSON, f.Expected)
	}
}

func runResourceFixture(ctx context.Context, r *Report, at Problem, i int, surface *workspace.Surface, f workspace.Fixture) {
	res, ok := surface.Resource(f.Resource)
	var vars map[string]string
	if !ok {
		// A URI that a template resource expands reads it with the
		// variables (docs/vox-language.md, Resources with URI parameters).
		res, vars, ok = surface.MatchResource(f.Resource)
	}
	if !ok {
		r.Problemf(at, "fixture %d: workspace resource %s is not in the surface", i, f.Resource)
		return
	}
	body, err := surface.ReadResource(ctx, res, vars, nil)
	switch {
	case err != nil:
		r.Problemf(at, "fixture %d: reading %s failed: %v", i, f.Resource, err)
	case f.ExpectedBody != nil && body != *f.ExpectedBody:
		r.Problemf(at, "fixture %d: %s has body %q, want %q", i, f.Resource, body, *f.ExpectedBody)
	}
}

// jsonEqualNumeric compares two JSON texts structurally; numbers compare
// by value (3 equals 3.0).
func jsonEqualNumeric(a, b []byte) bool {
	va, erra := decodeNumbers(a)
	vb, errb := decodeNumbers(b)
	return erra == nil && errb == nil && equalValues(va, vb)
}

func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func equalValues(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalValues(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// addContractErrors reports the loader's errors: positioned contract
// errors, fatal scan errors and read errors.
func addContractErrors(r *Report, err error, path string) {
	var ces contractdoc.Errors
	if errors.As(err, &ces) {
		for _, e := range ces {
			r.Problemf(Problem{Path: e.Path, Line: e.Line, Col: e.Col}, "%s", e.Message)
		}
		return
	}
	var ge gen.Errors
	if errors.As(err, &ge) {
		addGenErrors(r, err)
		return
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, path+": ")
	r.Problemf(Problem{Path: path}, "%s", msg)
}
