package gen

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The table files — generated/catalog's catalog.go and operations_NNN.go,
// generated/workspace/workspace.go and an app's tables.go — are composite
// literals only, and the bulk of what go generate writes. They are written
// here directly in gofmt's layout instead of through jennifer and
// go/format: go/printer sizes every element of a composite literal by
// printing it, and every nesting level prints its subtree again, which
// made formatting these files most of a run's time (docs/contracts.md §2).
//
// The writer produces the stream go/printer hands its tabwriter —
// indentation as tabs, a vertical tab between a key and its value, a form
// feed where gofmt ends an alignment section — with go/printer's own rules
// for those section breaks (exprList in go/printer/nodes.go), and runs it
// through text/tabwriter configured as gofmt's, so the bytes are gofmt's.
// TestTablesAreGofmtStable proves it on every shape the files take.

// goValue is one value of a table: a single-line Go expression (text), a
// schema literal (frags: json.RawMessage of concatenated fragments, one
// per line), or a composite literal with one element per line.
type goValue struct {
	text      string
	frags     []string
	composite bool
	typ       string // the composite's type, "&registry.MCP", "[]string", or "" when elided
	elems     []goElem
}

// goElem is one element of a composite literal: "key: val" or a bare val.
type goElem struct {
	key string
	val *goValue
}

func goText(s string) *goValue { return &goValue{text: s} }

func goString(s string) *goValue { return goText(strconv.Quote(s)) }

func goInt(n int) *goValue { return goText(strconv.Itoa(n)) }

// goStrings is []string{"a", "b"} on one line.
func goStrings(v []string) *goValue { return goText("[]string" + stringsBody(v)) }

// stringsBody is {"a", "b"}.
func stringsBody(v []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(s))
	}
	b.WriteByte('}')
	return b.String()
}

// goSchema is the schema literal b, one object member per line
// (schemaFragments).
func goSchema(b []byte) *goValue { return &goValue{frags: schemaFragments(b)} }

// goComposite is an empty composite literal of type typ; add elements
// with add and str.
func goComposite(typ string) *goValue { return &goValue{composite: true, typ: typ} }

func (v *goValue) add(key string, val *goValue) { v.elems = append(v.elems, goElem{key, val}) }

// str adds key: "s" unless s is empty.
func (v *goValue) str(key, s string) {
	if s != "" {
		v.add(key, goString(s))
	}
}

// strs adds key: []string{...} unless list is empty.
func (v *goValue) strs(key string, list []string) {
	if len(list) > 0 {
		v.add(key, goStrings(list))
	}
}

// usesJSON reports whether the value holds a schema literal.
func (v *goValue) usesJSON() bool {
	if v.frags != nil {
		return true
	}
	return slices.ContainsFunc(v.elems, func(e goElem) bool { return e.val.usesJSON() })
}

// line is the value on one line, as go/printer would print it, and
// whether it fits on one line at all.
func (v *goValue) line() (string, bool) {
	switch {
	case v.composite && len(v.elems) == 0:
		return v.typ + "{}", true
	case v.composite:
		return "", false
	case v.frags != nil:
		if len(v.frags) > 1 {
			return "", false
		}
		return "json.RawMessage(" + fragmentLit(v.frags[0]) + ")", true
	}
	return v.text, true
}

// fragmentLit is a Go literal of a schema fragment: a raw string when that
// is safe and readable (literalSafe), an interpreted one otherwise.
func fragmentLit(s string) string {
	if literalSafe(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// tableStream builds the tabwriter input of a table file.
type tableStream struct{ b []byte }

func (w *tableStream) tabs(n int) {
	for range n {
		w.b = append(w.b, '\t')
	}
}

// value writes v, whose first line is already started at indentation
// indent.
func (w *tableStream) value(v *goValue, indent int) {
	switch {
	case v.composite:
		w.composite(v, indent)
	case len(v.frags) > 1:
		// A binary expression over several lines: go/printer starts
		// every continuation line with a form feed, one level deeper.
		w.b = append(w.b, "json.RawMessage("...)
		for i, f := range v.frags {
			if i > 0 {
				w.b = append(w.b, " +\f"...)
				w.tabs(indent + 1)
			}
			w.b = append(w.b, fragmentLit(f)...)
		}
		w.b = append(w.b, ')')
	default:
		s, _ := v.line()
		w.b = append(w.b, s...)
	}
}

// composite writes a composite literal with one element per line,
// deciding alignment sections as go/printer's exprList does: a form feed
// (a new section) before the first element, around every element that
// does not fit on one line, and between single-line elements whose key
// sizes differ too much; "key:\v" aligns the keys of one section.
func (w *tableStream) composite(v *goValue, indent int) {
	w.b = append(w.b, v.typ...)
	w.b = append(w.b, '{')
	if len(v.elems) == 0 {
		w.b = append(w.b, '}')
		return
	}
	const (
		infinity  = 1e6 // go/printer: larger than any source line
		smallSize = 40
		ratio     = 2.5
	)
	size, count, lnsum := 0, 0, 0.0
	for i, e := range v.elems {
		prevSize := size
		text, single := e.val.line()
		size = 0
		if single {
			n := len(text)
			if e.key != "" {
				n += len(e.key) + 2
			}
			if n <= infinity {
				size = n
				if e.key != "" {
					size = len(e.key)
				}
			}
		}
		useFF := true
		if prevSize > 0 && size > 0 {
			if count == 0 || prevSize <= smallSize && size <= smallSize {
				useFF = false
			} else {
				r := float64(size) / math.Exp(lnsum/float64(count))
				useFF = ratio*r <= 1 || ratio <= r
			}
		}
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if i == 0 || useFF {
			w.b = append(w.b, '\f')
			lnsum, count = 0, 0
		} else {
			w.b = append(w.b, '\n')
		}
		w.tabs(indent + 1)
		switch {
		case e.key != "" && size > 0 && len(v.elems) > 1:
			w.b = append(w.b, e.key...)
			w.b = append(w.b, ":\v"...)
			w.b = append(w.b, text...)
		case e.key != "":
			w.b = append(w.b, e.key...)
			w.b = append(w.b, ": "...)
			w.value(e.val, indent+1)
		default:
			w.value(e.val, indent+1)
		}
		if size > 0 {
			lnsum += math.Log(float64(size))
			count++
		}
	}
	w.b = append(w.b, ",\f"...)
	w.tabs(indent)
	w.b = append(w.b, '}')
}

// tableFile is one table file: the header of newFile, the imports its
// values use, the table-format check, and variables.
type tableFile struct {
	pkg, command, source, doc string
	// formatCheck, when set, is the command named by the table-format
	// check (tableFormatCheck).
	formatCheck string
	// loader is the import name of runtime/workspace ("" when unused).
	loader string
	vars   []tableVar
}

type tableVar struct {
	doc  string
	name string
	val  *goValue
}

func (f *tableFile) addVar(doc, name string, val *goValue) {
	f.vars = append(f.vars, tableVar{doc, name, val})
}

// render writes the file in gofmt's layout.
func (f *tableFile) render() []byte {
	w := &tableStream{}
	line := func(s string) {
		w.b = append(w.b, s...)
		w.b = append(w.b, '\n')
	}
	// A comment is escaped as go/printer escapes it, so that a tab in
	// it is text, not a cell; gofmt drops its trailing blanks.
	comment := func(text string) {
		w.b = append(w.b, tabwriter.Escape)
		w.b = append(w.b, strings.TrimRight("// "+text, " \t")...)
		w.b = append(w.b, tabwriter.Escape, '\n')
	}
	commentLines := func(text string) {
		for _, l := range wrapComment(text) {
			comment(l)
		}
	}
	comment(commentSafe("Code generated by \"" + f.command + "\"; DO NOT EDIT."))
	comment(commentSafe("Source: " + f.source))
	line("")
	commentLines(f.doc)
	line("package " + f.pkg)
	line("")

	imports := map[string]string{registryPkg: ""}
	if f.loader != "" {
		imports[workspacePkg] = f.loader + " "
	}
	for _, v := range f.vars {
		if v.val.usesJSON() {
			imports["encoding/json"] = ""
		}
	}
	paths := make([]string, 0, len(imports))
	for p := range imports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if len(paths) == 1 {
		line("import " + imports[paths[0]] + strconv.Quote(paths[0]))
	} else {
		line("import (")
		for _, p := range paths {
			line("\t" + imports[p] + strconv.Quote(p))
		}
		line(")")
	}

	if f.formatCheck != "" {
		line("")
		comment(commentSafe("When this line fails to compile the tables are older than the runtime: run " + f.formatCheck))
		line("const _ = registry.TableFormat2")
	}
	for _, v := range f.vars {
		line("")
		commentLines(v.doc)
		w.b = append(w.b, "var "+v.name+" = "...)
		w.value(v.val, 0)
		line("")
	}

	var out bytes.Buffer
	out.Grow(len(w.b) + len(w.b)/4)
	// gofmt's configuration of go/printer's tabwriter (go/format):
	// tabs for indentation, spaces for alignment, tab width 8.
	tw := tabwriter.NewWriter(&out, 0, 8, 1, ' ', tabwriter.DiscardEmptyColumns|tabwriter.TabIndent)
	tw.Write(w.b)
	tw.Flush()
	// The escapes go, as go/printer's trimmer drops them; no valid UTF-8
	// (and so no generated text) holds the byte.
	return bytes.ReplaceAll(out.Bytes(), []byte{tabwriter.Escape}, nil)
}
