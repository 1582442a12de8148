package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// spots writes locations as line:col, sorted.
func spots(locs []protocol.Location) string {
	var out []string
	for _, l := range locs {
		out = append(out, fmt.Sprintf("%d:%d-%d", l.Range.Start.Line, l.Range.Start.Character, l.Range.End.Character))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// where is the line:col-end of every occurrence of needle in text (the
// k-th byte of it starting the name), sorted as spots sorts.
func where(text, needle string, k, n int) string {
	var out []string
	for off := 0; ; {
		i := strings.Index(text[off:], needle)
		if i < 0 {
			break
		}
		at := off + i + k
		line := strings.Count(text[:at], "\n")
		col := at - (strings.LastIndex(text[:at], "\n") + 1)
		out = append(out, fmt.Sprintf("%d:%d-%d", line, col, col+n))
		off += i + 1
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func TestReferences(t *testing.T) {
	c := startClient(t)
	text := readTestdata(t, "tools.vox")
	c.open(uri, text)
	for _, tc := range []struct {
		needle string
		k      int
		decl   bool
		want   string
	}{
		// A local, from a use, with and without its declaration.
		{"greeting.to_upper", 1, true, where(text, "greeting", 0, 8)},
		{"greeting.to_upper", 1, false, strings.TrimPrefix(where(text, "greeting", 0, 8), "12:8-16 ")},
		// A parameter used in a closure.
		{"n + times", 4, true, where(text, "times", 0, 5)},
		// A constant, from its declaration.
		{"GREETING =", 0, true, where(text, "GREETING", 0, 8)},
		// A type, a constructor, a record field (declaration, literal, p.x).
		{"Status =", 0, true, where(text, "Status", 0, 6)},
		{"Ready(\"", 0, true, where(text, "Ready", 0, 5)},
		{"x: int", 0, true, "14:20-21 23:35-36 6:13-14"},
		// A function.
		{"fn helper", 3, true, "26:3-9"},
	} {
		var locs []protocol.Location
		c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": pos(t, text, tc.needle, tc.k), "context": map[string]any{"includeDeclaration": tc.decl}}, &locs)
		for _, l := range locs {
			if l.URI != uri {
				t.Errorf("references at %q: a location in %s", tc.needle, l.URI)
			}
		}
		if got := spots(locs); got != tc.want {
			t.Errorf("references at %q+%d (declaration %v):\n got %s\nwant %s", tc.needle, tc.k, tc.decl, got, tc.want)
		}
	}
	// A library name has no references in the file.
	var locs []protocol.Location
	c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": pos(t, text, "print(", 1), "context": map[string]any{"includeDeclaration": true}}, &locs)
	if len(locs) != 0 {
		t.Errorf("references of print: %+v", locs)
	}
}

// renameEdits asks for a rename and returns its edits, or the error.
func renameEdits(t *testing.T, c *client, text, needle string, k int, newName string) ([]protocol.TextEdit, string) {
	t.Helper()
	m := c.rawCall("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": pos(t, text, needle, k), "newName": newName})
	if e, ok := m["error"]; ok {
		var re responseError
		if err := json.Unmarshal(e, &re); err != nil {
			t.Fatal(err)
		}
		return nil, re.Message
	}
	var we protocol.WorkspaceEdit
	if err := json.Unmarshal(m["result"], &we); err != nil {
		t.Fatal(err)
	}
	return we.Changes[uri], ""
}

func TestRename(t *testing.T) {
	c := startClient(t)
	text := readTestdata(t, "tools.vox")
	c.open(uri, text)
	for _, tc := range []struct {
		needle, newName string
		k               int
		old             string
	}{
		{"greeting.to_upper", "message", 0, "greeting"},
		{"GREETING +", "SALUTE", 0, "GREETING"},
		{"Status =", "State", 0, "Status"},
		{"x: int", "across", 0, ""},
	} {
		edits, errText := renameEdits(t, c, text, tc.needle, tc.k, tc.newName)
		if errText != "" {
			t.Errorf("rename at %q: %s", tc.needle, errText)
			continue
		}
		got := applyEdits(t, text, edits) // the edits are in order of position
		want := text
		if tc.old != "" {
			want = strings.ReplaceAll(text, tc.old, tc.newName)
		} else {
			want = strings.Replace(strings.Replace(strings.Replace(text, "x: int", "across: int", 1), "x: 1", "across: 1", 1), "p.x", "p.across", 1)
		}
		if got != want {
			t.Errorf("rename %q to %s:\n%s", tc.needle, tc.newName, got)
		}
		// The renamed file has the diagnostics it had (none).
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
			"contentChanges": []any{map[string]any{"text": got}}})
		if d := c.diagnostics(uri); len(d.Diagnostics) != 0 {
			t.Errorf("after renaming %q: %+v", tc.needle, d.Diagnostics)
		}
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3},
			"contentChanges": []any{map[string]any{"text": text}}})
		c.diagnostics(uri)
	}
	for _, tc := range []struct {
		needle  string
		k       int
		newName string
		want    string
	}{
		{"greeting.to_upper", 0, "9lives", `"9lives" is not a Vox name: a name is a letter or _ followed by letters, digits and _`},
		{"greeting.to_upper", 0, "match", "match is a keyword of Vox and cannot name anything"},
		{"greeting.to_upper", 0, "shout", "cannot rename greeting to shout: shout is already a local of the same function (line 14); choose another name"},
		{"greeting.to_upper", 0, "helper", "cannot rename greeting to helper: helper is already a function (line 27); choose another name"},
		{"greeting.to_upper", 0, "print", "cannot rename greeting to print: print is already a builtin of the library; choose another name"},
		{"fn helper", 3, "first", "cannot rename helper to first: first is already a local, which would hide it (line 17); choose another name"},
		{"Status =", 0, "Point", "cannot rename Status to Point: Point is already a record type (line 7); choose another name"},
		{"Status =", 0, "int", "cannot rename Status to int: int is already a predeclared type; choose another name"},
		{"x: int", 0, "y", "cannot rename x to y: y is already a field of Point (line 7); choose another name"},
		{"print(part", 0, "show", "print is a builtin of the library: only the names this file declares can be renamed"},
		{"to_upper", 0, "upper", "to_upper is a method of the library: only the names this file declares can be renamed"},
		{"fs.read", 0, "files", "fs is a namespace of the library: only the names this file declares can be renamed"},
		{"@tool", 1, "t", "@tool is a decorator: only the names this file declares can be renamed"},
		{"for part", 1, "four", "for is a keyword of Vox: it cannot be renamed"},
	} {
		_, errText := renameEdits(t, c, text, tc.needle, tc.k, tc.newName)
		if errText != tc.want {
			t.Errorf("rename at %q to %s:\n got %q\nwant %q", tc.needle, tc.newName, errText, tc.want)
		}
	}
}

func TestPrepareRename(t *testing.T) {
	c := startClient(t)
	text := readTestdata(t, "tools.vox")
	c.open(uri, text)
	var r protocol.RangeWithPlaceholder
	c.call("textDocument/prepareRename", at(t, uri, text, "shout]", 2), &r)
	if r.Placeholder != "shout" || r.Range.Start != (protocol.Position{Line: 15, Character: 27}) || r.Range.End != (protocol.Position{Line: 15, Character: 32}) {
		t.Errorf("prepareRename on shout: %+v", r)
	}
	m := c.rawCall("textDocument/prepareRename", at(t, uri, text, "str(p", 1))
	if !strings.Contains(string(m["error"]), "str is a builtin of the library: only the names this file declares can be renamed") {
		t.Errorf("prepareRename on a builtin: %s", m["error"])
	}
	m = c.rawCall("textDocument/prepareRename", at(t, uri, text, "let shout", 1))
	if !strings.Contains(string(m["error"]), "let is a keyword of Vox: it cannot be renamed") {
		t.Errorf("prepareRename on a keyword: %s", m["error"])
	}
}

// A local used in a template and captured by a closure is renamed in
// both; a constructor in its patterns.
func TestRenameInTemplatesClosuresAndPatterns(t *testing.T) {
	c := startClient(t)
	text := "type Shape =\n    | Dot\n    | Circle(r: int)\n\n@tool \"t\"\nfn t(name: str) to str {\n    let f = fn () { \"hi {name}\" }\n" +
		"    match Circle(2) {\n        Circle(r) => \"{name} {r}\" + f(),\n        Dot => name,\n    }\n}\n"
	if d := c.open(uri, text); len(d.Diagnostics) != 0 {
		t.Fatalf("diagnostics %+v", d.Diagnostics)
	}
	for _, tc := range []struct{ needle, old, newName string }{
		{"name: str", "name", "who"},
		{"Circle(r: int)", "Circle", "Ring"},
	} {
		edits, errText := renameEdits(t, c, text, tc.needle, 0, tc.newName)
		if errText != "" {
			t.Fatalf("rename %s: %s", tc.old, errText)
		}
		got := applyEdits(t, text, edits)
		if want := strings.ReplaceAll(text, tc.old, tc.newName); got != want {
			t.Errorf("rename %s to %s:\n%s", tc.old, tc.newName, got)
		}
	}
}
