package check

import "github.com/vox-lang/vox-mcp/internal/vox/syntax"

// walkStmts calls f on n and, while f returns true, on the statements and
// expressions inside it, depth-first. The depth is bounded.
func walkStmts(n syntax.Node, depth int, f func(syntax.Node, int) bool) {
	if n == nil || depth > maxDepth || !f(n, depth) {
		return
	}
	d := depth + 1
	w := func(x syntax.Node) {
		if x != nil {
			walkStmts(x, d, f)
		}
	}
	switch n := n.(type) {
	case *syntax.Block:
		for _, s := range n.Stmts {
			w(s)
		}
	case *syntax.LetStmt:
		w(n.Value)
	case *syntax.ReturnStmt:
		if n.Value != nil {
			w(n.Value)
		}
	case *syntax.WhileStmt:
		w(n.Cond)
		w(n.Body)
	case *syntax.LoopStmt:
		w(n.Body)
	case *syntax.ForStmt:
		w(n.Iter)
		w(n.Body)
	case *syntax.AssignStmt:
		w(n.LHS)
		w(n.RHS)
	case *syntax.ExprStmt:
		w(n.X)
	case *syntax.IfExpr:
		w(n.Cond)
		w(n.Then)
		if n.Else != nil {
			w(n.Else)
		}
	case *syntax.MatchExpr:
		w(n.X)
		for _, a := range n.Arms {
			if a.Guard != nil {
				w(a.Guard)
			}
			w(a.Body)
		}
	case *syntax.CallExpr:
		w(n.Fn)
		for _, a := range n.Args {
			w(a.Value)
		}
	case *syntax.BinaryExpr:
		w(n.X)
		w(n.Y)
	case *syntax.UnaryExpr:
		w(n.X)
	case *syntax.DotExpr:
		w(n.X)
	case *syntax.IndexExpr:
		w(n.X)
		w(n.Index)
	case *syntax.TryExpr:
		w(n.X)
	case *syntax.WithExpr:
		w(n.X)
		w(n.Options)
	case *syntax.ViewExpr:
		for _, a := range n.Attrs {
			w(a.Value)
		}
		for _, x := range n.Children {
			w(x)
		}
	case *syntax.ListExpr:
		for _, x := range n.Elems {
			w(x)
		}
	case *syntax.TupleExpr:
		for _, x := range n.Elems {
			w(x)
		}
	case *syntax.ObjectExpr:
		for _, x := range n.Values {
			w(x)
		}
	case *syntax.RecordLit:
		for _, x := range n.Fields {
			w(x.Value)
		}
	case *syntax.FuncLit:
		w(n.Body)
	}
}
