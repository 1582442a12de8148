package lsp

import (
	"fmt"
	"slices"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vox-lang/vox-mcp/internal/vox/resolve"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// target is where the name o refers to is declared in the file: the
// same position for every occurrence of one local, function, constant,
// type, constructor or field, so that the references of a name are the
// occurrences with its target. ok is false for the library's names
// (builtins, namespaces, capability functions, methods, decorators,
// predeclared types), which the file does not declare.
func (a *analysis) target(o *occurrence) (syntax.Pos, bool) {
	p, name := a.declaration(o)
	if name != "" { // a constant: its let, and the name after it
		p = a.constPos(name)
	}
	if !p.IsValid() && o.kind == occMember {
		// p.x where the record of p is not evident from the source: the
		// checker may know its type.
		if info, ok := a.checkedInfo(o.pos); ok && info.Kind == "field" && info.DefLine > 0 {
			p = syntax.MakePos(info.DefLine, info.DefCol)
		}
	}
	return p, p.IsValid()
}

// references are the occurrences that refer to what is declared at
// target, in order of position; with decl, the declaration's own.
func (a *analysis) references(name string, target syntax.Pos, decl bool) []*occurrence {
	var out []*occurrence
	for i := range a.occs {
		o := &a.occs[i]
		if o.name != name { // a reference is written with the declared name
			continue
		}
		if t, ok := a.target(o); !ok || t != target {
			continue
		}
		if !decl && o.pos == target {
			continue
		}
		out = append(out, o)
	}
	return out
}

// occRange is the range of an occurrence's name.
func (d *document) occRange(o *occurrence) protocol.Range {
	start := d.posOffset(o.pos)
	return protocol.Range{Start: d.position(start), End: d.position(min(start+int(o.len), len(d.text)))}
}

// references answers textDocument/references: the occurrences in the
// document of the local, function, constant, type, constructor or
// record field under the cursor (the declaration too when the context
// asks for it); none for the library's names.
func (s *Server) references(_ *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	d, o, err := s.lookup(p.TextDocumentPositionParams)
	out := []protocol.Location{}
	if err != nil || o == nil {
		return out, err
	}
	target, ok := d.an.target(o)
	if !ok {
		return out, nil
	}
	for _, r := range d.an.references(o.name, target, p.Context.IncludeDeclaration) {
		out = append(out, protocol.Location{URI: d.uri, Range: d.occRange(r)})
	}
	return out, nil
}

// renameTarget finds what the cursor is on and whether it can be
// renamed: a name the file declares, not a keyword nor the library's.
func (s *Server) renameTarget(p protocol.TextDocumentPositionParams) (*document, *occurrence, syntax.Pos, error) {
	d, o, err := s.lookup(p)
	if err != nil {
		return nil, nil, syntax.Pos{}, err
	}
	at := d.offset(p.Position)
	if o == nil {
		if w := wordAt(d.text, at); w != "" && (syntax.IsKeyword(w) || slices.Contains(keywords, w)) {
			return nil, nil, syntax.Pos{}, fmt.Errorf("%s is a keyword of Vox: it cannot be renamed", w)
		}
		return nil, nil, syntax.Pos{}, fmt.Errorf("there is no name to rename at %d:%d", p.Position.Line+1, p.Position.Character+1)
	}
	target, ok := d.an.target(o)
	if !ok {
		return nil, nil, syntax.Pos{}, fmt.Errorf("%s is %s: only the names this file declares can be renamed", o.name, d.an.libraryKind(o))
	}
	return d, o, target, nil
}

// libraryKind says what a name the file does not declare is.
func (a *analysis) libraryKind(o *occurrence) string {
	switch o.kind {
	case occDecorator:
		return "a decorator"
	case occType:
		if _, ok := builtinTypes[o.name]; ok {
			return "a predeclared type"
		}
		return "not a type this file declares"
	case occMember:
		if a.namespaceOf(o.dot.X) != nil {
			return "a capability function of the library"
		}
		if o.call {
			return "a method of the library"
		}
		return "not a field of a record this file declares (or its record is not evident here)"
	case occIdent:
		if o.binding != nil {
			switch o.binding.Scope {
			case resolve.Builtin:
				return "a builtin of the library"
			case resolve.Namespace:
				return "a namespace of the library"
			case resolve.Ctor:
				return "a constructor of the library"
			}
		}
		return "not declared in this file"
	}
	return "not declared in this file"
}

// wordAt is the identifier or keyword around offset off.
func wordAt(text []byte, off int) string {
	start, end := off, off
	for start > 0 && isNameByte(text[start-1]) {
		start--
	}
	for end < len(text) && isNameByte(text[end]) {
		end++
	}
	return string(text[start:end])
}

// prepareRename answers textDocument/prepareRename with the range of the
// name under the cursor and the name as placeholder, or an error that
// says why it cannot be renamed (a keyword, a name of the library).
func (s *Server) prepareRename(_ *glsp.Context, p *protocol.PrepareRenameParams) (any, error) {
	d, o, _, err := s.renameTarget(p.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	return protocol.RangeWithPlaceholder{Range: d.occRange(o), Placeholder: o.name}, nil
}

// rename answers textDocument/rename with an edit of every occurrence
// of the name in the document. The new name must be an identifier, not
// a keyword, and must not be a name the renamed one would clash with or
// be hidden by (renameClash).
func (s *Server) rename(_ *glsp.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	d, o, target, err := s.renameTarget(p.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	if err := validName(p.NewName); err != nil {
		return nil, err
	}
	if p.NewName != o.name {
		if err := d.an.renameClash(o, target, p.NewName); err != nil {
			return nil, err
		}
	}
	edits := []protocol.TextEdit{}
	for _, r := range d.an.references(o.name, target, true) {
		edits = append(edits, protocol.TextEdit{Range: d.occRange(r), NewText: p.NewName})
	}
	return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{d.uri: edits}}, nil
}

// validName checks a new name: an ASCII letter or _, then letters,
// digits and _ (the scanner's identifiers), and not a keyword.
func validName(name string) error {
	ok := name != ""
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9'
	}
	if !ok {
		return fmt.Errorf("%q is not a Vox name: a name is a letter or _ followed by letters, digits and _", name)
	}
	if syntax.IsKeyword(name) {
		return fmt.Errorf("%s is a keyword of Vox and cannot name anything", name)
	}
	return nil
}

// renameClash refuses a new name that is already in use where the
// renamed name is visible, so that the rename cannot change what a name
// refers to: for a local, the other locals of its top-level declaration
// and every module-level and library name; for a function, a constant
// or a constructor, every module-level and library name and every local
// of the file (one could hide it); for a type, the file's types and the
// predeclared ones; for a field, the other fields of its record.
func (a *analysis) renameClash(o *occurrence, target syntax.Pos, name string) error {
	clash := func(what string, at syntax.Pos) error {
		where := ""
		if at.IsValid() {
			where = fmt.Sprintf(" (line %d)", at.Line)
		}
		return fmt.Errorf("cannot rename %s to %s: %s is already %s%s; choose another name", o.name, name, name, what, where)
	}
	moduleClash := func() error {
		if b := a.moduleBinding(name); b != nil {
			switch b.Scope {
			case resolve.Global:
				return clash("a function", a.res.Funcs[b.Index].NamePos)
			case resolve.Const:
				return clash("a constant", a.constPos(name))
			case resolve.Ctor:
				return clash("a constructor", syntax.Pos{})
			case resolve.Builtin:
				return clash("a builtin of the library", syntax.Pos{})
			case resolve.Namespace:
				return clash("a namespace of the library", syntax.Pos{})
			}
		}
		return nil
	}
	switch kind := a.targetKind(o, target); kind {
	case "local":
		decl := a.declAt(target)
		for _, l := range a.locals {
			if l.decl == decl && l.binding.Name == name {
				return clash("a local of the same function", l.binding.Pos)
			}
		}
		return moduleClash()
	case "module":
		if err := moduleClash(); err != nil {
			return err
		}
		for _, l := range a.locals {
			if l.binding.Name == name {
				return clash("a local, which would hide it", l.binding.Pos)
			}
		}
	case "type":
		if r := a.record(name); r != nil {
			return clash("a record type", r.NamePos)
		}
		if t := a.typeDecl(name); t != nil {
			return clash("a type", t.NamePos)
		}
		if _, ok := builtinTypes[name]; ok {
			return clash("a predeclared type", syntax.Pos{})
		}
	case "field":
		for _, d := range a.decls {
			if r, ok := d.(*syntax.RecordDecl); ok && slices.ContainsFunc(r.Fields, func(f *syntax.Field) bool { return f.NamePos == target }) {
				if f := fieldPos(r, name); f.IsValid() {
					return clash("a field of "+r.Name, f)
				}
			}
		}
	}
	return nil
}

// targetKind says what kind of declaration target is: local, module (a
// function, a constant or a constructor), type or field.
func (a *analysis) targetKind(o *occurrence, target syntax.Pos) string {
	if d := a.at(target); d != nil && d.pos == target {
		switch d.kind {
		case occFnName, occConstName, occVariant:
			return "module"
		case occTypeDecl:
			return "type"
		case occFieldDecl:
			return "field"
		case occIdent:
			return "local"
		}
	}
	if o.binding != nil && (o.binding.Scope == resolve.Local || o.binding.Scope == resolve.Cell) {
		return "local"
	}
	return "module"
}
