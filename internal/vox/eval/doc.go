// Package eval runs resolved Vox code (docs/vox-language.md): values,
// the interpreter, the builtins and methods, the limits, and the JSON
// bridge in both directions.
//
// A function's body is compiled on its first call (Program.Precompile
// compiles all of them at once), into a tree of Go closures over resolved
// frame slots; a call allocates no per-step state,
// small integers are unboxed in a fat Value struct, steps are counted per
// statement with static weights, and the context and the wall clock are
// polled every few thousand steps. All state of a call lives in its
// Thread, so one compiled Program serves concurrent calls.
package eval
