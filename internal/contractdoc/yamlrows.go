package contractdoc

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// RowsLimits are the limits of a contract read row by row (the catalog,
// through ParseYAMLRows): a larger file than ContractLimits allows, since
// only one row's tree is alive at a time, and the same alias and nesting
// budgets for the whole document (docs/security.md).
var RowsLimits = YAMLLimits{
	MaxBytes:       64 << 20,
	MaxDepth:       MaxDepth,
	MaxAliasValues: ContractLimits.MaxAliasValues,
	MaxAliasBytes:  ContractLimits.MaxAliasBytes,
}

// MaxRowBytes bounds one row of a document read row by row, and
// MaxPartBytes the top level around the rows: what one part's parse may
// cost is bounded as a whole document's was (docs/security.md).
const (
	MaxRowBytes  = 1 << 20
	MaxPartBytes = 8 << 20
)

// Row is one item of the list ParseYAMLRows streams.
type Row struct {
	// Index is the item's index in the list.
	Index int
	// Doc holds the item: Root is its value, and positions are looked up
	// by pointers of the whole document ("/operations/3/mcp/name").
	Doc *Doc
	// Errs are the item's conversion problems (duplicate keys, tags).
	Errs []PosError
}

// ParseYAMLRows decodes src like ParseYAML, except that the block
// sequence under listKey of its root mapping is decoded one item at a
// time: each item is parsed, measured, converted and handed to visit, and
// dropped when visit returns, so a document of tens of thousands of rows
// never has more than one row's yaml.Node tree alive (docs/contracts.md
// §1). The returned document has an empty list under listKey.
//
// The rows are found by their layout: a line "listKey:" at the start of
// the line, then items that start with "-" at one indentation. Each part
// is parsed by yaml.v3 on its own, and the parts are checked to be what
// the whole document says they are (a mismatch, such as a quoted string
// running across rows, is a syntax error in the part that opens it). The
// alias and nesting budgets of lim hold for the document as a whole: an
// alias of an anchor defined in an earlier part is charged what the
// anchor's value costs, and converts to that value. A document that is
// not in this layout, or whose parts do not parse, is read whole when it
// is within ContractLimits.MaxBytes, so small files keep every message
// and layout YAML allows; a larger one gets the part's error.
//
// start is called before the rows are visited, and once more if the
// document has to be read whole after rows were visited: it returns the
// visitor, which starts from nothing each time.
func ParseYAMLRows(src []byte, listKey, emptyHint string, lim YAMLLimits, start func() func(Row)) (*Doc, []PosError) {
	if lim.MaxBytes > 0 && len(src) > lim.MaxBytes {
		return nil, []PosError{{Pos{1, 1}, TooLargeMessage(int64(len(src)), int64(lim.MaxBytes))}}
	}
	s := &rowStream{src: src, size: len(src), listKey: listKey, lim: lim, names: map[string]anchorRecord{}}
	doc, errs, problem := s.run(start())
	if problem == nil {
		return doc, errs
	}
	if problem.OverLimit || len(src) > ContractLimits.MaxBytes {
		return nil, []PosError{contractProblem(problem)}
	}
	whole := ContractLimits
	whole.MaxDepth, whole.MaxAliasValues, whole.MaxAliasBytes = lim.MaxDepth, lim.MaxAliasValues, lim.MaxAliasBytes
	return parseWholeRows(src, listKey, emptyHint, whole, start())
}

// ParseYAMLRowsFrom is ParseYAMLRows reading the document from r, whose
// size the open file's stat said: a document over ContractLimits.MaxBytes
// is read piece by piece, and only the part being parsed is held, not the
// whole source (docs/benchmarks.md, "Generation"); a smaller one is read
// whole and handed to ParseYAMLRows. A file that grew past lim.MaxBytes
// since its stat is refused when the growth is read.
func ParseYAMLRowsFrom(r io.Reader, size int64, listKey, emptyHint string, lim YAMLLimits, start func() func(Row)) (*Doc, []PosError) {
	max := int64(lim.MaxBytes)
	tooLarge := func(n int64) []PosError { return []PosError{{Pos{1, 1}, TooLargeMessage(n, max)}} }
	if size > max {
		return nil, tooLarge(size)
	}
	r = io.LimitReader(r, max+1)
	if size <= int64(ContractLimits.MaxBytes) {
		src, err := io.ReadAll(r)
		if err != nil {
			return nil, []PosError{{Pos{1, 1}, "cannot read: " + err.Error()}}
		}
		if int64(len(src)) > max {
			return nil, tooLarge(int64(len(src)))
		}
		return ParseYAMLRows(src, listKey, emptyHint, lim, start)
	}
	s := &rowStream{r: r, size: int(size), listKey: listKey, lim: lim, names: map[string]anchorRecord{}}
	doc, errs, problem := s.run(start())
	switch {
	case s.readErr != nil:
		return nil, []PosError{{Pos{1, 1}, "cannot read: " + s.readErr.Error()}}
	case s.read > max:
		return nil, tooLarge(s.read)
	case problem != nil:
		return nil, []PosError{contractProblem(problem)}
	}
	return doc, errs
}

// contractProblem words a YAMLProblem as a contract error: a syntax error
// names the line's start, as ParseYAML does.
func contractProblem(p *YAMLProblem) PosError {
	if p.OverLimit {
		return p.PosError
	}
	if p.layout {
		return PosError{Pos{p.Pos.Line, 1}, fmt.Sprintf("%s: a file over %s is read row by row, and must be a block mapping with a line \"key:\" at column 1 followed by its rows, each starting with \"-\" at one indentation", p.Message, byteSize(int64(ContractLimits.MaxBytes)))}
	}
	return PosError{Pos{p.Pos.Line, 1}, "invalid YAML: " + p.Message}
}

// parseWholeRows reads src as one document and visits the items of its
// list from the whole tree.
func parseWholeRows(src []byte, listKey, emptyHint string, lim YAMLLimits, visit func(Row)) (*Doc, []PosError) {
	root, problem := ReadYAML(src, lim)
	if problem != nil {
		return nil, []PosError{contractProblem(problem)}
	}
	if root == nil {
		return nil, []PosError{{Pos{1, 1}, "the file is empty: want " + emptyHint}}
	}
	top := root
	var list *yaml.Node
	if root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == listKey && k.Tag != "!!merge" {
				list = resolveAlias(root.Content[i+1])
				if list.Kind == yaml.SequenceNode {
					// The top level is converted with the list left empty;
					// the rows are converted one by one.
					top = &yaml.Node{Kind: root.Kind, Style: root.Style, Tag: root.Tag, Line: root.Line, Column: root.Column}
					top.Content = append([]*yaml.Node(nil), root.Content...)
					top.Content[i+1] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: list.Line, Column: list.Column}
				}
				break
			}
		}
	}
	doc := &Doc{yamlRoot: root}
	c := &yamlConverter{}
	doc.Root = c.convert(top, 0)
	if top != root {
		prefix := "/" + EscapePointer(listKey) + "/"
		for i, item := range list.Content {
			rc := &yamlConverter{}
			v := rc.convert(item, 2)
			visit(Row{Index: i, Doc: &Doc{Root: v, yamlRoot: item, prefix: prefix + strconv.Itoa(i)}, Errs: rc.errs})
		}
	}
	return doc, c.errs
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < MaxDepth; depth++ {
		n = n.Alias
	}
	return n
}

// anchorRecord is what a later part needs of an anchor defined in an
// earlier one: its cost, where it was defined, and its value (as compact
// JSON, which is about as large as the source it came from).
type anchorRecord struct {
	cost  yamlCost
	pos   Pos
	value []byte
}

// rowStream reads one document part by part: the top level up to the
// list's key, each row, and the top level after the list.
type rowStream struct {
	// src is the source, or the window of it being read: r, when set, is
	// read into it as lines are needed, and drop discards what the parts
	// before no longer need.
	src     []byte
	r       io.Reader
	eof     bool
	readErr error
	read    int64 // bytes read from r
	size    int   // of the whole source

	listKey string
	lim     YAMLLimits
	names   map[string]anchorRecord // anchors defined so far, by name
	// aliasVals and aliasBytes are what aliases repeated in all parts.
	aliasVals, aliasBytes int
}

// errLayout is the problem of a document not in the layout rows are
// streamed from; it sends the document to the whole reader.
func errLayout(line int, msg string) *YAMLProblem {
	return &YAMLProblem{PosError: PosError{Pos{line, 0}, msg}, layout: true}
}

// readChunk is how much fill reads at once.
const readChunk = 64 << 10

// fill reads from r until the window holds n bytes, and reports whether
// it does.
func (s *rowStream) fill(n int) bool {
	for len(s.src) < n && s.r != nil && !s.eof {
		if cap(s.src)-len(s.src) < readChunk {
			// A new buffer, so that what drop discarded is freed.
			grown := make([]byte, len(s.src), len(s.src)+max(len(s.src), readChunk))
			copy(grown, s.src)
			s.src = grown
		}
		k, err := s.r.Read(s.src[len(s.src):cap(s.src)])
		s.src = s.src[:len(s.src)+k]
		s.read += int64(k)
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.readErr = err
			}
		}
	}
	return len(s.src) >= n
}

// drop discards the first n bytes of the window, when reading from r.
func (s *rowStream) drop(n int) int {
	if s.r == nil {
		return 0
	}
	s.src = s.src[n:]
	return n
}

// srcLine is one line of the source: its byte range and its class.
type srcLine struct {
	start, end int // end excludes the newline
	number     int // 1-based
	indent     int // leading spaces
	blank      bool
	comment    bool
}

func (s *rowStream) line(start, number int) srcLine {
	end := bytes.IndexByte(s.src[start:], '\n')
	for end < 0 && s.fill(len(s.src)+1) {
		end = bytes.IndexByte(s.src[start:], '\n')
	}
	if end < 0 {
		end = len(s.src)
	} else {
		end += start
	}
	l := srcLine{start: start, end: end, number: number}
	for l.start+l.indent < end && s.src[l.start+l.indent] == ' ' {
		l.indent++
	}
	rest := bytes.TrimRight(s.src[l.start+l.indent:end], " \t\r")
	l.blank = len(rest) == 0
	l.comment = !l.blank && rest[0] == '#'
	return l
}

func (l srcLine) next() int { return l.end + 1 }

// isDash reports whether l starts an item of a block sequence at column
// indent.
func (s *rowStream) isDash(l srcLine, indent int) bool {
	if l.indent != indent || l.blank || l.comment {
		return false
	}
	rest := s.src[l.start+l.indent : l.end]
	return rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t' || rest[1] == '\r')
}

// endsDocument reports whether l is a document marker at column 0.
func (s *rowStream) endsDocument(l srcLine) bool {
	rest := s.src[l.start:l.end]
	if l.indent > 0 || len(rest) < 3 || (string(rest[:3]) != "---" && string(rest[:3]) != "...") {
		return false
	}
	return len(rest) == 3 || rest[3] == ' ' || rest[3] == '\t' || rest[3] == '\r'
}

var listKeyLine = regexp.MustCompile(`^([A-Za-z0-9_-]+):[ \t]*(#.*)?\r?$`)

func (s *rowStream) run(visit func(Row)) (*Doc, []PosError, *YAMLProblem) {
	// The list's key: a line "listKey:" at column 0.
	pos, number := 0, 1
	var keyLine srcLine
	for found := false; !found; {
		if !s.fill(pos + 1) {
			return nil, nil, errLayout(1, "no line "+s.listKey+":")
		}
		keyLine = s.line(pos, number)
		m := listKeyLine.FindSubmatch(s.src[keyLine.start:keyLine.end])
		found = m != nil && string(m[1]) == s.listKey
		pos, number = keyLine.next(), number+1
	}
	head, p := s.parsePart(s.src[:keyLine.end], 1, 0)
	if p != nil {
		return nil, nil, p
	}
	if head == nil || head.Column != 1 || len(head.Content) == 0 {
		return nil, nil, errLayout(keyLine.number, "the top level is not a block mapping")
	}
	key, value := head.Content[len(head.Content)-2], head.Content[len(head.Content)-1]
	if key.Line != keyLine.number || key.Column != 1 || value.Kind != yaml.ScalarNode || value.Tag != "!!null" || value.Anchor != "" {
		return nil, nil, errLayout(keyLine.number, "the list's key is not the last of the top level")
	}
	pos -= s.drop(pos)

	// The rows: items at the indentation of the first one, each parsed,
	// converted and visited before the next is read.
	indent, rowStart, rowLine, index := -1, -1, 0, 0
	var list *yaml.Node
	endRow := func(end int) *YAMLProblem {
		if rowStart < 0 {
			return nil
		}
		part, p := s.parsePart(s.src[rowStart:end], rowLine, indent+1)
		if p != nil {
			return p
		}
		if list == nil {
			list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: rowLine, Column: indent + 1}
		}
		row := part.Content[0]
		c := &yamlConverter{placeholders: part.placeholders}
		v := c.convert(row, 2)
		visit(Row{Index: index, Doc: &Doc{Root: v, yamlRoot: row, prefix: "/" + EscapePointer(s.listKey) + "/" + strconv.Itoa(index)}, Errs: c.errs})
		index++
		return nil
	}
	// The rows end where the top level goes on (after), or at the end of
	// the document.
	after, rowsEnd := -1, -1
	for after < 0 && rowsEnd < 0 && s.fill(pos+1) {
		l := s.line(pos, number)
		switch {
		case l.blank || l.comment, indent >= 0 && l.indent > indent:
			// Comments, and the lines of the row being read: a row over
			// its limit is refused before the rest of it is read.
			if rowStart >= 0 && l.end-rowStart > MaxRowBytes {
				if p := endRow(l.end); p != nil {
					return nil, nil, p
				}
			}
		case indent < 0 && s.isDash(l, l.indent), s.isDash(l, indent):
			indent = l.indent
			if p := endRow(l.start); p != nil {
				return nil, nil, p
			}
			shift := s.drop(l.start)
			l.start, l.end = l.start-shift, l.end-shift
			rowStart, rowLine = l.start, l.number
		case indent < 0:
			return nil, nil, errLayout(l.number, "the list's first item does not start a line")
		case s.endsDocument(l):
			rowsEnd = l.start // yaml.v3 reads the first document only
		case l.indent > 0:
			return nil, nil, errLayout(l.number, "a line after the rows is indented")
		default:
			after = l.start
		}
		if after < 0 && rowsEnd < 0 {
			pos, number = l.next(), number+1
		}
	}
	if after >= 0 {
		rowsEnd = after
		for s.fill(len(s.src) + 1) {
		}
	}
	if rowsEnd < 0 {
		rowsEnd = len(s.src)
	}
	if p := endRow(rowsEnd); p != nil {
		return nil, nil, p
	}
	if list == nil {
		return nil, nil, errLayout(keyLine.number, "the list has no rows")
	}

	// The rest of the top level: the members after the list.
	root := &yaml.Node{Kind: head.Kind, Style: head.Style, Tag: head.Tag, Line: head.Line, Column: head.Column}
	root.Content = append(head.Content[:len(head.Content)-1:len(head.Content)-1], list)
	c := &yamlConverter{placeholders: head.placeholders}
	if after >= 0 {
		tail, p := s.parsePart(s.src[after:], number, 0)
		if p != nil {
			return nil, nil, p
		}
		if tail != nil {
			if tail.Column != 1 {
				return nil, nil, errLayout(number, "the top level after the rows is not a block mapping")
			}
			root.Content = append(root.Content, tail.Content...)
			for n, rec := range tail.placeholders {
				c.placeholders[n] = rec
			}
		}
	}
	doc := &Doc{yamlRoot: root}
	doc.Root = c.convert(root, 0)
	return doc, c.errs, nil
}

// partNode is the root of one parsed part, with the placeholders that
// stand for anchors of earlier parts.
type partNode struct {
	*yaml.Node
	placeholders map[*yaml.Node]anchorRecord
}

// aliasName finds the names a part may alias; yaml.v3 (libyaml) allows
// letters, digits, '-' and '_' in them.
var aliasName = regexp.MustCompile(`\*([A-Za-z0-9_-]+)`)

// parsePart parses text, which starts at line first of the source, as one
// document, checks it against the limits with the costs of the parts
// before it, and records its anchors. A row (itemColumn > 0) must parse
// to a sequence of one item at that column on its first line; a
// top-level part is measured as the document's root mapping. Anchors of
// earlier parts that the text may alias are defined ahead of it as
// placeholders ("- &name ~" items, or "x-name: &name ~" members), which
// are taken out again and which measuring and converting replace with
// the recorded costs and values.
func (s *rowStream) parsePart(text []byte, first, itemColumn int) (*partNode, *YAMLProblem) {
	// Within ContractLimits.MaxBytes the document may be read whole, at
	// the cost it always had.
	small := s.size <= ContractLimits.MaxBytes
	if small && (itemColumn > 0 && len(text) > MaxRowBytes || len(text) > MaxPartBytes) {
		return nil, errLayout(first, "a part is larger than a part may be")
	}
	if itemColumn > 0 && len(text) > MaxRowBytes {
		return nil, &YAMLProblem{PosError: PosError{Pos{first, itemColumn}, fmt.Sprintf(
			"this row has more than %s: a row may have at most %s; shorten it", byteSize(MaxRowBytes), byteSize(MaxRowBytes))}, OverLimit: true}
	}
	if itemColumn == 0 && len(text) > MaxPartBytes {
		return nil, &YAMLProblem{PosError: PosError{Pos{first, 1}, fmt.Sprintf(
			"the top level outside the rows is %d bytes from here: at most %s are allowed; shorten it", len(text), byteSize(MaxPartBytes))}, OverLimit: true}
	}
	var pre []byte
	var names []string
	seen := map[string]bool{}
	for _, m := range aliasName.FindAllSubmatch(text, -1) {
		name := string(m[1])
		if _, ok := s.names[name]; !ok || seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
		if itemColumn > 0 {
			pre = append(pre, bytes.Repeat([]byte{' '}, itemColumn-1)...)
			pre = append(pre, "- &"...)
		} else {
			pre = append(pre, "x-"+name+": &"...)
		}
		pre = append(pre, name+" ~\n"...)
	}
	input := text
	if len(pre) > 0 {
		input = append(pre, text...)
	}
	shift := first - 1 - len(names)
	var d yaml.Node
	if err := yaml.Unmarshal(input, &d); err != nil {
		pe := yamlSyntaxError(err)
		pe.Pos.Line = max(pe.Pos.Line+shift, first)
		return nil, &YAMLProblem{PosError: pe}
	}
	if d.Kind == 0 || len(d.Content) == 0 {
		if itemColumn > 0 || len(names) > 0 {
			return nil, errLayout(first, "a part is empty")
		}
		return nil, nil
	}
	root := d.Content[0]
	part := &partNode{Node: root, placeholders: map[*yaml.Node]anchorRecord{}}
	step := 2 // a placeholder is a member of the top-level mapping...
	if itemColumn > 0 {
		step = 1 // ... or an item of the row's sequence
	}
	want := yaml.MappingNode
	if itemColumn > 0 {
		want = yaml.SequenceNode
	}
	if root.Kind != want || len(root.Content) < step*len(names) {
		return nil, errLayout(first, "a part is not a mapping or a row")
	}
	for i, name := range names {
		n := root.Content[i*step+step-1]
		if n.Anchor != name || n.Line > len(names) {
			return nil, errLayout(first, "a part does not follow its placeholders")
		}
		rec := s.names[name]
		n.Line, n.Column = rec.pos.Line, rec.pos.Col
		part.placeholders[n] = rec
	}
	root.Content = root.Content[step*len(names):]
	m := &yamlMeter{lim: s.lim, anchored: map[*yaml.Node]yamlCost{}, open: map[*yaml.Node]bool{},
		aliasVals: s.aliasVals, aliasBytes: s.aliasBytes, shift: shift}
	for n, rec := range part.placeholders {
		m.anchored[n] = rec.cost
	}
	var defined []*yaml.Node
	m.onAnchor = func(n *yaml.Node) { defined = append(defined, n) }
	if itemColumn > 0 {
		if len(root.Content) != 1 {
			return nil, errLayout(first, "a row is not one item")
		}
		item := root.Content[0]
		// An item that is only "-" is a null on the line after it.
		if item.Line+shift != first && !(item.Kind == yaml.ScalarNode && item.Tag == "!!null" && item.Line+shift == first+1) {
			return nil, errLayout(first, "a row does not start at its dash")
		}
		// The row sits in the root mapping's list: level 3.
		if _, p := m.measure(item, 3); p != nil {
			return nil, p
		}
	} else if _, p := m.measure(root, 1); p != nil {
		return nil, p
	}
	s.aliasVals, s.aliasBytes = m.aliasVals, m.aliasBytes
	for _, n := range defined {
		c := &yamlConverter{placeholders: part.placeholders}
		v := c.convert(n, 0)
		s.names[n.Anchor] = anchorRecord{cost: m.anchored[n], pos: Pos{n.Line, n.Column}, value: schemajson.Compact(v)}
	}
	return part, nil
}
