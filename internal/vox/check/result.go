package check

import (
	"fmt"
	"slices"
	"sort"

	"github.com/vox-lang/vox-mcp/internal/vox/diag"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Result is what a check found: the diagnostics, which functions an error
// makes unservable, and (with Options.Record) what each name is, for
// editors.
type Result struct {
	// Diagnostics are the checker's own, sorted (the parser's and the
	// resolver's are the module's).
	Diagnostics []diag.Diagnostic
	broken      map[string]diag.Diagnostic
	rec         *recorder
	names       []Info // module-level names, for completion
}

// Broken returns the error that keeps function name off the served
// surface: the first checker error in it, or in a function or constant
// it uses; ok is false when it has none.
func (r *Result) Broken(name string) (d diag.Diagnostic, ok bool) {
	d, ok = r.broken[name]
	return d, ok
}

// AnyBroken reports whether any function is broken.
func (r *Result) AnyBroken() bool { return len(r.broken) > 0 }

// Info is what a name at a position is: for hover, go to definition and
// completion.
type Info struct {
	Line, Col int    // of the occurrence
	EndCol    int    // exclusive
	Name      string // as written
	Kind      string // variable, parameter, loop variable, pattern variable, function, builtin, method, capability function, constructor, constant, namespace, field, record
	Type      string // the static type, "unknown" when not known
	Signature string // functions, builtins, methods: the signature as Vox writes it
	DefLine   int    // the definition; 0 for the library's names
	DefCol    int
}

// recorder keeps the occurrences of names for the queries.
type recorder struct {
	occ []Info
}

func (c *checker) record(pos syntax.Pos, name, kind string, t *Type, def syntax.Pos, sig string) {
	if c.rec == nil {
		return
	}
	ts := "unknown"
	if t != nil {
		ts = t.String()
	}
	c.rec.occ = append(c.rec.occ, Info{Line: int(pos.Line), Col: int(pos.Col), EndCol: int(pos.Col) + len(name), Name: name, Kind: kind,
		Type: ts, Signature: sig, DefLine: int(def.Line), DefCol: int(def.Col)})
}

// At returns what the name at line:col (1-based, col in bytes) is.
func (r *Result) At(line, col int) (Info, bool) {
	if r.rec == nil {
		return Info{}, false
	}
	for i := len(r.rec.occ) - 1; i >= 0; i-- {
		o := r.rec.occ[i]
		if o.Line == line && o.Col <= col && col < o.EndCol {
			return o, true
		}
	}
	return Info{}, false
}

// Definition returns where the name at line:col is declared.
func (r *Result) Definition(line, col int) (defLine, defCol int, ok bool) {
	o, found := r.At(line, col)
	if !found || o.DefLine == 0 {
		return 0, 0, false
	}
	return o.DefLine, o.DefCol, true
}

// Names returns the names visible at line:col: the locals declared before
// it in the same function, then the module's names and the library's.
func (r *Result) Names(line, col int) []Info {
	var out []Info
	seen := map[string]bool{}
	if r.rec != nil {
		start := r.enclosingStart(line, col)
		for _, o := range r.rec.occ {
			if o.DefLine != o.Line || o.DefCol != o.Col || seen[o.Name] {
				continue // not a declaration
			}
			switch o.Kind {
			case "variable", "parameter", "loop variable", "pattern variable":
			default:
				continue
			}
			if before(o.Line, o.Col, line, col) && !before(o.Line, o.Col, start.Line, start.Col) {
				seen[o.Name] = true
				out = append(out, o)
			}
		}
	}
	for _, n := range r.names {
		if !seen[n.Name] {
			seen[n.Name] = true
			out = append(out, n)
		}
	}
	return out
}

func before(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 < c2 }

// enclosingStart is the start of the module-level declaration holding
// line:col.
func (r *Result) enclosingStart(line, col int) Info {
	var best Info
	for _, n := range r.names {
		if n.DefLine > 0 && before(n.DefLine, n.DefCol, line, col) && before(best.DefLine, best.DefCol, n.DefLine, n.DefCol) {
			best = Info{Line: n.DefLine, Col: n.DefCol}
		}
	}
	return best
}

// Members returns the methods (or record fields, or capability
// functions) of a value of the type typ, as Info.Type writes it; "" or
// "unknown" gives the methods of every value.
func Members(typ string) []Info {
	l := theLibrary()
	var out []Info
	table := ""
	switch {
	case typ == "str":
		table = "str"
	case len(typ) > 4 && typ[:4] == "list":
		table = "list[T]"
	case len(typ) > 3 && typ[:3] == "map":
		table = "map[str, V]"
	case typ == "int" || typ == "float":
		table = "N: int | float"
	case len(typ) > 6 && typ[:6] == "Option":
		table = "Option[T]"
	case len(typ) > 6 && typ[:6] == "Result":
		table = "Result[T, E]"
	case typ == "tuple" || len(typ) > 0 && typ[0] == '(':
		table = "tuple"
	case typ == "Unit":
		table = "Unit"
	}
	if ns := l.ns[typ]; ns != nil {
		for _, f := range ns.funcs {
			out = append(out, Info{Name: f.name[len(typ)+1:], Kind: "capability function", Signature: f.sig.Format(f.name)})
		}
	}
	for _, t := range []string{table, "any"} {
		if t == "" {
			continue
		}
		for name, m := range l.methods[t] {
			out = append(out, Info{Name: name, Kind: "method", Signature: m.sig.Format("." + name)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Decorators returns the decorators vox-mcp acts on, for completion.
func Decorators() []string { return slices.Clone(knownDecorators) }

// result makes the Result: the sorted diagnostics and the functions the
// errors break, through the calls between functions.
func (c *checker) result() *Result {
	for i := range c.diags {
		c.diags[i].Path = c.path
	}
	r := &Result{rec: c.rec}
	nf := len(c.funcs)
	c.settleUndefined()
	for i := range c.diags {
		c.diags[i].Path = c.path
	}
	// An item is broken by its own first error or by one it uses: walk the
	// reverse edges from every item with an error.
	if !slices.ContainsFunc(c.firstEr, func(e int) bool { return e >= 0 }) {
		return c.finishResult(r)
	}
	cause := make([]int, len(c.firstEr))
	for i := range cause {
		cause[i] = -1
	}
	users := make([][]int, len(c.edges))
	for from, tos := range c.edges {
		for _, to := range tos {
			users[to] = append(users[to], from)
		}
	}
	var queue []int
	for i, e := range c.firstEr {
		if e >= 0 {
			cause[i] = i
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, u := range users[i] {
			if cause[u] < 0 {
				cause[u] = cause[i]
				queue = append(queue, u)
			}
		}
	}
	for i := 0; i < nf; i++ {
		if cause[i] < 0 {
			continue
		}
		d := c.mod.Funcs[i]
		if _, dup := r.broken[d.Name]; dup {
			continue
		}
		src := c.diags[c.firstEr[cause[i]]]
		if cause[i] != i {
			what := ""
			if cause[i] < nf {
				what = "function " + c.mod.Funcs[cause[i]].Name
			} else {
				what = "constant " + c.mod.Consts[cause[i]-nf].Name
			}
			src.Message = fmt.Sprintf("it uses %s, which has this error: %s", what, src.Message)
		}
		if r.broken == nil {
			r.broken = map[string]diag.Diagnostic{}
		}
		r.broken[d.Name] = src
	}
	return c.finishResult(r)
}

// finishResult sorts the diagnostics and, with Options.Record, lists the
// module-level names for completion.
func (c *checker) finishResult(r *Result) *Result {
	var l diag.List = c.diags
	l.Sort()
	r.Diagnostics = l
	if c.rec != nil {
		for _, d := range c.mod.Funcs {
			r.names = append(r.names, Info{Name: d.Name, Kind: "function", Signature: fnSignature(d), DefLine: int(d.NamePos.Line), DefCol: int(d.NamePos.Col)})
		}
		for i, k := range c.mod.Consts {
			r.names = append(r.names, Info{Name: k.Name, Kind: "constant", Type: c.consts[i].String(), DefLine: int(k.Pos.Line), DefCol: int(k.Pos.Col)})
		}
		for idx, k := range c.mod.Ctors {
			p := c.ctorPos(idx)
			r.names = append(r.names, Info{Name: k.Name, Kind: "constructor", Type: c.ctorResult(idx).String(), DefLine: int(p.Line), DefCol: int(p.Col)})
		}
		for _, b := range sortedKeys(c.lib.builtins) {
			r.names = append(r.names, Info{Name: b, Kind: "builtin", Signature: c.lib.builtins[b].sig.Format(b)})
		}
		for _, n := range sortedKeys(c.lib.ns) {
			r.names = append(r.names, Info{Name: n, Kind: "namespace", Type: n})
		}
		sort.SliceStable(r.rec.occ, func(i, j int) bool {
			a, b := r.rec.occ[i], r.rec.occ[j]
			return before(a.Line, a.Col, b.Line, b.Col)
		})
	}
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// settleUndefined reports the undefined names: an error in what a tool,
// a resource or the script reaches (the call would fail), a warning in
// the rest of the file (components, workflows and other code vox-mcp does
// not serve).
func (c *checker) settleUndefined() {
	if len(c.pending) == 0 {
		return
	}
	reached := make([]bool, len(c.edges))
	var queue []int
	for i, d := range c.mod.Funcs {
		if d.Kind != syntax.PlainFn || d == c.mod.File.Script {
			reached[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range c.edges[i] {
			if !reached[j] {
				reached[j] = true
				queue = append(queue, j)
			}
		}
	}
	for _, p := range c.pending {
		d := p.d
		if p.item >= 0 && p.item < len(reached) && reached[p.item] || c.opts.Strict {
			c.diags = append(c.diags, d)
			c.markErr(p.item, len(c.diags)-1)
			continue
		}
		d.Severity = diag.Warning
		d.Message += " (no tool or resource reaches it; a call of it fails)"
		c.diags = append(c.diags, d)
	}
}

// Diagnostics helpers.

var noFix *diag.Fix

func endOf(p syntax.Pos, name string) syntax.Pos {
	return syntax.Pos{Line: p.Line, Col: p.Col + int32(len(name))}
}

func fixAt(from, to syntax.Pos, text string) *diag.Fix {
	return &diag.Fix{Line: int(from.Line), Col: int(from.Col), EndLine: int(to.Line), EndCol: int(to.Col), NewText: text}
}

func diagErr(p syntax.Pos, code, msg string, help []string, fix *diag.Fix) diag.Diagnostic {
	d := diag.Diagnostic{Line: int(p.Line), Col: int(p.Col), Severity: diag.Error, Code: code, Message: msg, Help: help, Fix: fix}
	if fix != nil && fix.Line == fix.EndLine && fix.Line == d.Line && fix.EndCol > d.Col {
		d.EndCol = fix.EndCol
	}
	return d
}

func diagWarn(p syntax.Pos, code, msg string, help []string, fix *diag.Fix) diag.Diagnostic {
	d := diagErr(p, code, msg, help, fix)
	d.Severity = diag.Warning
	return d
}

func (c *checker) errorf(p syntax.Pos, code string, help []string, format string, args ...any) {
	c.add(diagErr(p, code, fmt.Sprintf(format, args...), help, nil))
}

func (c *checker) warnf(p syntax.Pos, code string, help []string, format string, args ...any) {
	c.add(diagWarn(p, code, fmt.Sprintf(format, args...), help, nil))
}

// add records a diagnostic; an error marks the item being checked.
func (c *checker) add(d diag.Diagnostic) {
	if d.Line == 0 {
		d.Line, d.Col = 1, 1
	}
	c.diags = append(c.diags, d)
	if d.Severity == diag.Error && c.fn != nil {
		c.markErr(c.item, len(c.diags)-1)
	}
}

func (c *checker) markErr(item, at int) {
	if item >= 0 && item < len(c.firstEr) && c.firstEr[item] < 0 {
		c.firstEr[item] = at
	}
}

// edge records that the item being checked uses item to.
func (c *checker) edge(to int) {
	if c.fn == nil || c.item < 0 || c.item >= len(c.edges) || c.item == to {
		return
	}
	es := c.edges[c.item]
	if n := len(es); n > 0 && es[n-1] == to {
		return
	}
	c.edges[c.item] = append(es, to)
}
