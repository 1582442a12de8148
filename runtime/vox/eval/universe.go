package eval

import "github.com/vox-lang/vox-mcp/runtime/vox/resolve"

// builtinNames are the predeclared functions and values (spec 20 §6), in
// the order of the builtins table; the resolver binds names to these
// indices.
var builtinNames = []string{
	"print", "assert", "len", "str", "int", "float", "bool", "range", "type_of",
	"abs", "min", "max", "sum", "sorted", "floor", "ceil", "round", "sqrt", "Unit",
}

// namespaceNames are the capability namespaces. The first five provide
// functions; the rest exist only to deny every call with "capability
// denied: <ns>.<method>".
var namespaceNames = []string{"fs", "env", "json", "path", "time", "process", "http", "net", "shell", "exec"}

// Universe returns the predeclared names for the resolver.
func Universe() resolve.Universe {
	return resolve.Universe{Builtins: builtinNames, Namespaces: namespaceNames}
}
