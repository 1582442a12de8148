// Package registry defines the tables that the generator compiles the
// operations catalog into (generated/catalog) and that the server and the
// gates read. The types mirror contracts/operations/catalog.v1.yaml
// (docs/contracts.md §1); optional catalog values that are absent or null
// are zero values here (an empty string, a nil slice, Unset).
//
// The catalog format's planner metadata (description_human, intent_tags,
// latin_aliases, the CLI's handler and the rest of docs/contracts.md §1,
// "Validated, not tabled") is checked by the generator and left out of the
// tables: nothing in vox-mcp reads it, and a field nobody reads is a field a
// reader has to wonder about.
package registry

import "encoding/json"

// TableFormat2 is referenced by every generated table file. When the
// runtime changes the table format it renames this constant, so tables from
// an older generator stop compiling at the line that references it, whose
// comment says to run go generate ./... (format 2 dropped the planner
// metadata that format 1 carried.)
const TableFormat2 = 2

// OptBool is a catalog boolean that may be absent or null.
type OptBool int8

// The values of an OptBool.
const (
	Unset OptBool = iota
	False
	True
)

// The values of MCP.TaskSupport (TaskForbidden is stored as "").
const (
	TaskForbidden = "forbidden"
	TaskOptional  = "optional"
	TaskRequired  = "required"
)

// Catalog is the whole compiled catalog.
type Catalog struct {
	// Source is the repo-relative path of the catalog file.
	Source        string
	SchemaVersion int
	// XVoxVersion is the informational x-vox-version, 0 when absent.
	XVoxVersion int
	// Operations are sorted by ID.
	Operations []Operation
	Exemptions Exemptions
}

// Exemptions lists names exempt from the wiring checks of operations-verify.
type Exemptions struct {
	MCPTools []string
	CLIPaths [][]string
}

// Operation is one catalog row.
type Operation struct {
	ID              string
	Title           string
	Description     string
	ProductLane     string // projected to _meta.vox_product_lane
	SideEffectClass string // the row's (first) class; "" when absent or null
	// SideEffects are all the classes of a row that lists more than one
	// (side_effect_class: [writes_files, network]), nil otherwise; use
	// Classes, which decides the MCP annotations.
	SideEffects []string
	MCP         *MCP // nil: not an MCP tool
	CLI         *CLI // nil: not a CLI command
	// Line and Col locate the row in the catalog file when it was loaded
	// from YAML; they are 0 in generated tables.
	Line, Col int
}

// MCP is the MCP projection of a row.
type MCP struct {
	Name                 string
	Title                string // "" falls back to the row title
	Exposure             string // core, dev or advanced
	Requires             []string
	HTTPReadRoleEligible bool
	// AllowlistExempt keeps the tool callable while the session's active
	// skill has an allowlist that does not name it (docs/skills.md §6).
	AllowlistExempt bool
	// TaskSupport is "" (forbidden: the default), TaskOptional or
	// TaskRequired: whether a client may call the tool as a durable task
	// (mcp.task_support; docs/tasks.md).
	TaskSupport  string
	InputSchema  json.RawMessage // canonical schema literal
	OutputSchema json.RawMessage // nil when absent
}

// CLI is the CLI projection of a row.
type CLI struct {
	Path   []string
	Status string // active, deprecated, retired or internal
}

// Classes returns the side-effect classes of the row: SideEffects when it
// lists several, else SideEffectClass alone, else none.
func (op *Operation) Classes() []string {
	switch {
	case len(op.SideEffects) > 0:
		return op.SideEffects
	case op.SideEffectClass != "":
		return []string{op.SideEffectClass}
	}
	return nil
}

// Side-effect classes of a row (side_effect_class; docs/contracts.md §1).
const (
	SideEffectNone     = "none"
	SideEffectReadOnly = "read_only"
	// SideEffectChangesState changes the server's state for a session or
	// the process (the active skill), never files.
	SideEffectChangesState = "changes_state"
	// SideEffectRemovesState removes entries from the server's state (a
	// skill from the registry) without deleting files.
	SideEffectRemovesState  = "removes_state"
	SideEffectWritesFiles   = "writes_files"
	SideEffectSpawnsProcess = "spawns_process"
	SideEffectNetwork       = "network"
	SideEffectDestructive   = "destructive"
)

// Requirements a row may list under mcp.requires, checked at call time.
const (
	RequireWorkspace = "workspace"
	RequireSkills    = "skills"
	RequireSandbox   = "sandbox"
	RequireNetwork   = "network"
	RequireProcess   = "process"
)

// Tool sources, projected to _meta.vox_source.
const (
	SourceCatalog   = "catalog"
	SourceWorkspace = "workspace"
	SourceSkill     = "skill"
)

// Defaults and patterns of the catalog format.
const (
	DefaultExposure    = "core"
	DefaultInputSchema = `{"type":"object"}`
	CLIStatusActive    = "active"
	ToolNamePattern    = `^[A-Za-z0-9_-]{1,64}$`
	OperationIDPattern = `^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$`
	LatinAliasPattern  = `^[a-z0-9]+(-[a-z0-9]+)*$`
	// CatalogPath is where a repository keeps its catalog.
	CatalogPath = "contracts/operations/catalog.v1.yaml"
)

// MCPTools returns the rows with an MCP projection, in catalog (ID) order.
func (c *Catalog) MCPTools() []*Operation {
	var out []*Operation
	for i := range c.Operations {
		if c.Operations[i].MCP != nil {
			out = append(out, &c.Operations[i])
		}
	}
	return out
}
