package syntax

import (
	"sort"
	"strings"
)

// This file reads the parameter descriptions of a function from its doc
// comment (docs/vox-language.md, "Parameter descriptions"). The language
// has no doc-comment syntax of its own (the product spec's lexical rules
// say so), so vox-mcp takes the one most tool authors already write:
// JSDoc's `@param name text`, on a // or # line of the comment block
// right above the function's first decorator, or between its decorators.

// ParamDoc is one `@param name text` line of a doc comment.
type ParamDoc struct {
	Name    string
	NamePos Pos    // where the name is written in the comment
	Text    string // the description, trimmed; "" when the line has none
}

// ParamDocs returns the @param lines of fn's doc comment in order: the
// comment group that ends on the line just above fn.Head and the
// comments between the line of fn.Head and the line of the function's
// name (between its decorators). Lines that are
// not @param lines are the function's prose and are left alone.
func ParamDocs(f *File, fn *FnDecl) []ParamDoc {
	if len(f.Comments) == 0 || !fn.Head.IsValid() {
		return nil
	}
	head, name := fn.Head.Line, fn.NamePos.Line
	// The first group that ends on the line above the head or later.
	i := sort.Search(len(f.Comments), func(i int) bool {
		g := f.Comments[i]
		return g.List[len(g.List)-1].Pos.Line >= head-1
	})
	var docs []ParamDoc
	for ; i < len(f.Comments); i++ {
		g := f.Comments[i]
		first, last := g.List[0].Pos, g.List[len(g.List)-1].Pos
		if first.Line >= name {
			break
		}
		if last.Line != head-1 && first.Line <= head {
			continue
		}
		for _, c := range g.List {
			if d, ok := paramDoc(c); ok {
				docs = append(docs, d)
			}
		}
	}
	return docs
}

// paramDoc parses one comment as `@param name text` (after // or #).
func paramDoc(c *Comment) (ParamDoc, bool) {
	text := c.Text
	skip := 1
	if strings.HasPrefix(text, "//") {
		skip = 2
	}
	rest := text[skip:]
	trimmed := strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(trimmed, "@param") {
		return ParamDoc{}, false
	}
	after := trimmed[len("@param"):]
	if after != "" && after[0] != ' ' && after[0] != '\t' {
		return ParamDoc{}, false // @params, @parameter: not ours
	}
	body := strings.TrimLeft(after, " \t")
	off := len(text) - len(body) // offset of the name in the comment
	n := 0
	for n < len(body) && (body[n] == '_' || body[n] >= 'a' && body[n] <= 'z' || body[n] >= 'A' && body[n] <= 'Z' || n > 0 && body[n] >= '0' && body[n] <= '9') {
		n++
	}
	d := ParamDoc{Name: body[:n], NamePos: MakePos(int(c.Pos.Line), int(c.Pos.Col)+off)}
	desc := strings.TrimLeft(body[n:], " \t")
	// JSDoc writes `@param name - text`; `name: text` reads naturally too.
	if strings.HasPrefix(desc, "- ") || strings.HasPrefix(desc, ":") {
		desc = desc[1:]
	}
	d.Text = strings.Clone(strings.TrimSpace(desc))
	d.Name = strings.Clone(d.Name)
	return d, true
}
