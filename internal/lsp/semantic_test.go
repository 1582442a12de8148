package lsp

import (
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// decodeTokens turns the relative encoding back into "line:col text
// type[+modifiers]", one a token.
func decodeTokens(t *testing.T, text string, data []protocol.UInteger) []string {
	t.Helper()
	if len(data)%5 != 0 {
		t.Fatalf("%d integers: not a multiple of 5", len(data))
	}
	lines := strings.Split(text, "\n")
	var out []string
	line, col := 0, 0
	for i := 0; i < len(data); i += 5 {
		if data[i] > 0 {
			line, col = line+int(data[i]), int(data[i+1])
		} else {
			col += int(data[i+1])
		}
		s := fmt.Sprintf("%d:%d %s %s", line, col, lines[line][col:col+int(data[i+2])], semanticTokenTypes[data[i+3]])
		for b, m := range semanticTokenModifiers {
			if data[i+4]&(1<<b) != 0 {
				s += "+" + m
			}
		}
		out = append(out, s)
	}
	return out
}

func TestSemanticTokens(t *testing.T) {
	c := startClient(t)
	// ASCII only, so that UTF-16 columns are byte columns.
	text := `# tools
type Point { x: int }
let LIMIT = 3
@tool "t"
fn t(n: int) uses fs to str {
    let mut total = n + LIMIT
    let p = Point { x: 1 }
    total += p.x
    let r = fs.read("a.txt")
    Some(total).is_some()
    str(total)
}
`
	c.open(uri, text)
	var st protocol.SemanticTokens
	c.call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &st)
	got := decodeTokens(t, text, st.Data)
	want := []string{
		"0:0 # tools comment",
		"1:0 type keyword", "1:5 Point type+declaration", "1:13 x property+declaration", "1:16 int type+defaultLibrary",
		"2:0 let keyword", "2:4 LIMIT variable+declaration+readonly", "2:10 = operator", "2:12 3 number",
		"3:0 @tool decorator", `3:6 "t" string`,
		"4:0 fn keyword", "4:3 t function+declaration", "4:5 n parameter+declaration+readonly", "4:8 int type+defaultLibrary",
		"4:13 uses keyword", "4:21 to keyword", "4:24 str type+defaultLibrary",
		"5:4 let keyword", "5:8 mut keyword", "5:12 total variable+declaration", "5:18 = operator", "5:20 n parameter+readonly",
		"5:22 + operator", "5:24 LIMIT variable+readonly",
		"6:4 let keyword", "6:8 p variable+declaration+readonly", "6:10 = operator", "6:12 Point type", "6:20 x property", "6:23 1 number",
		"7:4 total variable", "7:10 += operator", "7:13 p variable+readonly", "7:15 x property",
		"8:4 let keyword", "8:8 r variable+declaration+readonly", "8:10 = operator", "8:12 fs namespace+defaultLibrary",
		"8:15 read function+defaultLibrary", `8:20 "a.txt" string`,
		"9:4 Some enumMember+defaultLibrary", "9:9 total variable", "9:16 is_some function+defaultLibrary",
		"10:4 str function+defaultLibrary", "10:8 total variable",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("semantic tokens:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A token over several lines is one token a line, and columns count
// UTF-16 units.
func TestSemanticTokensMultilineAndUTF16(t *testing.T) {
	c := startClient(t)
	text := "@tool \"t\"\nfn t() to str {\n    let s = r\"é𝄞\nb\"\n    s\n}\n"
	c.open(uri, text)
	var st protocol.SemanticTokens
	c.call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &st)
	var strs [][]protocol.UInteger
	for i := 0; i+5 <= len(st.Data); i += 5 {
		if semanticTokenTypes[st.Data[i+3]] == "string" {
			strs = append(strs, st.Data[i:i+5])
		}
	}
	// "t", then r"é𝄞 (5 units: r, ", é, and 𝄞's two) and b" on the next line.
	if len(strs) != 3 || strs[1][2] != 5 || strs[2][0] != 1 || strs[2][1] != 0 || strs[2][2] != 2 {
		t.Errorf("string tokens %v in %v", strs, st.Data)
	}
}

// A document near the size limit of one document, of one long line or
// of many short ones, is answered in full: the positions are counted
// from one token to the next, never from the start of a line.
func TestSemanticTokensLargeDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("1 MiB documents: not in -short")
	}
	n := MaxDocumentBytes/4 - 100
	for name, tc := range map[string]struct {
		body   string
		tokens int
	}{
		// 1 + 1 + ... on one line: n numbers and n operators.
		"one line": {"    " + strings.Repeat("1 + ", n) + "x\n", 2 * n},
		// x on a line, n/2 times: a name each.
		"many lines": {strings.Repeat("    x\n", n*4/6), n * 4 / 6},
	} {
		c := startClient(t)
		text := "@tool \"t\"\nfn t(x: int) to int {\n" + tc.body + "    x\n}\n"
		c.open(uri, text)
		var st protocol.SemanticTokens
		c.call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &st)
		// @tool "t" fn t x int to int, the body's tokens, x.
		if want := 5 * (8 + tc.tokens + 1); len(st.Data) != want {
			t.Errorf("%s: %d integers, want %d", name, len(st.Data), want)
		}
	}
}
