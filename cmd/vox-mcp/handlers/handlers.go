// Package handlers implements the catalog tools that vox-mcp serves: one
// method of the generated catalog.Handlers interface per catalog row
// (docs/contracts.md §5). Each method receives its arguments decoded and
// checked by the generated code, defaults applied, and returns the typed
// result; the generated catalog.Bind adapts the methods to the server's
// untyped handler table.
//
// The package belongs to the vox-mcp binary, outside runtime/ and internal/: it is the
// product's answer to its own catalog, and reaches the server only
// through server.Services. Adding a catalog tool is a row in
// contracts/operations/catalog.v1.yaml, go generate ./..., and one method
// here; forgetting the method fails go build.
package handlers

import (
	"log/slog"

	"github.com/vox-lang/vox-mcp/generated/catalog"
	"github.com/vox-lang/vox-mcp/internal/server"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
)

// Handlers serves the catalog tools of vox-mcp.
type Handlers struct {
	svc *server.Services
	log *slog.Logger
}

// The compiler checks that every catalog tool has its method.
var _ catalog.Handlers = (*Handlers)(nil)

// New returns the handlers over the server's services.
func New(svc *server.Services) *Handlers { return &Handlers{svc: svc, log: svc.Logger()} }

// Table is the handler table of vox-mcp, a server.HandlerTable: the
// generated adapter of these handlers over the server's services.
func Table(svc *server.Services) map[string]toolcall.Handler { return catalog.Bind(New(svc)) }
