package main

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/doccmd"
)

// TestDocumentedCommandsExist keeps the vox commands the README and docs/
// write out true to the CLI: each names a command of the command table
// (the longest path its leading words spell) or a group of them ("vox
// ci"), and each flag it passes is one that command's --help lists. A
// renamed command or flag fails here, at the line of the page that still
// says the old one.
func TestDocumentedCommandsExist(t *testing.T) {
	table := commands()
	helps := map[string]string{}
	help := func(path []string) string {
		key := strings.Join(path, " ")
		if h, ok := helps[key]; ok {
			return h
		}
		var out bytes.Buffer
		if code := run(append(slices.Clone(path), "--help"), strings.NewReader(""), &out, &out); code != 0 {
			t.Fatalf("vox %s --help: exit %d\n%s", key, code, out.String())
		}
		helps[key] = out.String()
		return helps[key]
	}
	docs, err := doccmd.Find(repoRoot(t), "vox")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 50 {
		t.Fatalf("found %d documented vox commands; the scan is broken", len(docs))
	}
	word := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	for _, d := range docs {
		var bare []string
		for _, w := range d.Words {
			if !word.MatchString(w) {
				break
			}
			bare = append(bare, w)
		}
		if len(bare) == 0 {
			if len(d.Words) > 0 && strings.HasPrefix(d.Words[0], "-") {
				// A flag of vox itself, which vox --help names.
				for _, f := range doccmd.Flags(d.Words[:1]) {
					if !strings.Contains(help(nil), "vox --"+f) {
						t.Errorf("%s: `%s`: vox --help lists no flag --%s", d.At, d.Text("vox"), f)
					}
				}
			}
			continue // not a command: a message that starts "vox lsp: ..."
		}
		if isGroup(table, bare) && (len(bare) == len(d.Words) || strings.HasPrefix(d.Words[len(bare)], "<")) {
			continue // a group of commands: "vox ci", "vox ci <name>"
		}
		var cmd *command
		for i := range table {
			p := table[i].path
			if len(p) <= len(bare) && slices.Equal(p, bare[:len(p)]) && (cmd == nil || len(p) > len(cmd.path)) {
				cmd = &table[i]
			}
		}
		if cmd == nil {
			t.Errorf("%s: `%s` names no vox command; the commands are %s", d.At, d.Text("vox"), commandList(table))
			continue
		}
		for _, f := range doccmd.Flags(d.Words[len(cmd.path):]) {
			if !doccmd.Listed(help(cmd.path), f) {
				t.Errorf("%s: `%s` passes --%s, which `vox %s --help` does not list", d.At, d.Text("vox"), f, strings.Join(cmd.path, " "))
			}
		}
	}
}

// isGroup reports whether words are the first words of longer command paths.
func isGroup(table []command, words []string) bool {
	for _, c := range table {
		if len(c.path) > len(words) && slices.Equal(c.path[:len(words)], words) {
			return true
		}
	}
	return false
}

func commandList(table []command) string {
	names := make([]string, len(table))
	for i, c := range table {
		names[i] = strings.Join(c.path, " ")
	}
	return strings.Join(names, ", ")
}
