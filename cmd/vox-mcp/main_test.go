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
	// "<binary> <version> <commit>" (docs/ci-gates.md §1).
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

// A bad HTTP setting stops vox-mcp --http before it serves, naming the
// variable and what it wants.
func TestHTTPRefusesBadSessionSettings(t *testing.T) {
	for name, c := range map[string]struct{ env, value, want string }{
		"short key":         {"VOX_MCP_SESSION_KEY", "too-short", "VOX_MCP_SESSION_KEY: key 1 has 9 bytes: each key needs at least 32"},
		"tiny lifetime":     {"VOX_MCP_SESSION_LIFETIME", "5ms", `VOX_MCP_SESSION_LIFETIME="5ms": want a duration of at least 1s`},
		"bad read timeout":  {"VOX_MCP_HTTP_READ_TIMEOUT", "soon", `VOX_MCP_HTTP_READ_TIMEOUT="soon": want a positive duration`},
		"zero read timeout": {"VOX_MCP_HTTP_READ_TIMEOUT", "0", `VOX_MCP_HTTP_READ_TIMEOUT="0": want a positive duration`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			var out, errb bytes.Buffer
			if code := run([]string{"--http", "127.0.0.1:0"}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), c.want)
			}
		})
	}
}

// --store (fleet mode) needs --http and a shared session key, and a store
// it can reach: each refusal stops vox-mcp before it serves, saying why.
func TestStoreRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		key  string
		code int
		want string
	}{
		"no key":      {[]string{"--http", "127.0.0.1:0", "--store", "redis://127.0.0.1:1/0"}, "", 2, "--store needs VOX_MCP_SESSION_KEY: instances sharing a store must accept each other's session ids"},
		"stdio":       {[]string{"--store", "redis://127.0.0.1:1/0"}, strings.Repeat("k", 32), 2, "use it with --http ADDR"},
		"bad url":     {[]string{"--http", "127.0.0.1:0", "--store", "http://127.0.0.1/"}, strings.Repeat("k", 32), 1, "want redis://HOST:PORT/DB"},
		"unreachable": {[]string{"--http", "127.0.0.1:0", "--store", "redis://127.0.0.1:1/0"}, strings.Repeat("k", 32), 1, "cannot reach the store"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("VOX_MCP_SESSION_KEY", c.key)
			var out, errb bytes.Buffer
			if code := run(c.args, strings.NewReader(""), &out, &errb); code != c.code || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), c.code, c.want)
			}
		})
	}
}

// A bad OAuth setting stops vox-mcp before it serves, saying what it
// wants (docs/security.md, OAuth).
func TestOAuthFlagsRefuseBadSettings(t *testing.T) {
	t.Setenv("VOX_MCP_AUTH_ISSUER", "")
	t.Setenv("VOX_MCP_AUTH_AUDIENCE", "")
	t.Setenv("VOX_MCP_AUTH_INTROSPECT", "")
	t.Setenv("VOX_MCP_AUTH_CLIENT_ID", "")
	t.Setenv("VOX_MCP_AUTH_CLIENT_SECRET", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--auth-issuer", "https://auth.example.com"}, "use it with --http ADDR"},
		{[]string{"--http", "127.0.0.1:8080", "--auth-audience", "http://127.0.0.1:8080/mcp"}, "--auth-audience without --auth-issuer"},
		{[]string{"--http", "127.0.0.1:0", "--auth-issuer", "https://auth.example.com"}, "give --auth-audience"},
		{[]string{"--http", "0.0.0.0:8080", "--auth-issuer", "https://auth.example.com"}, "give --auth-audience"},
		{[]string{"--http", "127.0.0.1:8080", "--auth-issuer", "http://auth.example.com"}, "want https (http only on a loopback host"},
		{[]string{"--http", "127.0.0.1:8080", "--auth-issuer", "https://auth.example.com", "--auth-audience", "/mcp"}, "want the absolute URL clients use"},
		{[]string{"--http", "127.0.0.1:8080", "--auth-introspect", "https://auth.example.com"}, "--auth-introspect without --auth-issuer"},
		{[]string{"--http", "127.0.0.1:8080", "--auth-issuer", "https://auth.example.com", "--auth-introspect", "https://auth.example.com"}, "set VOX_MCP_AUTH_CLIENT_ID and VOX_MCP_AUTH_CLIENT_SECRET"},
		{[]string{"--http", "127.0.0.1:8080", "--auth-issuer", "https://auth.example.com", "--auth-introspect", "https://other.example.com"}, "is not one of the issuers"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
