package syntax

import (
	"fmt"
	"os"
	"path/filepath"
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
	// for binds the element first, the position second; a tuple pattern
	// takes a map's (key, value) pairs apart.
	{`for x, i in xs { continue }`, `(ForStmt Pattern=(BindPat Ident=x) Index=(BindPat Ident=i) Iter=xs Body=(Block Stmts=((BranchStmt Tok=continue))))`},
	{`for x in ({a: 1}) { break }`, `(ForStmt Pattern=(BindPat Ident=x) Iter=(ObjectExpr Keys=(a) Values=(1)) Body=(Block Stmts=((BranchStmt Tok=break))))`},
	// In a head, a brace followed by a key and ':' is an object, any other
	// brace the body.
	{`for e in {a: 1} { e }`, `(ForStmt Pattern=(BindPat Ident=e) Iter=(ObjectExpr Keys=(a) Values=(1)) Body=(Block Stmts=((ExprStmt X=e))))`},
	{`for e in xs {}`, `(ForStmt Pattern=(BindPat Ident=e) Iter=xs Body=(Block))`},
	{`for (k, v) in m { k }`, `(ForStmt Pattern=(TuplePat Elems=((BindPat Ident=k) (BindPat Ident=v))) Iter=m Body=(Block Stmts=((ExprStmt X=k))))`},
	{`for (k, (a, _)), i in m { k }`, `(ForStmt Pattern=(TuplePat Elems=((BindPat Ident=k) (TuplePat Elems=((BindPat Ident=a) (WildcardPat))))) Index=(BindPat Ident=i) Iter=m Body=(Block Stmts=((ExprStmt X=k))))`},
	{`for _, i in xs { i }`, `(ForStmt Pattern=(WildcardPat) Index=(BindPat Ident=i) Iter=xs Body=(Block Stmts=((ExprStmt X=i))))`},
	{`for p in posts key = p.id { p }`, `(ForStmt Pattern=(BindPat Ident=p) Iter=posts Key=(DotExpr X=p Name=id) Body=(Block Stmts=((ExprStmt X=p))))`},
	// Loops stand where a value is wanted too (their value is Unit).
	{`let u = for x in xs { x }`, `(LetStmt Pattern=(BindPat Ident=u) Value=(ForStmt Pattern=(BindPat Ident=x) Iter=xs Body=(Block Stmts=((ExprStmt X=x)))))`},
	{`f(while false { })`, `(ExprStmt X=(CallExpr Fn=f Args=((Arg Value=(WhileStmt Cond=false Body=(Block))))))`},
	{`loop { return }`, `(LoopStmt Body=(Block Stmts=((ReturnStmt))))`},
	{`return a + 1`, `(ReturnStmt Value=(BinaryExpr X=a Op=+ Y=1))`},
	// Bindings and assignment.
	{`let mut x: int = 1`, `(LetStmt Mut=true Pattern=(BindPat Ident=x) Type=int Value=1)`},
	{`let (a, _) = t`, `(LetStmt Pattern=(TuplePat Elems=((BindPat Ident=a) (WildcardPat))) Value=t)`},
	{`xs[0] = f(y)`, `(AssignStmt Op== LHS=(IndexExpr X=xs Index=0) RHS=(CallExpr Fn=f Args=((Arg Value=y))))`},
	{`o.k -= 2`, `(AssignStmt Op=-= LHS=(DotExpr X=o Name=k) RHS=2)`},
	// in and not in compare as < does; with binds as and does.
	{`x in xs and k not in m`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=x Op=in Y=xs) Op=and Y=(BinaryExpr X=k Op=not in Y=m)))`},
	{`a + 1 in xs == b`, `(ExprStmt X=(BinaryExpr X=(BinaryExpr X=(BinaryExpr X=a Op=+ Y=1) Op=in Y=xs) Op=== Y=b))`},
	{`not x in xs`, `(ExprStmt X=(BinaryExpr X=(UnaryExpr Op=not X=x) Op=in Y=xs))`},
	{`a or f(x) with o and b`, `(ExprStmt X=(BinaryExpr X=a Op=or Y=(BinaryExpr X=(WithExpr X=(CallExpr Fn=f Args=((Arg Value=x))) Options=o) Op=and Y=b)))`},
	{`f(x) with opts`, `(ExprStmt X=(WithExpr X=(CallExpr Fn=f Args=((Arg Value=x))) Options=opts))`},
	// Numbers: exponents, decimals.
	{"1.5e3\n2E-3\n1e2", "(ExprStmt X=1500)\n(ExprStmt X=0.002)\n(ExprStmt X=100)"},
	{`0.10dec + 3dec`, `(ExprStmt X=(BinaryExpr X=0.10dec Op=+ Y=3dec))`},
	// Templates: only a string with an interpolation is one; {{ and }}
	// are literal braces there, and every brace is literal elsewhere.
	{`"a}}b"`, `(ExprStmt X="a}}b")`},
	{`"{{x}} {y}"`, `(ExprStmt X=(TemplateLit Parts=("{x} " ) Vars=(y)))`},
	{`"{{name}}"`, `(ExprStmt X="{{name}}")`},
	{`"{if} { x } {1}"`, `(ExprStmt X="{if} { x } {1}")`},
	{`"{\"k\": {v}}"`, `(ExprStmt X=(TemplateLit Parts=("{\"k\": " "}") Vars=(v)))`},
	// Match: guards, statement bodies, tuple patterns of one.
	{`match x { Some(v) if v > 3 => v, Some(v) => return v, None => break, _ => continue }`, `(ExprStmt X=(MatchExpr X=x Arms=((MatchArm Pattern=(CtorPat Name=Some Args=((BindPat Ident=v))) Guard=(BinaryExpr X=v Op=> Y=3) Body=v) (MatchArm Pattern=(CtorPat Name=Some Args=((BindPat Ident=v))) Body=(Block Stmts=((ReturnStmt Value=v)))) (MatchArm Pattern=(BindPat Ident=None) Body=(Block Stmts=((BranchStmt Tok=break)))) (MatchArm Pattern=(WildcardPat) Body=(Block Stmts=((BranchStmt Tok=continue)))))))`},
	{`match x { a if ok => 1, (b) if (c) => 2, _ => return }`, `(ExprStmt X=(MatchExpr X=x Arms=((MatchArm Pattern=(BindPat Ident=a) Guard=ok Body=1) (MatchArm Pattern=(BindPat Ident=b) Guard=c Body=2) (MatchArm Pattern=(WildcardPat) Body=(Block Stmts=((ReturnStmt)))))))`},
	{`match t { (a,) => a, ((a, b), _) => b }`, `(ExprStmt X=(MatchExpr X=t Arms=((MatchArm Pattern=(TuplePat Elems=((BindPat Ident=a))) Body=a) (MatchArm Pattern=(TuplePat Elems=((TuplePat Elems=((BindPat Ident=a) (BindPat Ident=b))) (WildcardPat))) Body=b))))`},
	// Records: a capitalised name and a brace that opens fields; not in a
	// head, where the brace opens the body.
	{`let p = Point { x: 1, to: "a" }`, `(LetStmt Pattern=(BindPat Ident=p) Value=(RecordLit Type=Point Fields=((FieldInit Name=x Value=1) (FieldInit Name=to Value="a"))))`},
	{`Empty {}`, `(ExprStmt X=(RecordLit Type=Empty))`},
	{`if p == Point { x }`, `(ExprStmt X=(IfExpr Cond=(BinaryExpr X=p Op=== Y=Point) Then=(Block Stmts=((ExprStmt X=x)))))`},
	// Functions as values.
	{`(a, b) => a + b`, `(ExprStmt X=(FuncLit Params=((Param Name=a) (Param Name=b)) Body=(Block Stmts=((ExprStmt X=(BinaryExpr X=a Op=+ Y=b))))))`},
	{`(a) => a`, `(ExprStmt X=(FuncLit Params=((Param Name=a)) Body=(Block Stmts=((ExprStmt X=a)))))`},
	{`fn(f: fn(int, str) to bool, g: fn(), t: Tensor[2, 3]) { f }`, `(ExprStmt X=(FuncLit Params=((Param Name=f Type=fn(int, str) to bool) (Param Name=g Type=fn()) (Param Name=t Type=Tensor[2, 3])) Body=(Block Stmts=((ExprStmt X=f)))))`},
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
	posType      = reflect.TypeFor[Pos]()
	posSliceType = reflect.TypeFor[[]Pos]()
	tokenType    = reflect.TypeFor[Token]()
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
			if !sf.IsExported() || f.Type() == posType || f.Type() == posSliceType || f.IsZero() {
				continue
			}
			switch sf.Name {
			case "Binding", "Function", "DefaultText", "Record": // set by the resolver, or a copy
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
	case DEC:
		return l.Str + "dec"
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
	{"fn id<T, U>(x: T, f: fn(T) to U) to list[U] { [f(x)] }",
		`(FnDecl Name=id TypeParams=(T U) Params=((Param Name=x Type=T) (Param Name=f Type=fn(T) to U)) Result=list[U] Body=(Block Stmts=((ExprStmt X=(ListExpr Elems=((CallExpr Fn=f Args=((Arg Value=x)))))))))`},
	{"fn sync(path: str) uses net, fs, mcp(search) to Result[str] { Ok(path) }",
		`(FnDecl Name=sync Params=((Param Name=path Type=str)) Effects=((Effect Name=net) (Effect Name=fs) (Effect Name=mcp Arg=search)) Result=Result[str] Body=(Block Stmts=((ExprStmt X=(CallExpr Fn=Ok Args=((Arg Value=path)))))))`},
	{"@uses(net)\n@tool \"T\"\nfn t() uses fs { 1 }",
		`(FnDecl Kind=1 Decorators=((Decorator Name="@uses") (Decorator Name="@tool")) Name=t Effects=((Effect Name=fs) (Effect Name=net)) Body=(Block Stmts=((ExprStmt X=1))) Description=T)`},
	{"type Point { x: int, y: Option[str] }\ntype Line {\n    from: Point\n    to: Point,\n}",
		"(RecordDecl Name=Point Fields=((Field Name=x Type=int) (Field Name=y Type=Option[str])))\n(RecordDecl Name=Line Fields=((Field Name=from Type=Point) (Field Name=to Type=Point)))"},
	{"@mcp.resource(\"notes://{id}\", \"The note {id}\")\nfn note() to str { \"{{x}}\" }",
		`(FnDecl Kind=2 Decorators=((Decorator Name="@mcp.resource")) Name=note Result=str Body=(Block Stmts=((ExprStmt X="{{x}}"))) Description="The note {id}" URI="notes://{id}")`},
	{"tool \"Say {hi}\" greet() { 1 }", `(FnDecl Kind=1 Name=greet Body=(Block Stmts=((ExprStmt X=1))) Description="Say {hi}")`},
	{"type Status =\n    | Loading\n    | Ready(data: str)",
		`(TypeDecl Name=Status Variants=((Variant Name=Loading) (Variant Name=Ready Fields=((Param Name=data Type=str)))))`},
	{"let LIMIT: int = 10", `(ConstDecl Name=LIMIT Type=int Value=10)`},
	{"import std.http", `(ImportDecl Path="std.http")`},
	{"component Page { <p>Don't {x}</p> }\nfn after() { 1 }",
		"(SkippedDecl Word=component)\n(FnDecl Name=after Body=(Block Stmts=((ExprStmt X=1))))"},
	{"@table type Post { title: str }", `(RecordDecl Name=Post Fields=((Field Name=title Type=str)))`},
	{"type Alias = str", `(SkippedDecl Word=type)`},
}

// TestScriptSyntax parses files in script mode: top-level statements,
// a let among them, become the body of a function main declared after
// the file's declarations; module mode rejects them.
func TestScriptSyntax(t *testing.T) {
	src := "let who = \"world\"\nfn greet(n: str) to str { \"hello \" + n }\nprint(greet(who))\nfor x, i in [1] { x }\n"
	f, diags := ParseScript("s.vox", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	var got []string
	for _, d := range f.Decls {
		got = append(got, treeString(d))
	}
	want := "(FnDecl Name=greet Params=((Param Name=n Type=str)) Result=str Body=(Block Stmts=((ExprStmt X=(BinaryExpr X=\"hello \" Op=+ Y=n)))))\n" +
		"(FnDecl Name=main Body=(Block Stmts=((LetStmt Pattern=(BindPat Ident=who) Value=\"world\") (ExprStmt X=(CallExpr Fn=print Args=((Arg Value=(CallExpr Fn=greet Args=((Arg Value=who))))))) (ForStmt Pattern=(BindPat Ident=x) Index=(BindPat Ident=i) Iter=(ListExpr Elems=(1)) Body=(Block Stmts=((ExprStmt X=x)))))))"
	if g := strings.Join(got, "\n"); g != want || f.Script == nil || f.Script.Name != "main" {
		t.Errorf("got: %s\nwant: %s", g, want)
	}
	if _, diags := Parse("m.vox", []byte("print(1)\n")); len(diags) != 1 || diags[0].Code != "vox/parse/unexpected-top-level" {
		t.Errorf("module mode: %v", diags)
	}
	if _, diags := ParseScript("s.vox", []byte("fn main() { 1 }\nprint(1)\n")); len(diags) != 1 || diags[0].Code != "vox/parse/script-main" || diags[0].Line != 1 {
		t.Errorf("script with main: %v", diags)
	}
	// A script without statements declares what it declares.
	if f, diags := ParseScript("s.vox", []byte("fn main() { 1 }\n")); len(diags) != 0 || f.Script != nil || len(f.Decls) != 1 {
		t.Errorf("script of declarations: %v %v", f.Decls, diags)
	}
}

// TestSyntaxWarnings checks the warnings of constructs the reference
// spells differently or rejects, and what makes a function unavailable.
func TestSyntaxWarnings(t *testing.T) {
	for _, test := range []struct{ src, want string }{
		{"fn id[T](x: T) to T { x }", "1:6: warning: generic parameters are written fn id<T>(...): the reference rejects [T] [vox/parse/generic-brackets]"},
		{"type Box[T] = | B(v: T)", "1:9: warning: type Box has generic parameters: the reference's types have none [vox/parse/generic-brackets]"},
		{"fn f() uses teleport { 1 }", "1:13: warning: unknown effect teleport: expected one of net, db, fs, env, clock, random, spawn, gpu_compute, mutate, nothing, mcp [vox/parse/unknown-effect]"},
		{"@tool \"t\"\nfn t() { f() with {retries: 2, id: \"x\"} }", "2:19: warning: with options retries, id are ignored: vox-mcp runs a call once, without retries or timeouts [vox/with/ignored]"},
		{"@tool \"t\"\nfn t() { f() with {tries: 2} }", "2:20: error: unknown with option tries: the options are retries, timeout, activity_id, id, meta, mens, initial_backoff [vox/with/unknown-option]"},
		{"fn f() { f() with {tries: 2} }", "1:20: warning: function f is unavailable: unknown with option tries: the options are retries, timeout, activity_id, id, meta, mens, initial_backoff [vox/parse/fn-unsupported]"},
		{"fn f() { return <div>x</div> }", "1:17: warning: function f is unavailable: it uses UI markup (`<div`), which vox-mcp does not run [vox/parse/fn-unsupported]"},
		{"fn f() { spawn Counter() }", "1:16: warning: function f is unavailable: it uses actors (`spawn`), which vox-mcp does not run [vox/parse/fn-unsupported]"},
		{"fn f() { for Some(x) in xs { x } }", "1:14: warning: function f is unavailable: a for loop binds names, _ or tuples of them ((k, v)), not this pattern [vox/parse/fn-unsupported]"},
		{"let x = 1.5e3dec", "1:9: error: decimal literal 1.5e3dec has an exponent: write its digits (1500dec, 0.0015dec) [vox/lexer/dec-exponent]"},
		{"let x = 0.00000000000000000000000000001dec", "1:9: error: decimal literal 0.00000000000000000000000000001dec does not fit: at most 28 digits after the point and a magnitude below 2^96 (about 7.9e28) [vox/lexer/dec-overflow]"},
		{"type P { x: int, x: str }", "1:18: error: record P declares field x twice [vox/parse/duplicate-field]"},
	} {
		_, diags := Parse("t.vox", []byte(test.src))
		var got []string
		for _, d := range diags {
			got = append(got, strings.TrimPrefix(d.String(), "t.vox:"))
		}
		if g := strings.Join(got, "\n"); g != test.want {
			t.Errorf("%q\n got: %s\nwant: %s", test.src, g, test.want)
		}
	}
}

// TestParseIntoResetNodes: a file parsed into nodes that held another
// file's tree, reset, is the tree Parse makes: Reset leaves nothing of
// the previous tree behind.
func TestParseIntoResetNodes(t *testing.T) {
	files, err := filepath.Glob("../testdata/corpus/*.vox")
	if err != nil || len(files) < 10 {
		t.Fatalf("corpus: %v, %d files", err, len(files))
	}
	var nodes Nodes
	for i := range files {
		// Each file after a different one, the largest first.
		for _, f := range []string{files[(i+1)%len(files)], files[i]} {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			nodes.Reset()
			got, gotDiags := ParseInto(&nodes, f, src, string(src), false)
			want, wantDiags := Parse(f, src)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotDiags, wantDiags) {
				t.Fatalf("%s parsed into reset nodes differs from its fresh parse", f)
			}
		}
	}
}
