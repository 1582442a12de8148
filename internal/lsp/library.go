package lsp

import (
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// What the server says about the library comes from the same tables the
// interpreter runs and docs/vox-language.md's reference is generated from:
// eval's builtins and methods, capability's namespaces.

func namespace(name string) *libsig.Namespace {
	for ni := range libsig.Namespaces() {
		ns := &libsig.Namespaces()[ni]
		if ns.Name == name {
			return ns
		}
	}
	return nil
}

func nsFunc(ns *libsig.Namespace, name string) *libsig.Entry {
	for fi := range ns.Funcs {
		f := &ns.Funcs[fi]
		if f.Name == name {
			return f
		}
	}
	return nil
}

// methodRef is a method with the table it belongs to.
type methodRef struct {
	table *libsig.Receiver
	m     *libsig.Entry
}

// methodsNamed returns the methods called name: those of the receiver's
// table and of any value when the receiver's type is known (table not
// nil), else those of every table.
func methodsNamed(name string, table *libsig.Receiver) []methodRef {
	var out []methodRef
	for ti := range libsig.Receivers() {
		t := &libsig.Receivers()[ti]
		if table != nil && t != table && t.Type != "any" {
			continue
		}
		for mi := range t.Methods {
			m := &t.Methods[mi]
			if m.Name == name {
				out = append(out, methodRef{t, m})
			}
		}
	}
	return out
}

// methodTable returns the method table of a type as Vox writes it (str,
// list[int], Option[str], ...), or nil when the type is not known.
func methodTable(typ string) *libsig.Receiver {
	base, _, _ := strings.Cut(typ, "[")
	var receiver string
	switch base {
	case "str":
		receiver = "str"
	case "list":
		receiver = "list[T]"
	case "map":
		receiver = "map[str, V]"
	case "int", "float":
		receiver = "N: int | float"
	case "Option":
		receiver = "Option[T]"
	case "Result":
		receiver = "Result[T, E]"
	case "Unit":
		receiver = "Unit"
	default:
		if strings.HasPrefix(typ, "(") {
			receiver = "tuple"
		}
	}
	for ti := range libsig.Receivers() {
		t := &libsig.Receivers()[ti]
		if t.Type == receiver {
			return t
		}
	}
	return nil
}

// receiverName is how a method's receiver is shown: str.trim, list.push.
func receiverName(t *libsig.Receiver) string {
	switch t.Type {
	case "N: int | float":
		return "number"
	case "any":
		return "any"
	}
	base, _, _ := strings.Cut(t.Type, "[")
	return base
}

// decorator is a decorator the language knows (docs/vox-language.md,
// Tools and resources).
type decorator struct {
	name, detail, doc string
}

var decorators = []decorator{
	{"@tool", `@tool "description"`, "Declares the next function a workspace tool: its parameters become the tool's input JSON Schema, the string its description."},
	{"@resource", `@resource "uri" "description"`, "Declares the next function a workspace resource at the URI; it takes no arguments and returns str or Ok(str)."},
	{"@mcp.resource", `@mcp.resource("uri", "description")`, "The call form of @resource."},
	{"@mcp.complete", `@mcp.complete("param", fn)`, "Completes an argument of the next @mcp.prompt or URI-template @mcp.resource function (extension): fn, a plain fn() to list[str] of the file, gives the candidates."},
	{"@mcp.prompt", `@mcp.prompt("description")`, "Declares the next function a workspace prompt (extension): its parameters, str or Option[str], are the prompt's arguments; it returns str, one user message, or list[Message], messages {role, content}."},
	{"@uses", `@uses(net, fs)`, "Adds effects to the function's uses clause (net db fs env clock random spawn gpu_compute mutate nothing mcp(tool)); effects are recorded, they grant nothing."},
	{"@mcp.tool", `@mcp.tool "description"`, "Deprecated: write @tool (warning vox/decorator/mcp-tool-deprecated)."},
	{"@input_schema", `@input_schema(r"{...}")`, "Gives a tool's input JSON Schema explicitly, one string (extension): for what the parameter types cannot say."},
	{"@long_running", `@long_running`, "Lets a client call the next @tool function as a durable task (extension): its execution.taskSupport is optional."},
}

// keywords offered by completion where a name may start.
var keywords = []string{"fn", "let", "mut", "return", "if", "else", "while", "loop", "for", "in", "break", "continue", "match", "true", "false", "and", "or", "not", "type", "import", "to", "uses"}

// typeOf guesses the type of an expression from its form, the declared
// types of locals, constants and functions, and the library's result
// types; "" when it is not evident. The checker's types (checkedType)
// come first where it recorded one; this covers what it does not record
// (expressions that are not names) and the text of a function that does
// not parse.
func (a *analysis) typeOf(e syntax.Expr, depth int) string {
	if depth > 16 || e == nil {
		return ""
	}
	switch e := e.(type) {
	case *syntax.Literal:
		switch e.Tok {
		case syntax.INT:
			return "int"
		case syntax.FLOAT:
			return "float"
		case syntax.DEC:
			return "dec"
		case syntax.STRING:
			return "str"
		case syntax.TRUE, syntax.FALSE:
			return "bool"
		}
	case *syntax.TemplateLit:
		return "str"
	case *syntax.ListExpr:
		if len(e.Elems) > 0 {
			if t := a.typeOf(e.Elems[0], depth+1); t != "" {
				return "list[" + t + "]"
			}
		}
		return "list"
	case *syntax.ObjectExpr:
		return "map"
	case *syntax.RecordLit:
		return e.Type.Name
	case *syntax.Ident:
		if t := a.checkedType(e.NamePos); t != "" {
			return t
		}
		return a.identType(e, depth)
	case *syntax.UnaryExpr:
		if e.Op == syntax.NOT {
			return "bool"
		}
		return a.typeOf(e.X, depth+1)
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE, syntax.AND, syntax.OR, syntax.NOT, syntax.IN, syntax.NOT_IN, syntax.IS, syntax.ISNT:
			return "bool"
		case syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASH, syntax.PERCENT:
			x, y := a.typeOf(e.X, depth+1), a.typeOf(e.Y, depth+1)
			if x == y {
				return x
			}
		}
	case *syntax.TryExpr:
		t := a.typeOf(e.X, depth+1)
		if strings.HasPrefix(t, "Result[") || strings.HasPrefix(t, "Option[") {
			return firstTypeArg(t)
		}
	case *syntax.CallExpr:
		return a.callType(e, depth)
	}
	return ""
}

func (a *analysis) identType(id *syntax.Ident, depth int) string {
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil {
		return ""
	}
	switch b.Scope {
	case resolve.Local, resolve.Cell:
		if l := a.locals[b]; l != nil {
			return a.localType(l, depth+1)
		}
	case resolve.Free:
		if l := a.locals[a.captured[id]]; l != nil {
			return a.localType(l, depth+1)
		}
	case resolve.Const:
		if c := a.res.Consts[b.Index]; c.Type != nil {
			return c.Type.String()
		} else {
			return a.typeOf(c.Value, depth+1)
		}
	}
	return ""
}

func (a *analysis) localType(l *local, depth int) string {
	if l.typ != nil {
		return l.typ.String()
	}
	if t := a.checkedType(l.binding.Pos); t != "" {
		return t
	}
	return a.typeOf(l.value, depth)
}

func (a *analysis) callType(e *syntax.CallExpr, depth int) string {
	switch fn := e.Fn.(type) {
	case *syntax.Ident:
		b, _ := fn.Binding.(*resolve.Binding)
		if b == nil {
			return ""
		}
		switch b.Scope {
		case resolve.Global:
			if r := a.res.Funcs[b.Index].Result; r != nil {
				return r.String()
			}
		case resolve.Builtin:
			return concrete(libsig.Builtins()[b.Index].Sig.Result)
		case resolve.Ctor:
			c := a.res.Ctors[b.Index]
			if len(e.Args) == 1 && (c.Type == "Option" || c.Type == "Result") {
				if t := a.typeOf(e.Args[0].Value, depth+1); t != "" && c.Type == "Option" {
					return "Option[" + t + "]"
				}
			}
			return c.Type
		}
	case *syntax.DotExpr:
		if ns := a.namespaceOf(fn.X); ns != nil {
			if f := nsFunc(ns, fn.Name); f != nil {
				return concrete(f.Sig.Result)
			}
			return ""
		}
		if t := methodTable(a.typeOf(fn.X, depth+1)); t != nil {
			if ms := methodsNamed(fn.Name, t); len(ms) > 0 {
				return concrete(ms[0].m.Sig.Result)
			}
		}
	}
	return ""
}

// namespaceOf returns the capability namespace an expression names, or
// nil.
func (a *analysis) namespaceOf(x syntax.Expr) *libsig.Namespace {
	id, ok := x.(*syntax.Ident)
	if !ok {
		return nil
	}
	if b, _ := id.Binding.(*resolve.Binding); b != nil && b.Scope == resolve.Namespace {
		return &libsig.Namespaces()[b.Index]
	}
	return nil
}

// concrete returns a library result type unless it has type variables
// (T, N, V), which only a checker can bind.
func concrete(t string) string {
	for _, f := range strings.FieldsFunc(t, func(r rune) bool { return strings.ContainsRune("[](), |:", r) }) {
		if len(f) == 1 && 'A' <= f[0] && f[0] <= 'Z' {
			return ""
		}
	}
	return t
}

// firstTypeArg returns T of Name[T, ...].
func firstTypeArg(t string) string {
	_, args, ok := strings.Cut(t, "[")
	if !ok {
		return ""
	}
	depth := 0
	for i, c := range args {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			if depth == 0 {
				return strings.TrimSpace(args[:i])
			}
			depth--
		case ',':
			if depth == 0 {
				return strings.TrimSpace(args[:i])
			}
		}
	}
	return ""
}
