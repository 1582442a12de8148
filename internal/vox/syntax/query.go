package syntax

// IsKeyword reports whether name is a reserved word of Vox (fn, let,
// match, ...), which cannot name a variable, a function or a type: the
// language server refuses to rename to or from one.
func IsKeyword(name string) bool { return lookupKeyword(name) != IDENT }
