package lsp

import (
	"math/rand/v2"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A rope holds a document's text while the range edits of one didChange
// are applied. Each edit's positions refer to the text the edits before
// it produced, so the edits must be applied in order; on a flat buffer
// every edit copies and rescans the whole text (4,000 edits on a 1 MB
// document took 4.7 s). In the rope an edit costs O(log n) plus the
// length of its text: the text is pieces of at most ropePiece bytes in a
// treap ordered by position, each subtree knowing its bytes, line breaks
// and UTF-16 code units, so a position (line, UTF-16 character) is found
// by descending the tree and scanning at most two pieces.
//
// Every piece is valid UTF-8 cut at rune boundaries (documents are: the
// JSON they arrive in cannot carry anything else, and text that would is
// made valid first), so the UTF-16 length of a text is the sum of its
// pieces' and a position is converted exactly as document.offset does on
// the flat text, which FuzzApplyChanges checks.
type rope struct {
	root  *ropeNode
	rnd   *rand.PCG
	piece int // the most bytes a new piece holds
}

// ropePiece is the most bytes a piece holds: a position's scan within a
// piece costs at most this many bytes. (The fuzz target uses smaller
// pieces, to cut texts into many.)
const ropePiece = 512

type ropeNode struct {
	left, right *ropeNode
	prio        uint64
	piece       string
	// pieceLines and pieceUnits are the line breaks and UTF-16 code units
	// of piece; bytes, lines and units those of the whole subtree.
	pieceLines, pieceUnits int
	bytes, lines, units    int
}

func newRope(text string, piece int) *rope {
	// The priorities only keep the tree balanced in expectation; they need
	// not be secret, only independent of the edits.
	r := &rope{rnd: rand.NewPCG(rand.Uint64(), rand.Uint64()), piece: max(piece, 1)}
	r.root = r.build(text)
	return r
}

// build makes a subtree of text cut into pieces.
func (r *rope) build(text string) *ropeNode {
	var t *ropeNode
	for len(text) > 0 {
		n := min(len(text), r.piece)
		for n > 0 && n < len(text) && !utf8.RuneStart(text[n]) {
			n-- // never cut a rune
		}
		if n == 0 { // a piece smaller than the first rune
			_, n = utf8.DecodeRuneInString(text)
		}
		t = merge(t, r.node(text[:n]))
		text = text[n:]
	}
	return t
}

func (r *rope) node(piece string) *ropeNode {
	n := &ropeNode{prio: r.rnd.Uint64(), piece: piece, pieceLines: strings.Count(piece, "\n"), pieceUnits: utf16Len([]byte(piece))}
	n.update()
	return n
}

func (t *ropeNode) size() (bytes, lines, units int) {
	if t == nil {
		return 0, 0, 0
	}
	return t.bytes, t.lines, t.units
}

func (t *ropeNode) update() {
	lb, ll, lu := t.left.size()
	rb, rl, ru := t.right.size()
	t.bytes = lb + len(t.piece) + rb
	t.lines = ll + t.pieceLines + rl
	t.units = lu + t.pieceUnits + ru
}

// merge joins a and b, every position of a before b's.
func merge(a, b *ropeNode) *ropeNode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		a.update()
		return a
	default:
		b.left = merge(a, b.left)
		b.update()
		return b
	}
}

// split cuts t before byte offset k, which is at a rune boundary.
func (r *rope) split(t *ropeNode, k int) (*ropeNode, *ropeNode) {
	if t == nil {
		return nil, nil
	}
	lb, _, _ := t.left.size()
	switch {
	case k <= lb:
		a, b := r.split(t.left, k)
		t.left = b
		t.update()
		return a, t
	case k >= lb+len(t.piece):
		a, b := r.split(t.right, k-lb-len(t.piece))
		t.right = a
		t.update()
		return t, b
	}
	// Inside this node's piece: the piece's tail becomes a node of its own
	// at the start of the right part.
	k -= lb
	tail := r.node(t.piece[k:])
	right := t.right
	t.piece, t.right = t.piece[:k], nil
	t.pieceLines, t.pieceUnits = strings.Count(t.piece, "\n"), utf16Len([]byte(t.piece))
	t.update()
	return t, merge(tail, right)
}

// replace replaces bytes [start, end) with text.
func (r *rope) replace(start, end int, text string) {
	a, rest := r.split(r.root, start)
	_, c := r.split(rest, end-start)
	r.root = merge(merge(a, r.build(text)), c)
}

// lineStart is the byte offset where line i (0-based) starts: just after
// the i-th line break. i is at most the number of line breaks.
func (r *rope) lineStart(i int) int {
	if i == 0 {
		return 0
	}
	off := 0
	for t := r.root; t != nil; {
		lb, ll, _ := t.left.size()
		if i <= ll {
			t = t.left
			continue
		}
		i -= ll
		off += lb
		if i <= t.pieceLines {
			p := 0
			for ; i > 0; i-- {
				p += strings.IndexByte(t.piece[p:], '\n') + 1
			}
			return off + p
		}
		i -= t.pieceLines
		off += len(t.piece)
		t = t.right
	}
	return off
}

// byteAt is the byte at offset k < the text's length.
func (r *rope) byteAt(k int) byte {
	for t := r.root; ; {
		lb, _, _ := t.left.size()
		switch {
		case k < lb:
			t = t.left
		case k < lb+len(t.piece):
			return t.piece[k-lb]
		default:
			k -= lb + len(t.piece)
			t = t.right
		}
	}
}

// unitsBefore is the number of UTF-16 code units before byte offset k,
// which is at a rune boundary.
func (r *rope) unitsBefore(k int) int {
	units := 0
	for t := r.root; t != nil; {
		lb, _, lu := t.left.size()
		switch {
		case k < lb:
			t = t.left
		case k <= lb+len(t.piece):
			return units + lu + utf16Len([]byte(t.piece[:k-lb]))
		default:
			k -= lb + len(t.piece)
			units += lu + t.pieceUnits
			t = t.right
		}
	}
	return units
}

// byteOfUnit is the first rune boundary before which at least u UTF-16
// code units lie: past a surrogate pair when u falls inside one, as
// utf16ToByte does; the text's length when u is past its end.
func (r *rope) byteOfUnit(u int) int {
	off := 0
	for t := r.root; t != nil; {
		if u <= 0 {
			return off
		}
		lb, _, lu := t.left.size()
		if u <= lu {
			t = t.left
			continue
		}
		u -= lu
		off += lb
		if u <= t.pieceUnits {
			i, n := 0, 0
			for n < u {
				c, size := utf8.DecodeRuneInString(t.piece[i:])
				n += utf16.RuneLen(c)
				i += size
			}
			return off + i
		}
		u -= t.pieceUnits
		off += len(t.piece)
		t = t.right
	}
	return off
}

// offset converts an LSP position to a byte offset exactly as
// document.offset does: a line past the last is the end of the text, a
// character past the line's end (its line ending excluded) is that end.
func (r *rope) offset(line, character int) int {
	total, lines, _ := r.root.size()
	if line > lines {
		return total
	}
	start := r.lineStart(line)
	end := total
	if line < lines {
		end = r.lineStart(line+1) - 1 // the line break
	}
	if end > start && r.byteAt(end-1) == '\r' {
		end--
	}
	return min(r.byteOfUnit(r.unitsBefore(start)+character), end)
}

// appendTo appends the text to b.
func (t *ropeNode) appendTo(b []byte) []byte {
	for t != nil {
		b = t.left.appendTo(b)
		b = append(b, t.piece...)
		t = t.right
	}
	return b
}

func (r *rope) text() []byte {
	n, _, _ := r.root.size()
	return r.root.appendTo(make([]byte, 0, n))
}
