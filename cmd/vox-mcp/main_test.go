package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// "<binary> <version> <commit>" (docs/ci-gates.md, CLI conventions).
	if !regexp.MustCompile(`^vox-mcp \S+ \S+\n$`).MatchString(out.String()) {
		t.Errorf("--version printed %q", out.String())
	}
}

func TestHTTPRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Setenv("VOX_MCP_TOKEN", "")
	t.Setenv("VOX_MCP_READ_TOKEN", "")
	for _, addr := range []string{":0", "0.0.0.0:0"} {
		var out, errb bytes.Buffer
		code := run([]string{"--http", addr}, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "refusing to listen on "+addr) || !strings.Contains(errb.String(), "VOX_MCP_TOKEN") {
			t.Errorf("--http %s: exit %d, stderr %q", addr, code, errb.String())
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"--no-such-flag"}, {"--http", "no-port"}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
	}
}
