package gen

import "github.com/vox-lang/vox-mcp/internal/contractdoc"

// Error is one problem in an input file, with its position.
type Error = contractdoc.Error

// Errors is every problem found in the inputs, sorted by position. The
// generator reports them all in one run and writes nothing.
type Errors = contractdoc.Errors
