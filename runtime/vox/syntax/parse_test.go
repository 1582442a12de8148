package syntax

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestExprSyntax parses expressions and statements and compares the trees
// with what they must be, in the manner of go.starlark.net's
// syntax/parse_test.go: a wrong parse that produces no diagnostic shows
// here. Each source is the body of a function; want is the compact form
// of its statements (treeString), one per statement.
func TestExprSyntax(t *testing.T) {
	for _, test := range exprTests {
		f, diags := Parse("test.vox", []byte("fn f() {\n"+test.src+"\n}\n"))
		if len(diags) > 0 {
			t.Errorf("%q: unexpected diagnostics: %v", test.src, diags)
			continue
		}
		fn := f.Decls[0].(*FnDecl)
		var got []string
		for _, s := range fn.Body.Stmts {
			got = append(got, treeString(s))
		}
		if g := strings.Join(got, "\n"); g != test.want {
			t.Errorf("%q\n got: %s\nwant: %s", test.src, g, test.want)
		}
	}
}

var exprTests = []struct{ src, want string }{
	// Precedence and associativity: |> or and == < + * then unary.
	{`a + b * c`, `(ExprStmt X=(BinaryExpr X=a Op=+ Y=(BinaryExpr X=b Op=* Y=c)))`},
	{`a * b + c`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=a Op=* Y=b) Op=+ Y=c))`},
	{`a - b - c`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=a Op=- Y=b) Op=- Y=c))`},
	{`a / b % c`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=a Op=/ Y=b) Op=% Y=c))`},
	{`a < b == c`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=a Op=< Y=b) Op=== Y=c))`},
	{`a or b and c`, `(ExprStmt X=(BinaryExpr X=a Op=or Y=(BinaryExpr X=b Op=and Y=c)))`},
	{`a and b or c`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=a Op=and Y=b) Op=or Y=c))`},
	{`a == b and c != d`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=a Op=== Y=b) Op=and Y=(BinaryExpr X=c Op=!= Y=d)))`},
	{`a is b`, `(ExprStmt X=(BinaryExpr X=a Op=is Y=b))`},
	{`x |> f |> g`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=x Op=|> Y=f) Op=|> Y=g))`},
	{`x + 1 |> f`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=x Op=+ Y=1) Op=|> Y=f))`},
	{`(a + b) * c`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=a Op=+ Y=b) Op=* Y=c))`},
	// Unary operators bind tighter than every binary one; - folds into
	// a literal it touches.
	{`not a == b`, `(ExprStmt X=(BinaryExpr X=(UnaryExpr Op=not X=a) Op=== Y=b))`},
	{`-a * b`, `(ExprStmt X=(BinaryExpr X=(UnaryExpr Op=- X=a) Op=* Y=b))`},
	{`-1`, `(ExprStmt X=-1)`},
	{`- 1`, `(ExprStmt X=(UnaryExpr Op=- X=1))`},
	{`-2.5`, `(ExprStmt X=-2.5)`},
	{`- -a`, `(ExprStmt X=(UnaryExpr Op=- X=(UnaryExpr Op=- X=a)))`},
	{`a - -1`, `(ExprStmt X=(BinaryExpr X=a Op=- Y=-1))`},
	// Postfix: calls, fields, indexing and '?' chain left to right.
	{`f(x)(y)`, `(ExprStmt X=(CallExpr Fn=(CallExpr Fn=f Args=((Arg Value=x))) Args=((Arg Value=y))))`},
	{`a.b.c`, `(ExprStmt X=(DotExpr X=(DotExpr X=a Name=b) Name=c))`},
	{`a.b(1, k = 2)`, `(ExprStmt X=(CallExpr Fn=(DotExpr X=a Name=b) Args=((Arg Value=1) (Arg Name=k Value=2))))`},
	{`xs[i][j]`, `(ExprStmt X=(IndexExpr X=(IndexExpr X=xs Index=i) Index=j))`},
	{`f(x)?.y`, `(ExprStmt X=(DotExpr X=(TryExpr X=(CallExpr Fn=f Args=((Arg Value=x)))) Name=y))`},
	{`-a.b`, `(ExprStmt X=(UnaryExpr Op=- X=(DotExpr X=a Name=b)))`},
	{`a.match`, `(ExprStmt X=(DotExpr X=a Name=match))`},
	{`f(a == b)`, `(ExprStmt X=(CallExpr Fn=f Args=((Arg Value=(BinaryExpr X=a Op=== Y=b)))))`},
	{"xs\n  .map(f)\n  .len()", `(ExprStmt X=(CallExpr Fn=(DotExpr X=(CallExpr Fn=(DotExpr X=xs Name=map) Args=((Arg Value=f))) Name=len)))`},
	// Literals and collections.
	{"1\n2.5\n\"s\"\ntrue\nfalse", "(ExprStmt X=1)\n(ExprStmt X=2.5)\n(ExprStmt X=\"s\")\n(ExprStmt X=true)\n(ExprStmt X=false)"},
	{`"hi {name}!"`, `(ExprStmt X=(TemplateLit Parts=("hi " "!") Vars=(name)))`},
	{`[1, [2], ]`, `(ExprStmt X=(ListExpr Elems=(1 (ListExpr Elems=(2)))))`},
	{`[]`, `(ExprStmt X=(ListExpr))`},
	{`()`, `(ExprStmt X=(TupleExpr))`},
	{`(a, b)`, `(ExprStmt X=(TupleExpr Elems=(a b)))`},
	{`(a,)`, `(ExprStmt X=(TupleExpr Elems=(a)))`},
	{`(a)`, `(ExprStmt X=a)`},
	{`let o = {a: 1, "b c": [x]}`, `(LetStmt Pattern=(BindPat Ident=o) Value=(ObjectExpr Keys=(a "b c") Values=(1 (ListExpr Elems=(x)))))`},
	{`let o = {}`, `(LetStmt Pattern=(BindPat Ident=o) Value=(ObjectExpr))`},
	// A '{' that does not start an object starts a block.
	{`let v = { let a = 1
a }`, `(LetStmt Pattern=(BindPat Ident=v) Value=(Block Stmts=((LetStmt Pattern=(BindPat Ident=a) Value=1) (ExprStmt X=a))))`},
	// Control flow.
	{`if a { b } else if c { d } else { e }`, `(ExprStmt X=(IfExpr Cond=a Then=(Block Stmts=((ExprStmt X=b))) Else=(IfExpr Cond=c Then=(Block Stmts=((ExprStmt X=d))) Else=(Block Stmts=((ExprStmt X=e))))))`},
	{`if x == ({}) { }`, `(ExprStmt X=(IfExpr Cond=(BinaryExpr X=x Op=== Y=(ObjectExpr)) Then=(Block)))`},
	{`match x { Some(v) => v, None => 0, _ => 1 }`, `(ExprStmt X=(MatchExpr X=x Arms=((MatchArm Pattern=(CtorPat Name=Some Args=((BindPat Ident=v))) Body=v) (MatchArm Pattern=(BindPat Ident=None) Body=0) (MatchArm Pattern=(WildcardPat) Body=1))))`},
	{`match p { (1, "a") => x, -1 => y }`, `(ExprStmt X=(MatchExpr X=p Arms=((MatchArm Pattern=(TuplePat Elems=((LiteralPat Lit=1) (LiteralPat Lit="a"))) Body=x) (MatchArm Pattern=(LiteralPat Lit=-1) Body=y))))`},
	{`while i < n { i += 1 }`, `(WhileStmt Cond=(BinaryExpr X=i Op=< Y=n) Body=(Block Stmts=((AssignStmt Op=+= LHS=i RHS=1))))`},
	{`for k, v in m { continue }`, `(ForStmt Vars=(k v) Iter=m Body=(Block Stmts=((BranchStmt Tok=continue))))`},
	{`for x in ({a: 1}) { break }`, `(ForStmt Vars=(x) Iter=(ObjectExpr Keys=(a) Values=(1)) Body=(Block Stmts=((BranchStmt Tok=break))))`},
	{`loop { return }`, `(LoopStmt Body=(Block Stmts=((ReturnStmt))))`},
	{`return a + 1`, `(ReturnStmt Value=(BinaryExpr X=a Op=+ Y=1))`},
	// Bindings and assignment.
	{`let mut x: int = 1`, `(LetStmt Mut=true Pattern=(BindPat Ident=x) Type=int Value=1)`},
	{`let (a, _) = t`, `(LetStmt Pattern=(TuplePat Elems=((BindPat Ident=a) (WildcardPat))) Value=t)`},
	{`xs[0] = f(y)`, `(AssignStmt Op== LHS=(IndexExpr X=xs Index=0) RHS=(CallExpr Fn=f Args=((Arg Value=y))))`},
	{`o.k -= 2`, `(AssignStmt Op=-= LHS=(DotExpr X=o Name=k) RHS=2)`},
	// Functions as values.
	{`x => x + 1`, `(ExprStmt X=(FuncLit Params=((Param Name=x)) Body=(Block Stmts=((ExprStmt X=(BinaryExpr X=x Op=+ Y=1))))))`},
	{`fn(a: int, b) to int { a }`, `(ExprStmt X=(FuncLit Params=((Param Name=a Type=int) (Param Name=b)) Result=int Body=(Block Stmts=((ExprStmt X=a)))))`},
	{`xs.map(x => x * 2)`, `(ExprStmt X=(CallExpr Fn=(DotExpr X=xs Name=map) Args=((Arg Value=(FuncLit Params=((Param Name=x)) Body=(Block Stmts=((ExprStmt X=(BinaryExpr X=x Op=* Y=2)))))))))`},
}

// treeString prints a tree compactly: (Node Field=value ...), leaving out
// positions, fields the resolver sets and zero values; identifiers and
// literals print as written.
func treeString(n Node) string {
	var b strings.Builder
	writeTree(&b, reflect.ValueOf(n))
	return b.String()
}

var (
	posType   = reflect.TypeFor[Pos]()
	tokenType = reflect.TypeFor[Token]()
	typeType  = reflect.TypeFor[*Type]()
)

func writeTree(b *strings.Builder, x reflect.Value) {
	switch x.Kind() {
	case reflect.Interface, reflect.Pointer:
		if x.IsNil() {
			b.WriteString("nil")
			return
		}
		switch n := x.Interface().(type) {
		case *Ident:
			b.WriteString(n.Name)
			return
		case *Literal:
			b.WriteString(literalString(n))
			return
		case *Type:
			b.WriteString(n.String())
			return
		}
		writeTree(b, x.Elem())
	case reflect.Struct:
		name := strings.TrimPrefix(x.Type().String(), "syntax.")
		b.WriteString("(" + name)
		for i := 0; i < x.NumField(); i++ {
			f, sf := x.Field(i), x.Type().Field(i)
			if !sf.IsExported() || f.Type() == posType || f.IsZero() {
				continue
			}
			switch sf.Name {
			case "Binding", "Function", "DefaultText": // set by the resolver, or a copy
				continue
			case "Ident": // a parameter's binding occurrence repeats its name
				if name == "Param" {
					continue
				}
			case "Index": // a constant's slot, set by the resolver
				if f.Kind() == reflect.Int {
					continue
				}
			}
			if f.Kind() == reflect.Slice && f.Len() == 0 {
				continue
			}
			b.WriteString(" " + sf.Name + "=")
			writeTree(b, f)
		}
		b.WriteString(")")
	case reflect.Slice:
		b.WriteString("(")
		for i := 0; i < x.Len(); i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			writeTree(b, x.Index(i))
		}
		b.WriteString(")")
	case reflect.String:
		if x.Type() == reflect.TypeFor[string]() && x.Len() > 0 && !isIdentLike(x.String()) {
			b.WriteString(strconv.Quote(x.String()))
			return
		}
		b.WriteString(x.String())
	default:
		if x.Type() == tokenType {
			b.WriteString(x.Interface().(Token).String())
			return
		}
		fmt.Fprint(b, x.Interface())
	}
}

func isIdentLike(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func literalString(l *Literal) string {
	switch l.Tok {
	case INT:
		return strconv.FormatInt(l.Int, 10)
	case FLOAT:
		return strconv.FormatFloat(l.Float, 'g', -1, 64)
	case STRING:
		return strconv.Quote(l.Str)
	}
	return l.Tok.String()
}

// TestDeclSyntax does the same for top-level declarations: what is a tool,
// a resource, a type, a constant, an import, and what is skipped.
func TestDeclSyntax(t *testing.T) {
	for _, test := range declTests {
		f, diags := Parse("test.vox", []byte(test.src))
		for _, d := range diags {
			if d.Severity == 0 || !strings.HasPrefix(d.Code, "vox/decorator/") && d.Code != "vox/import/unresolved" {
				t.Errorf("%q: unexpected diagnostic: %v", test.src, d)
			}
		}
		var got []string
		for _, d := range f.Decls {
			got = append(got, treeString(d))
		}
		if g := strings.Join(got, "\n"); g != test.want {
			t.Errorf("%q\n got: %s\nwant: %s", test.src, g, test.want)
		}
	}
}

var declTests = []struct{ src, want string }{
	{"@tool \"Greet\"\nfn greet(name: str, n: int = 1) to str { name }",
		`(FnDecl Kind=1 Decorators=((Decorator Name="@tool")) Name=greet Params=((Param Name=name Type=str) (Param Name=n Type=int Default=1)) Result=str Body=(Block Stmts=((ExprStmt X=name))) Description=Greet)`},
	{"tool \"Greet\" fn greet() { 1 }",
		`(FnDecl Kind=1 Name=greet Body=(Block Stmts=((ExprStmt X=1))) Description=Greet)`},
	{"@mcp.resource(\"docs://a.md\", \"A\")\nfn a() to str { \"x\" }",
		`(FnDecl Kind=2 Decorators=((Decorator Name="@mcp.resource")) Name=a Result=str Body=(Block Stmts=((ExprStmt X="x"))) Description=A URI="docs://a.md")`},
	{"fn id[T](x: T) to list[T] { [x] }",
		`(FnDecl Name=id TypeParams=(T) Params=((Param Name=x Type=T)) Result=list[T] Body=(Block Stmts=((ExprStmt X=(ListExpr Elems=(x))))))`},
	{"type Status =\n    | Loading\n    | Ready(data: str)",
		`(TypeDecl Name=Status Variants=((Variant Name=Loading) (Variant Name=Ready Fields=((Param Name=data Type=str)))))`},
	{"let LIMIT: int = 10", `(ConstDecl Name=LIMIT Type=int Value=10)`},
	{"import std.http", `(ImportDecl Path="std.http")`},
	{"component Page { <p>Don't {x}</p> }\nfn after() { 1 }",
		"(SkippedDecl Word=component)\n(FnDecl Name=after Body=(Block Stmts=((ExprStmt X=1))))"},
	{"@table type Post { title: str }", `(SkippedDecl Word="@table")`},
}
