package syntax

// This file defines the syntax tree. The resolver annotates it (Ident.Binding,
// the Function field of FnDecl and FuncLit); nothing else changes it after
// parsing.

// Node is any node of the tree.
type Node interface {
	Span() Pos // the position of the node's first token
}

// Expr is an expression.
type Expr interface {
	Node
	expr()
}

// Stmt is a statement.
type Stmt interface {
	Node
	stmt()
}

// Decl is a top-level declaration.
type Decl interface {
	Node
	decl()
}

// File is a parsed .vox file.
type File struct {
	Path  string
	Decls []Decl
	// Script is the synthetic function main that holds the top-level
	// statements of a file parsed with ParseScript (nil otherwise, and
	// when the script has none); it is also the last of Decls.
	Script *FnDecl
	// Comments are the file's comments in order (trivia.go).
	Comments []*CommentGroup
}

// FnKind says what a function declaration declares.
type FnKind uint8

// The function kinds.
const (
	PlainFn FnKind = iota
	ToolFn
	ResourceFn
	// PromptFn is a workspace prompt, @mcp.prompt("description"): a
	// vox-mcp extension (docs/vox-language.md, Prompts).
	PromptFn
)

// Decorator is one @name with its argument text (for ignored decorators
// the arguments are not parsed).
type Decorator struct {
	Pos  Pos
	Name string // including '@'
	End  Pos    // position after the name

	// Kind is the word of @endpoint(kind: WORD), at KindPos; it is empty,
	// and KindPos the position after the name or of the '(', when the
	// arguments are not of that form (spec 22 §4.2; the checker warns).
	Kind    string
	KindPos Pos
}

// FnDecl is a function: a tool, a resource or a plain function.
type FnDecl struct {
	Head       Pos // first decorator or keyword
	Kind       FnKind
	Decorators []Decorator
	NamePos    Pos
	Name       string
	TypeParams []*Ident // <T, U> (or the legacy [T, U])
	Params     []*Param
	Effects    []*Effect // the uses clause, then the effects of @uses(...)
	Result     *Type     // nil when absent
	Body       *Block

	Description string // tools, resources and prompts
	URI         string // resources
	URIPos      Pos    // where URI is written (its opening quote)
	MIMEType    string // resources: the explicit MIME type, "" when the URI's extension decides
	MIMEPos     Pos    // where MIMEType is written

	// Completions are the @mcp.complete("param", fn) decorators of a
	// prompt or a resource template (docs/vox-language.md, Completion), in
	// order.
	Completions []Completion

	// InputSchema is the text of @input_schema(...), a tool's explicit
	// input schema; InputSchemaPos is where it is written (zero when
	// there is none).
	InputSchema    string
	InputSchemaPos Pos

	// LongRunning is set by @long_running on a tool: a client may call
	// it as a durable task (docs/tasks.md §3).
	LongRunning bool

	// Unavailable is set when a plain function's text uses syntax outside
	// the subset; Body is nil then.
	Unavailable *Unavailable

	Function any // set by the resolver
}

// Completion is @mcp.complete("param", fn): the plain function fn gives
// the completion candidates of the argument param.
type Completion struct {
	Param    string
	ParamPos Pos
	Func     string
	FuncPos  Pos
}

// Effect is one effect of a uses clause (uses net, fs) or of @uses(...):
// net db fs env clock random spawn gpu_compute mutate nothing, or mcp
// with the name of a tool (mcp(search)) in Arg.
type Effect struct {
	Pos  Pos
	Name string
	Arg  string
}

// Effects are the effect names a uses clause may list.
var Effects = []string{"net", "db", "fs", "env", "clock", "random", "spawn", "gpu_compute", "mutate", "nothing", "mcp"}

// Unavailable records why a plain function could not be parsed.
type Unavailable struct {
	Pos    Pos
	Reason string
}

func (d *FnDecl) Span() Pos { return d.Head }

// Param is a parameter of a function, a lambda or a variant.
type Param struct {
	NamePos     Pos
	Name        string
	Type        *Type // nil when not annotated
	Default     Expr  // nil when absent
	DefaultText string
	Ident       *Ident // the parameter as a binding occurrence
}

// TypeKind says what a type annotation is.
type TypeKind uint8

// The kinds of type annotations.
const (
	NamedType TypeKind = iota // Name or Name[Args]
	TupleType                 // (Args); () is Unit
	FuncType                  // fn(Args) to Result
	IntType                   // an integer used as a type argument: Tensor[2]
)

// Type is a type annotation.
type Type struct {
	Pos    Pos
	Kind   TypeKind
	Name   string  // NamedType: the name; IntType: the digits
	Args   []*Type // type arguments, tuple elements or parameter types
	Result *Type   // FuncType: the result; nil means Unit
}

// IsNamed reports whether t is the named type name (with or without
// arguments).
func (t *Type) IsNamed(name string) bool { return t != nil && t.Kind == NamedType && t.Name == name }

func (t *Type) String() string {
	if t == nil {
		return ""
	}
	var b []byte
	t.appendTo(&b, 0)
	return string(b)
}

// AppendTo appends t as written (String) to b.
func (t *Type) AppendTo(b []byte) []byte {
	if t != nil {
		t.appendTo(&b, 0)
	}
	return b
}

func (t *Type) appendTo(b *[]byte, depth int) {
	if depth > maxDepth {
		*b = append(*b, "..."...)
		return
	}
	open, close := byte('['), byte(']')
	switch t.Kind {
	case TupleType:
		open, close = '(', ')'
	case FuncType:
		*b = append(*b, "fn"...)
		open, close = '(', ')'
	default:
		*b = append(*b, t.Name...)
		if len(t.Args) == 0 {
			return
		}
	}
	*b = append(*b, open)
	for i, a := range t.Args {
		if i > 0 {
			*b = append(*b, ", "...)
		}
		a.appendTo(b, depth+1)
	}
	*b = append(*b, close)
	if t.Kind == FuncType && t.Result != nil {
		*b = append(*b, " to "...)
		t.Result.appendTo(b, depth+1)
	}
}

// TypeDecl is an algebraic type: type Name = | A | B(x: int).
type TypeDecl struct {
	Pos      Pos
	NamePos  Pos
	Name     string
	Params   []*Ident // the legacy [T] (a warning: the reference has none)
	Variants []*Variant
}

func (d *TypeDecl) Span() Pos { return d.Pos }

// RecordDecl is a record type: type Name { field: type, ... }. Its values
// are maps whose keys are the fields, in declaration order.
type RecordDecl struct {
	Pos     Pos
	NamePos Pos
	Name    string
	Fields  []*Field
}

func (d *RecordDecl) Span() Pos { return d.Pos }

// Field is a field of a record type.
type Field struct {
	NamePos Pos
	Name    string
	Type    *Type
}

// Variant is one constructor of an algebraic type.
type Variant struct {
	Pos    Pos
	Name   string
	Fields []*Param
}

// ConstDecl is a module constant: let NAME [: type] = expr.
type ConstDecl struct {
	Pos   Pos
	Name  string
	Type  *Type
	Value Expr
	Index int // set by the resolver
}

func (d *ConstDecl) Span() Pos { return d.Pos }

// ImportDecl is an import line, recorded but not resolved.
type ImportDecl struct {
	Pos  Pos
	Path string
}

func (d *ImportDecl) Span() Pos { return d.Pos }

// SkippedDecl is a tolerated declaration of the wider language, kept as an
// opaque unit.
type SkippedDecl struct {
	Pos  Pos
	Word string // the decorator or keyword that led it
}

func (d *SkippedDecl) Span() Pos { return d.Pos }

func (*FnDecl) decl()      {}
func (*TypeDecl) decl()    {}
func (*RecordDecl) decl()  {}
func (*ConstDecl) decl()   {}
func (*ImportDecl) decl()  {}
func (*SkippedDecl) decl() {}

// Statements.

// LetStmt is let [mut] pattern [: type] = value.
type LetStmt struct {
	Pos     Pos
	Mut     bool
	Pattern Pattern
	Type    *Type
	Value   Expr
}

// ReturnStmt is return [value].
type ReturnStmt struct {
	Pos   Pos
	Value Expr // nil for a bare return
}

// BranchStmt is break or continue.
type BranchStmt struct {
	Pos Pos
	Tok Token // BREAK or CONTINUE
}

// WhileStmt is while cond { body }. Loops are statements that may also
// stand where an expression is wanted; their value is Unit.
type WhileStmt struct {
	Pos  Pos
	Cond Expr
	Body *Block
}

// LoopStmt is loop { body }.
type LoopStmt struct {
	Pos  Pos
	Body *Block
}

// ForStmt is for pattern [, index] in iter { body }: Pattern binds each
// element (a name, _, or a tuple pattern: for (k, v) in m), Index, when
// present, the position (a *BindPat or a *WildcardPat).
type ForStmt struct {
	Pos     Pos
	Pattern Pattern
	Index   Pattern
	Iter    Expr
	Key     Expr // key = expr after the iterable: a hint for rendering views, evaluated by nothing
	Body    *Block
}

// AssignStmt is lhs op rhs with op one of = += -= *= /=.
type AssignStmt struct {
	Pos Pos // of the operator
	Op  Token
	LHS Expr
	RHS Expr
}

// ExprStmt is an expression used as a statement.
type ExprStmt struct {
	X Expr
}

func (s *LetStmt) Span() Pos    { return s.Pos }
func (s *ReturnStmt) Span() Pos { return s.Pos }
func (s *BranchStmt) Span() Pos { return s.Pos }
func (s *WhileStmt) Span() Pos  { return s.Pos }
func (s *LoopStmt) Span() Pos   { return s.Pos }
func (s *ForStmt) Span() Pos    { return s.Pos }
func (s *AssignStmt) Span() Pos { return s.LHS.Span() }
func (s *ExprStmt) Span() Pos   { return s.X.Span() }

func (*WhileStmt) expr() {}
func (*LoopStmt) expr()  {}
func (*ForStmt) expr()   {}

func (*LetStmt) stmt()    {}
func (*ReturnStmt) stmt() {}
func (*BranchStmt) stmt() {}
func (*WhileStmt) stmt()  {}
func (*LoopStmt) stmt()   {}
func (*ForStmt) stmt()    {}
func (*AssignStmt) stmt() {}
func (*ExprStmt) stmt()   {}

// Expressions.

// Ident is a name. The resolver sets Binding.
type Ident struct {
	NamePos Pos
	Name    string
	Binding any
}

// Literal is an INT, FLOAT, DEC, STRING, true or false.
type Literal struct {
	Pos   Pos
	Tok   Token // INT, FLOAT, DEC, STRING, TRUE, FALSE
	Int   int64
	Float float64
	Str   string // a string's value; a decimal's digits (0.10 for 0.10dec)
}

// TemplateLit is a string with {name} interpolations.
type TemplateLit struct {
	Pos   Pos
	Parts []string
	Vars  []*Ident
}

// ListExpr is [a, b, ...].
type ListExpr struct {
	Pos   Pos
	Elems []Expr
}

// TupleExpr is (a, b, ...) or ().
type TupleExpr struct {
	Pos   Pos
	Elems []Expr
}

// ObjectExpr is {key: value, ...}.
type ObjectExpr struct {
	Pos    Pos
	Keys   []string
	KeyPos []Pos
	Values []Expr
}

// RecordLit is a record literal: Name { field: value, ... }. The resolver
// sets Record to the *RecordDecl of Name.
type RecordLit struct {
	Type   *Ident
	Lbrace Pos
	Fields []*FieldInit
	Record any
}

// FieldInit is one field: value of a record literal.
type FieldInit struct {
	NamePos Pos
	Name    string
	Value   Expr
}

// Block is { stmts }; as an expression its value is the last expression
// statement's.
type Block struct {
	Lbrace Pos
	Stmts  []Stmt
}

// IfExpr is if cond { then } [else ...]; Else is a *Block, an *IfExpr or nil.
type IfExpr struct {
	Pos  Pos
	Cond Expr
	Then *Block
	Else Expr
}

// MatchExpr is match x { pattern => body ... }.
type MatchExpr struct {
	Pos  Pos
	X    Expr
	Arms []*MatchArm
}

// MatchArm is one arm of a match: pattern [if guard] => body. A body
// that is a statement (return, break, continue, an assignment) is a Block
// holding it.
type MatchArm struct {
	Pattern Pattern
	Guard   Expr // nil when absent
	Body    Expr
}

// FuncLit is a lambda: fn (params) [to T] { body } or fn (params) expr or
// name => expr.
type FuncLit struct {
	Pos      Pos
	Params   []*Param
	Result   *Type
	Body     *Block
	Function any // set by the resolver
}

// CallExpr is fn(args).
type CallExpr struct {
	Fn     Expr
	Lparen Pos
	Args   []*Arg
}

// Arg is a call argument, named when Name is not empty.
type Arg struct {
	NamePos Pos
	Name    string
	Value   Expr
}

// DotExpr is x.name (a field, or a method when it is the Fn of a CallExpr).
type DotExpr struct {
	X       Expr
	NamePos Pos
	Name    string
}

// IndexExpr is x[index].
type IndexExpr struct {
	X      Expr
	Lbrack Pos
	Index  Expr
}

// TryExpr is x?.
type TryExpr struct {
	X    Expr
	QPos Pos
}

// UnaryExpr is not x or -x.
type UnaryExpr struct {
	Pos Pos
	Op  Token // NOT or MINUS
	X   Expr
}

// ViewExpr is a view element of the wider language, NAME(attr = v, ...)
// { children }, where NAME is a capitalised name, a UI primitive or an
// HTML or SVG tag and every argument is named (spec 22 §4.3). vox-mcp
// parses it, so that the function around it is checked and stays
// available; evaluating one fails.
type ViewExpr struct {
	NamePos  Pos
	Name     string
	Attrs    []*Arg
	Children []Expr
}

// WithExpr is x with options: an option bag (retries, timeout, ...) for
// a durable call, evaluated and checked, then ignored.
type WithExpr struct {
	X       Expr
	WithPos Pos
	Options Expr
}

// BinaryExpr is x op y (op IN and NOT_IN for x in y, x not in y).
type BinaryExpr struct {
	X     Expr
	OpPos Pos
	Op    Token
	Y     Expr
}

func (e *Ident) Span() Pos       { return e.NamePos }
func (e *Literal) Span() Pos     { return e.Pos }
func (e *TemplateLit) Span() Pos { return e.Pos }
func (e *ListExpr) Span() Pos    { return e.Pos }
func (e *TupleExpr) Span() Pos   { return e.Pos }
func (e *ObjectExpr) Span() Pos  { return e.Pos }
func (e *Block) Span() Pos       { return e.Lbrace }
func (e *IfExpr) Span() Pos      { return e.Pos }
func (e *MatchExpr) Span() Pos   { return e.Pos }
func (e *FuncLit) Span() Pos     { return e.Pos }
func (e *CallExpr) Span() Pos    { return e.Fn.Span() }
func (e *DotExpr) Span() Pos     { return e.X.Span() }
func (e *IndexExpr) Span() Pos   { return e.X.Span() }
func (e *TryExpr) Span() Pos     { return e.X.Span() }
func (e *UnaryExpr) Span() Pos   { return e.Pos }
func (e *BinaryExpr) Span() Pos  { return e.X.Span() }
func (e *RecordLit) Span() Pos   { return e.Type.NamePos }
func (e *WithExpr) Span() Pos    { return e.X.Span() }
func (e *ViewExpr) Span() Pos    { return e.NamePos }

func (*Ident) expr()       {}
func (*Literal) expr()     {}
func (*TemplateLit) expr() {}
func (*ListExpr) expr()    {}
func (*TupleExpr) expr()   {}
func (*ObjectExpr) expr()  {}
func (*Block) expr()       {}
func (*IfExpr) expr()      {}
func (*MatchExpr) expr()   {}
func (*FuncLit) expr()     {}
func (*CallExpr) expr()    {}
func (*DotExpr) expr()     {}
func (*IndexExpr) expr()   {}
func (*TryExpr) expr()     {}
func (*UnaryExpr) expr()   {}
func (*BinaryExpr) expr()  {}
func (*RecordLit) expr()   {}
func (*WithExpr) expr()    {}
func (*ViewExpr) expr()    {}

// Patterns.

// Pattern is a match or let pattern.
type Pattern interface {
	Node
	pattern()
}

// WildcardPat is _.
type WildcardPat struct{ Pos Pos }

// BindPat is a name: it binds, unless the name is a nullary constructor
// (None, Loading), which it then matches.
type BindPat struct{ Ident *Ident }

// LiteralPat matches an equal literal (a leading minus is folded into it).
type LiteralPat struct {
	Lit *Literal
}

// CtorPat is Name(p, ...).
type CtorPat struct {
	Name *Ident
	Args []Pattern
}

// TuplePat is (p, ...); (p,) has one element and (p) is p.
type TuplePat struct {
	Pos   Pos
	Elems []Pattern
}

func (p *WildcardPat) Span() Pos { return p.Pos }
func (p *BindPat) Span() Pos     { return p.Ident.NamePos }
func (p *LiteralPat) Span() Pos  { return p.Lit.Pos }
func (p *CtorPat) Span() Pos     { return p.Name.NamePos }
func (p *TuplePat) Span() Pos    { return p.Pos }

func (*WildcardPat) pattern() {}
func (*BindPat) pattern()     {}
func (*LiteralPat) pattern()  {}
func (*CtorPat) pattern()     {}
func (*TuplePat) pattern()    {}
