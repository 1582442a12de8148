package check

import "github.com/vox-lang/vox-mcp/runtime/vox/syntax"

// compatFn adds the vox/compat/... warnings of one function (Options.Compat).
func (c *checker) compatFn(d *syntax.FnDecl) {}
