// Package doccmd finds the commands the README and docs/ write out, so the
// tests of cmd/vox and cmd/vox-mcp can hold each one to the CLI: a command
// or flag that was renamed fails a test at the line of the page that still
// says the old one. It is test support; no binary links it.
package doccmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Command is one documented command line of a program.
type Command struct {
	At    string   // file:line, relative to the repository root
	Words []string // the words after the program's name
}

// Text is the command as the page writes it.
func (c Command) Text(prog string) string {
	return strings.Join(append([]string{prog}, c.Words...), " ")
}

// codeSpanRE finds inline code spans; a fenced block's lines are read
// whole.
var codeSpanRE = regexp.MustCompile("`([^`\n]+)`")

// Find returns every command of prog in README.md and docs/*.md under
// root: the inline code spans that start with "prog " and the lines of
// fenced blocks that do (after an optional "$ ").
func Find(root, prog string) ([]Command, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var out []Command
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, path)
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") {
				fenced = !fenced
				continue
			}
			texts := []string{strings.TrimPrefix(trimmed, "$ ")}
			if !fenced {
				texts = texts[:0]
				for _, m := range codeSpanRE.FindAllStringSubmatch(line, -1) {
					texts = append(texts, m[1])
				}
			}
			for _, text := range texts {
				if words, ok := strings.CutPrefix(text, prog+" "); ok {
					out = append(out, Command{At: filepath.ToSlash(rel) + ":" + strconv.Itoa(i+1), Words: strings.Fields(words)})
				}
			}
		}
	}
	return out, nil
}

// flagRE is a flag's name in --name, --name=value or -name.
var flagRE = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)`)

// Flags returns the names of the flags among words ("allow-write" for
// --allow-write=x/*), in order.
func Flags(words []string) []string {
	var out []string
	for _, w := range words {
		if m := flagRE.FindStringSubmatch(w); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// Listed reports whether the usage text of Go's flag package lists the
// flag name ("  -name" at the start of a line). A documented pattern
// ("--limit-*") is listed when some flag matches it.
func Listed(usage, name string) bool {
	pattern := regexp.QuoteMeta(name)
	if strings.HasSuffix(name, "-") {
		pattern += `[a-z0-9-]+` // --limit-* reads as the flag name "limit-"
	}
	return regexp.MustCompile(`(?m)^\s+-` + pattern + `(\s|$)`).MatchString(usage)
}
