package contractdoc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// readRows reads src with ParseYAMLRows and returns the top level with
// the rows put back, every row's position, and whether the rows were
// streamed (not read whole).
func readRows(t *testing.T, src string) (v schemajson.Value, pos []Pos, errs []PosError, streamed bool) {
	t.Helper()
	var rows []schemajson.Value
	var rowErrs []PosError
	starts := 0
	d, topErrs := ParseYAMLRows([]byte(src), "ops", "x", RowsLimits, func() func(Row) {
		starts++
		rows, pos, rowErrs = nil, nil, nil
		return func(r Row) {
			if r.Index != len(rows) {
				t.Fatalf("row %d visited as %d", len(rows), r.Index)
			}
			rows = append(rows, r.Doc.Root)
			pos = append(pos, r.Doc.Pos("/ops/"+strconv.Itoa(r.Index)+"/name"))
			rowErrs = append(rowErrs, r.Errs...)
		}
	})
	errs = append(rowErrs, topErrs...)
	if d == nil {
		return schemajson.Value{}, nil, errs, false
	}
	v = d.Root
	for i, m := range v.Members {
		if m.Key == "ops" && m.Value.Kind == schemajson.Array && len(m.Value.Items) == 0 {
			v.Members[i].Value = schemajson.ArrayValue(rows...)
		}
	}
	s := &rowStream{src: []byte(src), listKey: "ops", lim: RowsLimits, names: map[string]anchorRecord{}}
	_, _, p := s.run(func(Row) {})
	if p != nil {
		t.Logf("read whole: %v", p)
	}
	return v, pos, errs, p == nil && starts == 1
}

// TestParseYAMLRowsAgreesWithParseYAML: read row by row, a document
// gives the values, positions and errors of reading it whole, and the
// layouts the rows are streamed from are streamed.
func TestParseYAMLRowsAgreesWithParseYAML(t *testing.T) {
	tests := []struct {
		name, src string
		streamed  bool
	}{
		{"indented rows", "a: 1\nops:\n  - name: x\n    n: 1\n  # comment\n\n  - name: y\n    list: [1, 2,\n      3]\nb: {c: d}\n", true},
		{"rows at column 0", "ops:\n- name: x\n- name: y\n  text: |\n    block\n    - not a row\n- {name: z}\nb: 1\n", true},
		{"anchor in the top level, alias in a row", "defs: &s {type: object, n: [1, 2]}\nops:\n  - name: x\n    schema: *s\n  - name: y\n    schema: *s\n", true},
		{"alias of an earlier row", "ops:\n  - &first\n    name: x\n    deep: &d {a: [1, {b: c}]}\n  - name: y\n    same: *d\n  - *first\nafter: *d\n", true},
		{"anchor redefined", "ops:\n  - name: &n x\n  - name: *n\n  - name: &n y\n    again: *n\n", true},
		{"star in text is no alias", "defs: &s 1\nops:\n  - name: 'a *s b'\n    n: \"*s\"\n", true},
		{"empty row", "ops:\n  -\n  - name: x\n", true},
		{"document end", "ops:\n  - name: x\n...\nignored: [\n", true},
		{"quoted string across rows", "ops:\n  - name: 'x\n  - y'\n", false},
		{"flow list", "ops: [{name: x}, {name: y}]\n", false},
		{"rows under a later key", "a:\n  ops:\n  - name: x\nops:\n  - name: y\n", true},
		{"indented line after the rows", "ops:\n  - name: x\n b: 1\n", false},
		{"duplicate key in a row", "ops:\n  - name: x\n    name: y\n", true},
		{"syntax error in a row", "ops:\n  - name: x\n  - name: [y\n  - name: z\n", false},
		{"unknown alias", "ops:\n  - name: *nothing\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, wantErrs := ParseYAML([]byte(tt.src), "x")
			got, pos, errs, streamed := readRows(t, tt.src)
			if fmt.Sprint(errs) != fmt.Sprint(wantErrs) {
				t.Errorf("errors:\n got %v\nwant %v", errs, wantErrs)
			}
			if streamed != tt.streamed {
				t.Errorf("streamed = %v, want %v", streamed, tt.streamed)
			}
			if whole == nil {
				return
			}
			if g, w := string(schemajson.Compact(got)), string(schemajson.Compact(whole.Root)); g != w {
				t.Errorf("value:\n got %s\nwant %s", g, w)
			}
			for i, p := range pos {
				if w := whole.Pos("/ops/" + strconv.Itoa(i) + "/name"); p != w && !strings.Contains(tt.name, "alias of an earlier row") {
					t.Errorf("row %d: name at %v, want %v", i, p, w)
				}
			}
		})
	}
}

// TestParseYAMLRowsMeasuresTheWholeDocument: the alias and nesting budgets
// hold for the document, not per row: aliases of anchors in earlier rows
// are charged what they repeat, and the row that passes the budget is
// refused at the alias, as reading the document whole refuses it.
func TestParseYAMLRowsMeasuresTheWholeDocument(t *testing.T) {
	var laughs strings.Builder
	laughs.WriteString("ops:\n  - name: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for i := 1; i < 9; i++ {
		name := fmt.Sprintf("l%d", i)
		fmt.Fprintf(&laughs, "  - name: &%s [%s]\n", name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = name
	}
	deep := "ops:\n  - name: &d0 " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n  - name: [*d0]\n  - name: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[*d0]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"
	for _, src := range []string{laughs.String(), deep} {
		_, want := ParseYAML([]byte(src), "x")
		if len(want) != 1 || !strings.Contains(want[0].Message, "at most") {
			t.Fatalf("reading whole: %v", want)
		}
		s := &rowStream{src: []byte(src), listKey: "ops", lim: RowsLimits, names: map[string]anchorRecord{}}
		rows := 0
		_, _, p := s.run(func(Row) { rows++ })
		if p == nil || !p.OverLimit || p.PosError != want[0] {
			t.Errorf("row by row: %v after %d rows, want %v", p, rows, want[0])
		}
	}
}

// TestParseYAMLRowsBoundsEachRow: beyond the size a document may be read
// whole at, a row over MaxRowBytes is refused at its dash before it is
// parsed, so one huge row costs no more than its bytes.
func TestParseYAMLRowsBoundsEachRow(t *testing.T) {
	var b strings.Builder
	b.WriteString("ops:\n")
	for b.Len() <= ContractLimits.MaxBytes {
		b.WriteString("  - name: a long row " + strings.Repeat("x", 64<<10) + "\n")
	}
	b.WriteString("  - name: huge\n    tags:\n" + strings.Repeat("      - tag\n", MaxRowBytes/12+1))
	line := strings.Count(b.String(), "\n") - MaxRowBytes/12 - 2
	_, errs := ParseYAMLRows([]byte(b.String()), "ops", "x", RowsLimits, func() func(Row) { return func(Row) {} })
	want := fmt.Sprintf("{{%d 3} this row has more than 1 MiB: a row may have at most 1 MiB; shorten it}", line)
	if len(errs) != 1 || fmt.Sprint(errs[0]) != want {
		t.Errorf("errs = %v\nwant %s", errs, want)
	}
}

// TestParseYAMLRowsFromReadsInPieces: a document over
// ContractLimits.MaxBytes read from a reader, piece by piece, gives what
// reading it from memory gives — rows, positions, aliases across rows and
// the top level after the rows — and a large document not in the rows'
// layout is refused with what the layout must be.
func TestParseYAMLRowsFromReadsInPieces(t *testing.T) {
	var b strings.Builder
	b.WriteString("defs: &s {type: object}\nops:\n")
	for i := 0; b.Len() <= ContractLimits.MaxBytes; i++ {
		fmt.Fprintf(&b, "  - name: &n%d row %d\n    text: %s\n    schema: *s\n    # a comment\n", i, i, strings.Repeat("x", 2000))
		if i > 0 {
			fmt.Fprintf(&b, "    prev: *n%d\n", i-1)
		}
	}
	b.WriteString("tail: [*s, *n3]\n")
	src := b.String()
	read := func(parse func(start func() func(Row)) (*Doc, []PosError)) string {
		var out strings.Builder
		d, errs := parse(func() func(Row) {
			out.Reset()
			return func(r Row) {
				fmt.Fprintf(&out, "%d %v %s\n", r.Index, r.Doc.Pos(fmt.Sprintf("/ops/%d/prev", r.Index)), schemajson.Compact(r.Doc.Root))
			}
		})
		if d == nil || len(errs) > 0 {
			t.Fatalf("errs = %v", errs)
		}
		fmt.Fprintf(&out, "%s %v", schemajson.Compact(d.Root), d.Pos("/tail/1"))
		return out.String()
	}
	want := read(func(start func() func(Row)) (*Doc, []PosError) {
		return ParseYAMLRows([]byte(src), "ops", "x", RowsLimits, start)
	})
	got := read(func(start func() func(Row)) (*Doc, []PosError) {
		return ParseYAMLRowsFrom(iotest.HalfReader(strings.NewReader(src)), int64(len(src)), "ops", "x", RowsLimits, start)
	})
	if got != want {
		t.Errorf("read in pieces differs from read in memory")
	}

	flow := "ops: [" + strings.Repeat("{name: x}, ", ContractLimits.MaxBytes/10) + "]\n"
	_, errs := ParseYAMLRowsFrom(strings.NewReader(flow), int64(len(flow)), "ops", "x", RowsLimits, func() func(Row) { return func(Row) {} })
	if len(errs) != 1 || !strings.Contains(errs[0].Message, `no line ops:: a file over 8 MiB is read row by row, and must be a block mapping`) {
		t.Errorf("errs = %v", errs)
	}
}
