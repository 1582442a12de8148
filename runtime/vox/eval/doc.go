// Package eval runs resolved Vox code (spec 20-vox-language §5–§6): values,
// the interpreter, the builtins and methods, the limits, and the JSON
// bridge in both directions.
//
// Functions are compiled once, when a module is built, into trees of Go
// closures over resolved frame slots; a call allocates no per-step state,
// small integers are unboxed in a fat Value struct, steps are counted per
// statement with static weights, and the context and the wall clock are
// polled every few thousand steps. All state of a call lives in its
// Thread, so one compiled Program serves concurrent calls.
package eval
