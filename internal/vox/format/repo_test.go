package format

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repoVoxFiles returns every .vox file of the repository that git
// tracks, and the chunks of .vox inside txtar test data (-- name.vox --
// sections), as path → source.
func repoVoxFiles(t *testing.T) map[string][]byte {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "*.vox", "*.txtar", "*.txt").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := map[string][]byte{}
	for _, name := range strings.Fields(string(out)) {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".vox") {
			files[name] = data
			continue
		}
		for sec, body := range txtarSections(data) {
			if strings.HasSuffix(sec, ".vox") {
				files[name+"#"+sec] = body
			}
		}
	}
	if len(files) < 60 {
		t.Fatalf("found only %d .vox files under %s", len(files), root)
	}
	return files
}

// txtarSections splits a txtar archive into its files.
func txtarSections(data []byte) map[string][]byte {
	out := map[string][]byte{}
	var name string
	var body []byte
	flush := func() {
		if name != "" {
			out[name] = body
		}
	}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		l := bytes.TrimRight(line, "\r\n")
		if bytes.HasPrefix(l, []byte("-- ")) && bytes.HasSuffix(l, []byte(" --")) && len(l) > 6 {
			flush()
			name, body = string(l[3:len(l)-3]), nil
			continue
		}
		if name != "" {
			body = append(body, line...)
		}
	}
	flush()
	return out
}

// TestRepositoryFiles formats every .vox file of the repository that
// parses: the tree must not change (Source checks it, and so does this
// test, independently of Source's own check), a second pass must change
// nothing, and every comment must be in the output, in order.
func TestRepositoryFiles(t *testing.T) {
	formatted, refused := 0, 0
	for name, src := range repoVoxFiles(t) {
		before, _, script, err := parse(name, src)
		if err != nil {
			refused++ // a file with a syntax error (a diagnostics fixture) is not formatted
			continue
		}
		out, err := Source(name, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		formatted++
		after, _, _, err := parseMode(name, out, script)
		if err != nil {
			t.Errorf("%s: formatted output does not parse: %v", name, err)
			continue
		}
		if d := diff(before, after); d != "" {
			t.Errorf("%s: tree changed: %s", name, d)
		}
		if got, want := commentTexts(after), commentTexts(before); len(got) != len(want) {
			t.Errorf("%s: %d comments became %d", name, len(want), len(got))
		}
		for _, c := range commentTexts(before) {
			if !bytes.Contains(out, []byte(c)) {
				t.Errorf("%s: comment %q lost", name, c)
			}
		}
		again, err := Source(name, out)
		if err != nil {
			t.Errorf("second pass: %v", err)
			continue
		}
		if !bytes.Equal(again, out) {
			t.Errorf("%s: not idempotent:\n%s", name, firstDiff(out, again))
		}
	}
	if formatted < 50 {
		t.Errorf("formatted only %d files (%d refused): the walk lost the repository's files", formatted, refused)
	}
	t.Logf("%d files formatted, %d with syntax errors left alone", formatted, refused)
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return "line " + itoa(i+1) + ":\n-" + la[i] + "\n+" + lb[i]
		}
	}
	return "lengths differ: " + itoa(len(la)) + " and " + itoa(len(lb)) + " lines"
}

func itoa(n int) string { return strconv.Itoa(n) }
