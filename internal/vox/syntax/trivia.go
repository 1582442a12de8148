package syntax

import "sort"

// This file keeps what the parser's tree does not hold but a formatter
// needs: the comments and, on request, the tokens with their offsets.
//
// Comments are kept the way go/ast keeps them, as one list of positioned
// comment groups on the File rather than as leading and trailing trivia
// of nodes. A comment may stand where no node starts or ends (between a
// call's arguments, after an operator that continues a line, before a
// closing brace), and a tree that attached it to a node would have to
// choose a node for every such place, and every pass that rebuilds a node
// would have to carry it along; a list ordered by position cannot lose
// one, and a printer interleaves it with the tokens by offset. Comments
// inside the opaque units the parser skips (tolerated declarations, the
// bodies of unavailable functions, ignored decorator arguments) belong to
// that unit's text and are not in the list.

// Comment is one // or # comment, to the end of its line.
type Comment struct {
	Pos  Pos
	Off  int    // offset of its first byte ('/' or '#')
	Text string // the comment as written, without the newline
}

// End returns the offset just after the comment.
func (c *Comment) End() int { return c.Off + len(c.Text) }

// CommentGroup is a run of comments on consecutive lines with nothing
// else on those lines and no blank line between them, or one comment
// that follows code on its line.
type CommentGroup struct {
	List []*Comment
}

// Span returns the position of the group's first comment.
func (g *CommentGroup) Span() Pos { return g.List[0].Pos }

// TokenSpan is one token as the parser consumed it. A token of kind
// OPAQUE is a unit the parser skipped without tokenising it; its text,
// Src[Off:End], is kept as written.
type TokenSpan struct {
	Tok      Token
	Off, End int
}

// OPAQUE marks a TokenSpan of skipped text; no scanner token has it.
const OPAQUE Token = 255

// recordComment appends the comment at src[off:end] unless an earlier
// scan (before a lookahead's restore) already did.
func (s *scanner) recordComment(off, end int) {
	if n := len(s.comments); n > 0 && s.comments[n-1].Off >= off {
		return
	}
	s.comments = append(s.comments, &Comment{Pos: s.posAt(off), Off: off, Text: s.srcStr[off:end]})
}

// record notes the parser's current token when tokens are being kept;
// tokens recorded by a lookahead that was undone are dropped first.
func (p *parser) record() {
	if p.tokens == nil {
		return
	}
	p.dropFrom(p.sc.start)
	*p.tokens = append(*p.tokens, TokenSpan{Tok: p.sc.tok, Off: p.sc.start, End: p.sc.end})
}

// dropFrom forgets the recorded tokens that start at offset off or after.
func (p *parser) dropFrom(off int) {
	toks := *p.tokens
	i := len(toks)
	for i > 0 && toks[i-1].Off >= off {
		i--
	}
	*p.tokens = toks[:i]
}

// opaque records src[off:end] as one unit the parser skips, replacing
// whatever tokens and comments a lookahead had recorded inside it.
func (p *parser) opaque(off, end int) {
	if end > len(p.sc.src) {
		end = len(p.sc.src)
	}
	cs := p.sc.comments
	i := len(cs)
	for i > 0 && cs[i-1].Off >= off {
		i--
	}
	j := i
	for _, c := range cs[i:] {
		if c.Off >= end {
			cs[j] = c
			j++
		}
	}
	p.sc.comments = cs[:j]
	// The blanks and line breaks after the unit are layout, not its text.
	for end > off && (p.sc.src[end-1] == ' ' || p.sc.src[end-1] == '\t' || p.sc.src[end-1] == '\r' || p.sc.src[end-1] == '\n') {
		end--
	}
	if p.tokens == nil || end <= off {
		return
	}
	p.dropFrom(off)
	*p.tokens = append(*p.tokens, TokenSpan{Tok: OPAQUE, Off: off, End: end})
}

// groupComments makes the comment groups of src from the comments in
// order of offset.
func groupComments(src []byte, cs []*Comment) []*CommentGroup {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Off < cs[j].Off })
	var groups []*CommentGroup
	for i, c := range cs {
		if i > 0 && ownLine(src, c.Off) && ownLine(src, cs[i-1].Off) && onlySpaceAndOneNewline(src[cs[i-1].End():c.Off]) {
			g := groups[len(groups)-1]
			g.List = append(g.List, c)
			continue
		}
		groups = append(groups, &CommentGroup{List: []*Comment{c}})
	}
	return groups
}

// ownLine reports whether only blanks precede offset off on its line.
func ownLine(src []byte, off int) bool {
	for i := off - 1; i >= 0 && src[i] != '\n'; i-- {
		if c := src[i]; c != ' ' && c != '\t' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}

func onlySpaceAndOneNewline(b []byte) bool {
	n := 0
	for _, c := range b {
		switch c {
		case '\n':
			n++
		case ' ', '\t', '\r', '\f':
		default:
			return false
		}
	}
	return n == 1
}
