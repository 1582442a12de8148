package lsp

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/schema"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// completion answers textDocument/completion from the text before the
// cursor, which is often not valid Vox yet: after '@' the decorators,
// after "x." the capability functions of a namespace, or the fields and
// methods of x's type (every method when the type is not evident), else
// the names in scope, the builtins, the namespaces and the keywords.
func (s *Server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	off := d.offset(p.Position)
	start := off
	for start > 0 && isNameByte(d.text[start-1]) {
		start--
	}
	var items []protocol.CompletionItem
	switch at := decoratorStart(d.text, start); {
	case at >= 0:
		items = d.decoratorItems(at, off)
	case start > 0 && d.text[start-1] == '.':
		items = d.memberItems(start - 1)
	default:
		items = d.nameItems(d.syntaxPos(start))
	}
	return protocol.CompletionList{IsIncomplete: false, Items: items}, nil
}

// decoratorStart returns the offset of the '@' of a decorator being
// typed before off (@to, @mcp.re), or -1.
func decoratorStart(text []byte, off int) int {
	j := off
	for j > 0 && (isNameByte(text[j-1]) || text[j-1] == '.') {
		j--
	}
	if j > 0 && text[j-1] == '@' {
		return j - 1
	}
	return -1
}

func item(label string, kind protocol.CompletionItemKind, detail string) protocol.CompletionItem {
	it := protocol.CompletionItem{Label: label, Kind: &kind}
	if detail != "" {
		it.Detail = &detail
	}
	return it
}

func (d *document) decoratorItems(at, off int) []protocol.CompletionItem {
	r := protocol.Range{Start: d.position(at), End: d.position(off)}
	items := make([]protocol.CompletionItem, 0, len(decorators))
	for _, dec := range decorators {
		it := item(dec.name, protocol.CompletionItemKindKeyword, dec.detail)
		it.Documentation = dec.doc
		it.FilterText = &dec.name
		it.TextEdit = protocol.TextEdit{Range: r, NewText: dec.name}
		if dec.name == "@mcp.tool" {
			yes := true
			it.Deprecated = &yes
			it.Tags = []protocol.CompletionItemTag{protocol.CompletionItemTagDeprecated}
		}
		items = append(items, it)
	}
	return items
}

// memberItems are the completions after the dot at offset dot.
func (d *document) memberItems(dot int) []protocol.CompletionItem {
	j := dot
	for j > 0 && isNameByte(d.text[j-1]) {
		j--
	}
	name := string(d.text[j:dot])
	recvType := ""
	switch {
	case name != "":
		b, a := d.bindingBefore(name, d.syntaxPos(j))
		if b != nil && b.Scope == resolve.Namespace {
			return namespaceItems(namespace(name))
		}
		if b != nil {
			recvType = a.bindingType(b)
		}
	case dot > 0 && (d.text[dot-1] == '"' || d.text[dot-1] == '\''):
		recvType = "str"
	}
	var items []protocol.CompletionItem
	if rec := d.an.record(recvType); rec != nil {
		for _, f := range rec.Fields {
			items = append(items, item(f.Name, protocol.CompletionItemKindField, f.Type.String()))
		}
	}
	table := methodTable(recvType)
	seen := map[string]int{}
	for ti := range libsig.Receivers() {
		t := &libsig.Receivers()[ti]
		if table != nil && t != table && t.Type != "any" {
			continue
		}
		for mi := range t.Methods {
			m := &t.Methods[mi]
			sig := m.Sig.Format(receiverName(t) + "." + m.Name)
			if i, dup := seen[m.Name]; dup {
				more := *items[i].Detail + "\n" + sig
				items[i].Detail = &more
				continue
			}
			seen[m.Name] = len(items)
			it := item(m.Name, protocol.CompletionItemKindMethod, sig)
			if m.Sig.Notes != "" {
				it.Documentation = m.Sig.Notes
			}
			items = append(items, it)
		}
	}
	return items
}

func namespaceItems(ns *libsig.Namespace) []protocol.CompletionItem {
	items := make([]protocol.CompletionItem, 0, len(ns.Funcs))
	for fi := range ns.Funcs {
		f := &ns.Funcs[fi]
		it := item(f.Name, protocol.CompletionItemKindFunction, f.Sig.Format(ns.Name+"."+f.Name))
		if f.Sig.Notes != "" {
			it.Documentation = f.Sig.Notes
		}
		items = append(items, it)
	}
	return items
}

// bindingBefore finds what name means at p: a local declared before p
// in the declaration containing it, else a module name, in the current
// analysis, or in the last complete one when the current has no such
// local (the function being typed often does not parse).
func (d *document) bindingBefore(name string, p syntax.Pos) (*resolve.Binding, *analysis) {
	for _, a := range []*analysis{d.an, d.good} {
		if a == nil || a.res == nil {
			continue
		}
		for _, l := range a.localsBefore(p) {
			if l.binding.Name == name {
				return l.binding, a
			}
		}
	}
	for _, a := range []*analysis{d.an, d.good} {
		if a == nil || a.res == nil {
			continue
		}
		if b := a.moduleBinding(name); b != nil {
			return b, a
		}
	}
	return nil, d.an
}

// moduleBinding is what name means outside any function, as the resolver
// looks it up (internal/vox/resolve): a function, a constant, a
// constructor, a builtin or a namespace; nil when it is none.
func (a *analysis) moduleBinding(name string) *resolve.Binding {
	if i, ok := a.res.FuncIndex[name]; ok {
		return &resolve.Binding{Scope: resolve.Global, Index: i, Name: name}
	}
	for _, c := range a.res.Consts {
		if c.Name == name {
			return &resolve.Binding{Scope: resolve.Const, Index: c.Index, Name: name}
		}
	}
	for _, c := range a.res.Ctors {
		if c.Name == name {
			return &resolve.Binding{Scope: resolve.Ctor, Index: c.Tag, Name: name}
		}
	}
	for i, b := range libsig.Builtins() {
		if b.Name == name {
			return &resolve.Binding{Scope: resolve.Builtin, Index: i, Name: name}
		}
	}
	for i, ns := range libsig.Namespaces() {
		if ns.Name == name {
			return &resolve.Binding{Scope: resolve.Namespace, Index: i, Name: name}
		}
	}
	return nil
}

// bindingType is the evident type of a local or a constant.
func (a *analysis) bindingType(b *resolve.Binding) string {
	switch b.Scope {
	case resolve.Local, resolve.Cell:
		if l := a.locals[b]; l != nil {
			return a.localType(l, 0)
		}
	case resolve.Const:
		c := a.res.Consts[b.Index]
		if c.Type != nil {
			return c.Type.String()
		}
		return a.typeOf(c.Value, 0)
	}
	return ""
}

// localsBefore returns the locals of the declaration containing p that
// are declared before p, the latest of each name last. Blocks have no
// end in the tree, so a name of a block already closed is offered too.
func (a *analysis) localsBefore(p syntax.Pos) []*local {
	decl := a.declAt(p)
	var out []*local
	for _, l := range a.locals {
		bp := l.binding.Pos
		if l.decl == decl && (bp.Line < p.Line || bp.Line == p.Line && bp.Col < p.Col) {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i].binding.Pos, out[j].binding.Pos
		return x.Line < y.Line || x.Line == y.Line && x.Col < y.Col
	})
	return out
}

// nameItems are the names that may start at p.
func (d *document) nameItems(p syntax.Pos) []protocol.CompletionItem {
	var items []protocol.CompletionItem
	seen := map[string]bool{}
	add := func(it protocol.CompletionItem) {
		if !seen[it.Label] {
			seen[it.Label] = true
			items = append(items, it)
		}
	}
	for _, a := range []*analysis{d.an, d.good} {
		if a == nil || a.res == nil {
			continue
		}
		locals := a.localsBefore(p)
		for i := len(locals) - 1; i >= 0; i-- { // the latest of a name shadows
			l := locals[i]
			add(item(l.binding.Name, protocol.CompletionItemKindVariable, a.localType(l, 0)))
		}
		for _, fn := range a.res.Funcs {
			add(item(fn.Name, protocol.CompletionItemKindFunction, "fn "+schema.Signature(fn.Name, fn.Params, fn.Result)))
		}
		for _, c := range a.res.Consts {
			add(item(c.Name, protocol.CompletionItemKindConstant, a.bindingType(&resolve.Binding{Scope: resolve.Const, Index: c.Index})))
		}
		for _, c := range a.res.Ctors {
			add(item(c.Name, protocol.CompletionItemKindConstructor, ctorSignature(c)+" of "+c.Type))
		}
		for _, name := range slices.Sorted(maps.Keys(a.res.Records)) {
			add(item(name, protocol.CompletionItemKindStruct, "record type"))
		}
		for _, decl := range a.decls {
			if t, ok := decl.(*syntax.TypeDecl); ok {
				add(item(t.Name, protocol.CompletionItemKindEnum, "type"))
			}
		}
	}
	for _, b := range libsig.Builtins() {
		it := item(b.Name, protocol.CompletionItemKindFunction, b.String())
		if b.Value {
			k := protocol.CompletionItemKindValue
			it.Kind = &k
		}
		if b.Sig.Notes != "" {
			it.Documentation = b.Sig.Notes
		}
		add(it)
	}
	for ni := range libsig.Namespaces() {
		ns := &libsig.Namespaces()[ni]
		add(item(ns.Name, protocol.CompletionItemKindModule, "namespace "+ns.Name))
	}
	for _, kw := range keywords {
		add(item(kw, protocol.CompletionItemKindKeyword, ""))
	}
	for _, name := range slices.Sorted(maps.Keys(builtinTypes)) {
		add(item(name, protocol.CompletionItemKindClass, "type"))
	}
	return items
}
