package voxmcp

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The docs are what code comments send a reader to, so a comment that
// cites a section must name one that exists: TestDocCitations finds every
// citation of a page of docs/ in the repository's comments and docs and
// resolves it against the headings of the page it cites.
//
// Where citations are looked for (citationSegments): Go comments and Go
// string literals (an error message may send the user to a section);
// the prose of Markdown files outside fenced code; the comment lines of
// .vox, .mjs and .js files (// and #), of Makefiles, YAML, shell and text
// files (#); the comment section of a txtar archive (before its first
// file); JSON files whole (their "description" strings). This file is
// skipped: its unit cases cite pages and sections that do not exist on
// purpose.
//
// What a citation is: a page, `docs/NAME.md` (anywhere) or `NAME.md`
// where docs/NAME.md exists (bare names count only when a page of that
// name exists, so the spec's `40-skills.md` is not one), then what
// follows it, possibly after the `)` that closes a Markdown link:
//
//   - `#anchor` (a link's fragment): a heading whose GitHub anchor it is
//     (lowercase, punctuation but hyphens dropped, spaces as hyphens, a
//     -1, -2 ... suffix on repeated headings);
//   - `§N`, `§N.M`, and lists and ranges of them (`§1, §5`, `§3–§4`): a
//     heading numbered N as the docs number them (`## 3. Title`, or
//     `## §3 Title`); `§N.M` is a heading numbered N.M, or else item M of
//     a numbered list at the top level of section N (federation.md §1.3 is
//     the third step of the loader);
//   - a section name, in double quotes (`docs/x.md, "Fleet mode"`) or
//     unquoted after a comma, starting with a capital letter
//     (`docs/x.md, Refresh`) and running to the first ), ], ;, :, ", —
//     or end of sentence; after a `§N` the name is looked up among the
//     headings inside section N (`docs/federation.md §8, "Fleet mode"`).
//
// The headings of a page are its Markdown headings (outside fenced code)
// and its run-in headings: a paragraph that starts with bold text
// (`**Validated, not tabled.** ...`, `**The surface cache** (...)`) names a
// subsection of the heading above it, as the docs write short ones; a
// bold start inside a list item does not.
//
// How a name matches a heading: both are compared case-insensitively,
// with backticks, link syntax and a heading's own number dropped and
// spaces folded. A quoted name must be the heading's text or a prefix of
// it that ends at a word boundary (comments shorten long headings:
// "Cold start" cites "Cold start: where vox-mcp's time goes"). An
// unquoted name may also run on past the heading into the comment's own
// words, so the heading may be a word-boundary prefix of it instead
// (`docs/vox-language.md, The checker, lists every code` cites "The
// checker"). A page without a matching heading, or a missing page with a
// section, is an error naming the file and line of the citation.
//
// In docs/*.md a bare `§N` not attached to a page cites the page itself;
// one after a number (`RFC 4648 §4`, `issue 15 §1`) or after the name of
// a file outside docs/ (the spec's `10-contracts.md` §1) cites something
// else and is not checked. A mention of a page without a section only
// has to name a page that exists, except in a Go string literal, where a
// path such as "docs/guide.md" is test data.

// docPage is a page of docs/ as citations see it.
type docPage struct {
	headings []docHeading
}

type docHeading struct {
	level  int
	number string // "3", "1.2"; empty when the heading has none
	text   string // normalized, without its number
	anchor string // GitHub's anchor for it
	items  []int  // numbers of the top-level numbered list items in its body
	runIn  bool   // a paragraph that starts with bold text: **Validated, not tabled.**
	end    int    // index in headings of the first heading after its section
}

var (
	headingLine    = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	headingNumber  = regexp.MustCompile(`^(?:§\s*)?(\d+(?:\.\d+)*)\.?\s+(.*)$`)
	listItemLine   = regexp.MustCompile(`^(\d+)\.\s`)
	runInHeading   = regexp.MustCompile(`^\*\*([^*]+)\*\*`)
	mdLink         = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	anchorDrop     = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	fenceLine      = regexp.MustCompile("^\\s*(```|~~~)")
	pageRef        = regexp.MustCompile(`(docs/)?([A-Za-z0-9_-]+\.md)\b(#[^\s)\]"'` + "`" + `]*)?`)
	sectionNumbers = regexp.MustCompile(`^\s*§\s*(\d+(?:\.\d+)*)`)
	moreNumbers    = regexp.MustCompile(`^\s*(?:,|–|-|and)\s*§\s*(\d+(?:\.\d+)*)`)
	quotedName     = regexp.MustCompile(`^(?:,\s*|\s+)"([\p{L}\p{N}` + "`" + `][^"]*)"`)
	plainName      = regexp.MustCompile(`^,\s*(\p{Lu}[^)\];:"—]*)`)
	bareSection    = regexp.MustCompile(`§\s*(\d+(?:\.\d+)*)`)
	selfAnchor     = regexp.MustCompile(`\]\(#([^)\s]+)\)`)
)

// parseDocPage reads the headings of a Markdown page, outside fenced code.
func parseDocPage(text string) *docPage {
	p := &docPage{}
	seen := map[string]int{}
	inFence := false
	lastReal := -1
	for line := range strings.SplitSeq(text, "\n") {
		if fenceLine.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		m := headingLine.FindStringSubmatch(line)
		if m == nil {
			if r := runInHeading.FindStringSubmatch(line); r != nil && lastReal >= 0 {
				p.headings = append(p.headings, docHeading{level: p.headings[lastReal].level + 1, text: normalizeName(strings.TrimRight(r[1], ".:")), runIn: true})
			} else if im := listItemLine.FindStringSubmatch(line); im != nil && lastReal >= 0 {
				i, _ := strconv.Atoi(im[1])
				p.headings[lastReal].items = append(p.headings[lastReal].items, i)
			}
			continue
		}
		lastReal = len(p.headings)
		h := docHeading{level: len(m[1])}
		raw := m[2]
		base := headingAnchor(raw)
		if n := seen[base]; n > 0 {
			h.anchor = fmt.Sprintf("%s-%d", base, n)
		} else {
			h.anchor = base
		}
		seen[base]++
		if nm := headingNumber.FindStringSubmatch(raw); nm != nil {
			h.number, raw = nm[1], nm[2]
		}
		h.text = normalizeName(raw)
		p.headings = append(p.headings, h)
	}
	for i := range p.headings {
		j := i + 1
		for j < len(p.headings) && p.headings[j].level > p.headings[i].level {
			j++
		}
		p.headings[i].end = j
	}
	return p
}

// headingAnchor is the fragment GitHub gives a heading.
func headingAnchor(raw string) string {
	raw = mdLink.ReplaceAllString(raw, "$1")
	raw = strings.ToLower(raw)
	raw = anchorDrop.ReplaceAllString(raw, "")
	return strings.ReplaceAll(raw, " ", "-")
}

// normalizeName folds a heading or a cited name for comparison.
func normalizeName(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("`", "", `\|`, "|", "*", "").Replace(s)
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRight(s, " .,")
}

// wordPrefix reports whether short is long, or a prefix of long that ends
// at a word boundary.
func wordPrefix(short, long string) bool {
	if short == "" || !strings.HasPrefix(long, short) {
		return false
	}
	if len(long) == len(short) {
		return true
	}
	r := rune(long[len(short)])
	last := rune(short[len(short)-1])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r)) || !(unicode.IsLetter(last) || unicode.IsDigit(last))
}

// numbered finds the heading numbered n among headings[from:to].
func (p *docPage) numbered(n string, from, to int) (int, bool) {
	for i := from; i < to; i++ {
		if p.headings[i].number == n {
			return i, true
		}
	}
	return 0, false
}

// section resolves §n: a heading numbered n, or item m of section n's
// top-level numbered list for n = "n.m".
func (p *docPage) section(n string) (int, bool) {
	if i, ok := p.numbered(n, 0, len(p.headings)); ok {
		return i, true
	}
	top, item, ok := strings.Cut(n, ".")
	if !ok || strings.Contains(item, ".") {
		return 0, false
	}
	i, ok := p.numbered(top, 0, len(p.headings))
	if !ok {
		return 0, false
	}
	want, _ := strconv.Atoi(item)
	for _, have := range p.headings[i].items {
		if have == want {
			return i, true
		}
	}
	return 0, false
}

// named finds a heading among headings[from:to] that name cites.
func (p *docPage) named(name string, quoted bool, from, to int) bool {
	name = normalizeName(name)
	for _, h := range p.headings[from:to] {
		if wordPrefix(name, h.text) || (!quoted && wordPrefix(h.text, name)) {
			return true
		}
	}
	return false
}

func (p *docPage) hasAnchor(a string) bool {
	for _, h := range p.headings {
		if !h.runIn && h.anchor == a {
			return true
		}
	}
	return false
}

// segment is a run of comment or prose text, its comment markers removed
// and its lines joined by spaces, so that a citation may wrap.
type segment struct {
	text   string
	starts []int // offset in text of each source line
	line   int   // line of text[0] in the file
	data   bool  // a Go string literal: a missing page without a section is data
	self   string
}

// lineAt is the file's line of text offset off.
func (s segment) lineAt(off int) int {
	n := 0
	for n+1 < len(s.starts) && s.starts[n+1] <= off {
		n++
	}
	return s.line + n
}

// joinLines makes a segment from source lines that start at line first.
func joinLines(lines []string, first int) segment {
	s := segment{line: first}
	var b strings.Builder
	for _, l := range lines {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "docs/") {
			b.WriteByte(' ')
		}
		s.starts = append(s.starts, b.Len())
		b.WriteString(strings.TrimSpace(l))
	}
	s.text = b.String()
	return s
}

// citationSegments extracts the text in which file cites the docs.
func citationSegments(file string, src []byte) []segment {
	name := path.Base(file)
	ext := path.Ext(name)
	text := string(src)
	switch {
	case ext == ".go":
		return goSegments(src)
	case ext == ".md":
		var lines []string
		inFence := false
		for l := range strings.SplitSeq(text, "\n") {
			if fenceLine.MatchString(l) {
				inFence = !inFence
				l = ""
			} else if inFence {
				l = ""
			}
			lines = append(lines, l)
		}
		s := joinLines(lines, 1)
		if strings.HasPrefix(file, "docs/") && !strings.Contains(file[len("docs/"):], "/") {
			s.self = name
		}
		return []segment{s}
	case ext == ".json":
		return []segment{joinLines(strings.Split(text, "\n"), 1)}
	case ext == ".txtar":
		var lines []string
		for l := range strings.SplitSeq(text, "\n") {
			if strings.HasPrefix(l, "-- ") && strings.HasSuffix(strings.TrimSpace(l), " --") {
				break
			}
			lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "#"))
		}
		return []segment{joinLines(lines, 1)}
	}
	var markers []string
	switch {
	case ext == ".vox", ext == ".mjs", ext == ".js":
		markers = []string{"//", "#"}
	case name == "Makefile", ext == ".yaml", ext == ".yml", ext == ".sh", ext == ".txt", name == ".gitignore":
		markers = []string{"#"}
	default:
		return nil
	}
	return commentLineSegments(text, markers, ext == ".vox" || ext == ".mjs" || ext == ".js")
}

// commentLineSegments joins runs of comment lines. wholeLine: only lines
// that are all comment count (a # or // inside code may be a string).
func commentLineSegments(text string, markers []string, wholeLine bool) []segment {
	var segs []segment
	var run []string
	first := 0
	flush := func() {
		if len(run) > 0 {
			segs = append(segs, joinLines(run, first))
			run = nil
		}
	}
	for i, l := range strings.Split(text, "\n") {
		comment, ok := "", false
		t := strings.TrimSpace(l)
		for _, m := range markers {
			if strings.HasPrefix(t, m) {
				comment, ok = strings.TrimLeft(t, m[:1]), true
				break
			}
			if !wholeLine {
				if j := strings.Index(l, " "+m); j >= 0 {
					comment, ok = strings.TrimLeft(l[j+1:], m[:1]), true
					break
				}
			}
		}
		if !ok {
			flush()
			continue
		}
		if len(run) == 0 {
			first = i + 1
		}
		run = append(run, comment)
	}
	flush()
	return segs
}

// goSegments: runs of // comments on consecutive lines, /* */ comments,
// and string literals.
func goSegments(src []byte) []segment {
	fset := token.NewFileSet()
	f := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, scanner.ScanComments)
	var segs []segment
	var run []string
	first, last := 0, 0
	flush := func() {
		if len(run) > 0 {
			segs = append(segs, joinLines(run, first))
			run = nil
		}
	}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		line := fset.Position(pos).Line
		switch {
		case tok == token.COMMENT && strings.HasPrefix(lit, "//"):
			if len(run) == 0 || line != last+1 {
				flush()
				first = line
			}
			run = append(run, strings.TrimPrefix(lit, "//"))
			last = line
		case tok == token.COMMENT:
			flush()
			body := strings.TrimSuffix(strings.TrimPrefix(lit, "/*"), "*/")
			var lines []string
			for l := range strings.SplitSeq(body, "\n") {
				lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "*"))
			}
			segs = append(segs, joinLines(lines, line))
		case tok == token.STRING:
			if v, err := strconv.Unquote(lit); err == nil && strings.Contains(v, ".md") {
				seg := joinLines(strings.Split(v, "\n"), line)
				seg.data = true
				segs = append(segs, seg)
			}
		}
	}
	flush()
	return segs
}

// checkCitations resolves every citation in segs of file against pages
// (keyed by file name in docs/) and returns the problems, one a line.
func checkCitations(file string, segs []segment, pages map[string]*docPage) []string {
	var bad []string
	report := func(s segment, off int, format string, args ...any) {
		bad = append(bad, fmt.Sprintf("%s:%d: %s", file, s.lineAt(off), fmt.Sprintf(format, args...)))
	}
	for _, s := range segs {
		var attached [][2]int // spans of § taken by a page reference
		for _, m := range pageRef.FindAllStringSubmatchIndex(s.text, -1) {
			start, end := m[0], m[1]
			if start > 0 {
				if c := s.text[start-1]; c == '/' || c == '.' || c == '-' || c == '_' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) {
					continue // a path elsewhere (skills/x/docs/a.md, ../a.md)
				}
			}
			pageName := s.text[m[4]:m[5]]
			page := pages[pageName]
			if m[2] < 0 && page == nil {
				continue // a bare name of a file outside docs/ (the spec's)
			}
			rest := end
			if strings.HasPrefix(s.text[rest:], ")") {
				rest++
			}
			var anchor string
			if m[6] >= 0 {
				anchor = strings.TrimPrefix(s.text[m[6]:m[7]], "#")
			}
			var numbers []string
			var names []string
			quoted := false
			if nm := sectionNumbers.FindStringSubmatchIndex(s.text[rest:]); nm != nil {
				attached = append(attached, [2]int{rest, rest + nm[1]})
				numbers = append(numbers, s.text[rest+nm[2]:rest+nm[3]])
				rest += nm[1]
				for {
					mm := moreNumbers.FindStringSubmatchIndex(s.text[rest:])
					if mm == nil {
						break
					}
					attached = append(attached, [2]int{rest, rest + mm[1]})
					numbers = append(numbers, s.text[rest+mm[2]:rest+mm[3]])
					rest += mm[1]
				}
			}
			if q := quotedName.FindStringSubmatch(s.text[rest:]); q != nil {
				names, quoted = append(names, q[1]), true
			} else if q := plainName.FindStringSubmatch(s.text[rest:]); q != nil {
				names = append(names, trimSentence(q[1]))
			}
			cites := anchor != "" || len(numbers) > 0 || len(names) > 0
			if page == nil {
				if cites || !s.data {
					report(s, start, "%s cites docs/%s, which does not exist", s.text[start:end], pageName)
				}
				continue
			}
			if anchor != "" && !page.hasAnchor(anchor) {
				report(s, start, "docs/%s has no heading with the anchor #%s", pageName, anchor)
			}
			from, to := 0, len(page.headings)
			for k, n := range numbers {
				i, ok := page.section(n)
				if !ok {
					report(s, start, "docs/%s has no section §%s", pageName, n)
					from = -1
					continue
				}
				if k == len(numbers)-1 && from >= 0 {
					from, to = i+1, page.headings[i].end
				}
			}
			if from < 0 {
				continue
			}
			for _, n := range names {
				if !page.named(n, quoted, from, to) {
					where := ""
					if len(numbers) > 0 {
						where = " in §" + numbers[len(numbers)-1]
					}
					report(s, start, "docs/%s has no heading%s that %q names", pageName, where, n)
				}
			}
		}
		if s.self == "" {
			continue
		}
		page := pages[s.self]
		for _, m := range selfAnchor.FindAllStringSubmatchIndex(s.text, -1) {
			if a := s.text[m[2]:m[3]]; !page.hasAnchor(a) {
				report(s, m[0], "docs/%s has no heading with the anchor #%s", s.self, a)
			}
		}
		for _, m := range bareSection.FindAllStringSubmatchIndex(s.text, -1) {
			if inSpans(m[0], attached) || citesElsewhere(s.text[:m[0]]) {
				continue
			}
			if _, ok := page.section(s.text[m[2]:m[3]]); !ok {
				report(s, m[0], "docs/%s has no section §%s (a bare § cites its own page)", s.self, s.text[m[2]:m[3]])
			}
		}
	}
	return bad
}

// trimSentence ends an unquoted name at the end of its sentence.
func trimSentence(name string) string {
	if i := strings.Index(name, ". "); i >= 0 {
		name = name[:i]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(name), "."))
}

func inSpans(off int, spans [][2]int) bool {
	for _, sp := range spans {
		if off >= sp[0] && off < sp[1] {
			return true
		}
	}
	return false
}

var elsewhere = regexp.MustCompile(`(\d|\.md` + "`" + `?\)?|[§–-])\s*(,|and|–|-)?\s*$`)

// citesElsewhere: a § right after a number, a file name, or another §
// of a list belongs to what precedes it, not to the page it is on.
func citesElsewhere(before string) bool {
	if len(before) > 40 {
		before = before[len(before)-40:]
	}
	return elsewhere.MatchString(before)
}

// loadDocPages reads every page of docs/.
func loadDocPages(t *testing.T, root string) map[string]*docPage {
	t.Helper()
	entries, err := os.ReadDir(path.Join(root, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]*docPage{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			b, err := os.ReadFile(path.Join(root, "docs", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			pages[e.Name()] = parseDocPage(string(b))
		}
	}
	return pages
}

// TestDocCitations resolves every citation of docs/ in the repository.
func TestDocCitations(t *testing.T) {
	pages := loadDocPages(t, ".")
	checked := 0
	for _, f := range trackedFiles(t) {
		if f == "docs_cite_test.go" || strings.HasPrefix(f, "e2e/node_modules/") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		segs := citationSegments(f, src)
		for _, s := range segs {
			checked += len(pageRef.FindAllStringIndex(s.text, -1))
		}
		for _, p := range checkCitations(f, segs, pages) {
			t.Error(p)
		}
	}
	if checked < 100 {
		t.Errorf("only %d references to docs found: is the scan looking in the right places?", checked)
	}
}

// TestDocCitationsRefuseBadOnes holds the checker to failing: against a
// page of known headings, every kind of citation resolves when right and
// is reported when it names what the page lacks.
func TestDocCitationsRefuseBadOnes(t *testing.T) {
	pages := map[string]*docPage{
		"fed.md": parseDocPage(`# Federation

## 1. The loader

1. Expand the globs.
2. Compile.

## 8. Transports

### Fleet mode

**The surface cache** (internal/server). After the first scan...

## Limits and such

` + "```" + `
## 9. Not a heading: inside code
` + "```" + `

See §1 and §8, [the loader](#1-the-loader).
`),
	}
	good := `package p

// ok (docs/fed.md §1), (docs/fed.md §1.2), (docs/fed.md §8, "Fleet mode"),
// (docs/fed.md §8 "Fleet"), (docs/fed.md §1, §8), (docs/fed.md §1–§8),
// (docs/fed.md, Limits), (docs/fed.md, Limits and such, the table),
// (docs/fed.md, "Limits and"), (docs/
// fed.md, "Transports"), [fed.md](docs/fed.md#8-transports),
// (docs/fed.md §8, "The surface cache"), (fed.md §8, Fleet mode),
// docs/fed.md says so; RFC 4648 §4 and the spec's 40-skills.md §5 are not ours.
var x = "docs/guide.md"
`
	if bad := checkCitations("good.go", citationSegments("good.go", []byte(good)), pages); len(bad) > 0 {
		t.Errorf("good citations refused:\n%s", strings.Join(bad, "\n"))
	}
	cases := []struct{ file, src, want string }{
		{"a.go", "// (docs/fed.md §9)\n", "a.go:1: docs/fed.md has no section §9"},
		{"a.go", "package p\n\n// Wrapped (docs/fed.md\n// §1.3).\n", "a.go:3: docs/fed.md has no section §1.3"},
		{"a.go", "// (docs/fed.md §1, §7)\n", "has no section §7"},
		{"a.go", "// (docs/fed.md §1, \"Fleet mode\")\n", `docs/fed.md has no heading in §1 that "Fleet mode" names`},
		{"a.go", "// (docs/fed.md, \"Fleet modes\")\n", `has no heading that "Fleet modes" names`},
		{"a.go", "// (docs/fed.md, \"Limits and such, more\")\n", `has no heading that "Limits and such, more" names`},
		{"a.go", "// (docs/fed.md, Lim)\n", `has no heading that "Lim" names`},
		{"a.go", "// (docs/fed.md, Prompts)\n", `has no heading that "Prompts" names`},
		{"a.go", "// see [x](docs/fed.md#fleet)\n", "has no heading with the anchor #fleet"},
		{"a.go", "// (docs/gone.md)\n", "cites docs/gone.md, which does not exist"},
		{"a.go", "var s = \"see docs/gone.md §2\"\n", "cites docs/gone.md, which does not exist"},
		{"a.go", "var s = \"(docs/fed.md, The shim)\"\n", `has no heading that "The shim" names`},
		{"Makefile", "x: ## run it (docs/fed.md §4)\n", "Makefile:1: docs/fed.md has no section §4"},
		{"t.vox", "fn f() to int { 1 }\n# (docs/fed.md §4)\n", "t.vox:2: docs/fed.md has no section §4"},
		{"c.yaml", "a: 1 # (docs/fed.md §4)\n", "c.yaml:1: docs/fed.md has no section §4"},
		{"s.txtar", "# attack: x (docs/fed.md §4)\n-- a.vox --\n", "s.txtar:1: docs/fed.md has no section §4"},
		{"docs/other.md", "# Other\n\nAs [fed.md](fed.md) §3 says.\n", "docs/other.md:3: docs/fed.md has no section §3"},
		{"docs/fed.md", "# Federation\n\n## 1. The loader\n\nSee §2.\n", "docs/fed.md:5: docs/fed.md has no section §2 (a bare § cites its own page)"},
		{"docs/fed.md", "# Federation\n\nSee [below](#the-end).\n", "docs/fed.md:3: docs/fed.md has no heading with the anchor #the-end"},
	}
	for _, c := range cases {
		if c.file == "docs/other.md" {
			pages["other.md"] = parseDocPage(c.src)
		}
		own := pages
		if c.file == "docs/fed.md" {
			own = map[string]*docPage{"fed.md": parseDocPage(c.src)}
		}
		bad := checkCitations(c.file, citationSegments(c.file, []byte(c.src)), own)
		if len(bad) != 1 || !strings.Contains(bad[0], c.want) {
			t.Errorf("%s %q: got %q, want one problem containing %q", c.file, c.src, bad, c.want)
		}
	}
}
