package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

func TestCapabilitiesAdvertised(t *testing.T) {
	c := startClient(t)
	c.id++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	// A second initialize is answered by glsp's handler as the first was;
	// what matters here is the capabilities' JSON.
	var m map[string]json.RawMessage
	for {
		m = c.next()
		if string(m["id"]) == jsonNumber(c.id) {
			break
		}
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(m["result"], &res); err != nil {
		t.Fatalf("initialize: %s: %v", m["result"], err)
	}
	for _, k := range []string{"hoverProvider", "definitionProvider", "completionProvider", "signatureHelpProvider", "codeActionProvider",
		"documentFormattingProvider", "documentRangeFormattingProvider", "documentSymbolProvider", "workspaceSymbolProvider",
		"referencesProvider", "renameProvider", "foldingRangeProvider", "semanticTokensProvider", "inlayHintProvider"} {
		if v, ok := res.Capabilities[k]; !ok || string(v) == "false" || string(v) == "null" {
			t.Errorf("capability %s: %s", k, v)
		}
	}
	if got := string(res.Capabilities["renameProvider"]); got != `{"prepareProvider":true}` {
		t.Errorf("renameProvider %s", got)
	}
	var st protocol.SemanticTokensOptions
	if err := json.Unmarshal(res.Capabilities["semanticTokensProvider"], &st); err != nil || st.Full != true ||
		strings.Join(st.Legend.TokenTypes, " ") != "namespace type function parameter variable property keyword string number comment decorator operator enumMember" ||
		strings.Join(st.Legend.TokenModifiers, " ") != "declaration readonly defaultLibrary" {
		t.Errorf("semanticTokensProvider %s (%v)", res.Capabilities["semanticTokensProvider"], err)
	}
}

// docSymbols decodes a documentSymbol answer.
type docSymbol struct {
	Name           string         `json:"name"`
	Detail         string         `json:"detail"`
	Kind           int            `json:"kind"`
	Range          protocol.Range `json:"range"`
	SelectionRange protocol.Range `json:"selectionRange"`
	Children       []docSymbol    `json:"children"`
}

func TestDocumentSymbol(t *testing.T) {
	c := startClient(t)
	text := readTestdata(t, "tools.vox")
	c.open(uri, text)
	var syms []docSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	var got []string
	for _, s := range syms {
		line := fmt.Sprintf("%s %d %q %d:%d-%d:%d sel %d:%d", s.Name, s.Kind, s.Detail, s.Range.Start.Line, s.Range.Start.Character,
			s.Range.End.Line, s.Range.End.Character, s.SelectionRange.Start.Line, s.SelectionRange.Start.Character)
		for _, ch := range s.Children {
			line += fmt.Sprintf(" [%s %d %q %d:%d]", ch.Name, ch.Kind, ch.Detail, ch.Range.Start.Line, ch.Range.Start.Character)
		}
		got = append(got, line)
	}
	want := []string{
		`Status 10 "type" 2:0-4:22 sel 2:5 [Loading 22 "Loading" 3:6] [Ready 22 "Ready(data: str)" 4:6]`,
		`Point 23 "record" 6:0-6:29 sel 6:5 [x 8 "int" 6:13] [y 8 "int" 6:21]`,
		`GREETING 14 "str" 8:0-8:22 sel 8:4`,
		`greet 12 "@tool fn greet(name: str, times: int = 1) to str" 10:0-24:1 sel 11:3`,
		`helper 12 "fn helper(count: int) to Status" 26:0-32:1 sel 26:3`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("document symbols:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWorkspaceSymbol(t *testing.T) {
	c := startClient(t)
	c.open(uri, readTestdata(t, "tools.vox"))
	other := "file:///work/tools/other.vox"
	c.open(other, "fn greeting_card() to str {\n    \"hi\"\n}\n")
	var syms []protocol.SymbolInformation
	c.call("workspace/symbol", map[string]any{"query": "GREET"}, &syms)
	var got []string
	for _, s := range syms {
		got = append(got, fmt.Sprintf("%s %d %s %d:%d", s.Name, s.Kind, s.Location.URI[strings.LastIndex(s.Location.URI, "/")+1:],
			s.Location.Range.Start.Line, s.Location.Range.Start.Character))
	}
	want := "greeting_card 12 other.vox 0:3\nGREETING 14 tools.vox 8:4\ngreet 12 tools.vox 11:3"
	if strings.Join(got, "\n") != want {
		t.Errorf("workspace symbols for GREET:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	c.call("workspace/symbol", map[string]any{"query": "x"}, &syms)
	if len(syms) != 1 || syms[0].Name != "x" || syms[0].ContainerName == nil || *syms[0].ContainerName != "Point" || syms[0].Kind != protocol.SymbolKindField {
		t.Errorf("a field: %+v", syms)
	}
}

// An empty query matches every symbol of every open document; the
// answer stops at MaxWorkspaceSymbols.
func TestWorkspaceSymbolCapped(t *testing.T) {
	c := startClient(t)
	var b strings.Builder
	for i := range MaxWorkspaceSymbols + 500 {
		fmt.Fprintf(&b, "let C%d = %d\n", i, i)
	}
	c.open(uri, b.String())
	var syms []protocol.SymbolInformation
	c.call("workspace/symbol", map[string]any{"query": ""}, &syms)
	if len(syms) != MaxWorkspaceSymbols || syms[0].Name != "C0" || syms[MaxWorkspaceSymbols-1].Name != fmt.Sprintf("C%d", MaxWorkspaceSymbols-1) {
		t.Errorf("%d symbols, first %+v", len(syms), syms[:min(1, len(syms))])
	}
}
