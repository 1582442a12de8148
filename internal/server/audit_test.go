package server

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/audit"
	"github.com/vox-lang/vox-mcp/internal/oauth"
	"github.com/vox-lang/vox-mcp/internal/oauthtest"
)

// TestAuditTrailOverHTTP drives the HTTP endpoint with two tokens and
// reads the audit file back: one line per action with who, what, how it
// ended and a digest of the arguments, and nowhere an argument value, a
// token or a session id.
func TestAuditTrailOverHTTP(t *testing.T) {
	s := newRoleServer(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.audit.trail = log
	const fullToken, readToken = "full-token-7d1c0b9e44a2", "read-token-93b0e1f5c6d8"
	reader, full := tokenClients(t, s, fullToken, readToken)

	const secret = "sk-live-SECRET-4f2a9c"
	full.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"vox_tool_search","arguments":{"query":"` + secret + `","limit":3}}}`)
	full.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vox_test_fail","arguments":{"why":"` + secret + `"}}}`)
	reader.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"vox_test_ws","arguments":{"x":"` + secret + `"}}}`)
	full.rpc(`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"vox://notes/` + secret + `"}}`)
	full.rpc(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"vox://none?key=` + secret + `"}}`)
	full.rpc(`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"vox_prompt","arguments":{"q":"` + secret + `"}}}`)
	reader.do("POST", `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"workspace-prompt"}}`)
	reader.do("POST", `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"vox://notes/`+secret+`"}}`)
	full.rpc(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + secret + `","arguments":{}}}`)
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{secret, fullToken, readToken, reader.session, full.session} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("the audit file holds %q:\n%s", leak, raw)
		}
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("audit file mode: %v %v, want 0600", info.Mode(), err)
	}

	searchArgs := sha256.Sum256([]byte(`{"limit":3,"query":"` + secret + `"}`))
	want := []struct{ principal, action, what, outcome, reason, args string }{
		{"token:full", "tools/call", "vox_tool_search", "ok", "", hex.EncodeToString(searchArgs[:])},
		{"token:full", "tools/call", "vox_test_fail", "error", "tool_error", "*"},
		{"token:read", "tools/call", "vox_test_ws", "refused", "role", "*"},
		{"token:full", "resources/read", "vox://notes/{id}", "ok", "", "*"},
		{"token:full", "resources/read", "", "error", "not_found", "*"},
		{"token:full", "prompts/get", "vox_prompt", "ok", "", "*"},
		{"token:read", "prompts/get", "workspace-prompt", "refused", "role", ""},
		{"token:read", "resources/read", "vox://notes/{id}", "refused", "role", "*"},
		{"token:full", "tools/call", "", "error", "not_found", "*"},
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), raw)
	}
	timeRE := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	hexRE := regexp.MustCompile(`^[0-9a-f]{16}$`)
	sessions := map[string]string{}
	for i, ln := range lines {
		var got struct {
			Time, Principal, Session, Action, What, Outcome, Reason string
			Args                                                    string `json:"args_sha256"`
			Duration                                                *int64 `json:"duration_ms"`
		}
		if err := json.Unmarshal([]byte(ln), &got); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, ln)
		}
		w := want[i]
		if got.Principal != w.principal || got.Action != w.action || got.What != w.what || got.Outcome != w.outcome || got.Reason != w.reason {
			t.Errorf("line %d: %s\nwant %+v", i+1, ln, w)
		}
		switch {
		case w.args == "*" && len(got.Args) != 64, w.args != "*" && got.Args != w.args:
			t.Errorf("line %d: args_sha256 %q, want %q", i+1, got.Args, w.args)
		}
		if !timeRE.MatchString(got.Time) || got.Duration == nil || *got.Duration < 0 {
			t.Errorf("line %d: time %q, duration %v", i+1, got.Time, got.Duration)
		}
		if !hexRE.MatchString(got.Session) {
			t.Errorf("line %d: session %q, want 16 hex digits", i+1, got.Session)
		}
		if prev, ok := sessions[got.Principal]; ok && prev != got.Session {
			t.Errorf("line %d: session %s of %s changed from %s", i+1, got.Session, got.Principal, prev)
		}
		sessions[got.Principal] = got.Session
	}
	if sessions["token:full"] == sessions["token:read"] {
		t.Errorf("two sessions hash alike: %v", sessions)
	}
}

// TestAuditTrailAnonymousAndStdio checks the principals without tokens:
// anonymous over HTTP, stdio over stdio.
func TestAuditTrailAnonymousAndStdio(t *testing.T) {
	s := newRoleServer(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.audit.trail = log
	_, anon := tokenClients(t, s, "", "")
	anon.call("vox_tool_search")

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(t.Context(), inR, outW) }()
	go io.WriteString(inW, initializeBody+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"vox_tool_search","arguments":{"query":"q"}}}`+"\n")
	for sc := bufio.NewScanner(outR); sc.Scan(); {
		if strings.Contains(sc.Text(), `"id":2`) {
			break
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	log.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var principals []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var l struct{ Principal string }
		json.Unmarshal(sc.Bytes(), &l)
		principals = append(principals, l.Principal)
	}
	if strings.Join(principals, " ") != "anonymous stdio" {
		t.Errorf("principals %q, want anonymous then stdio", principals)
	}
}

// tokenClients are a read-role and a full-access client of s over HTTP
// with the given tokens (none: no token configured, anonymous access).
func tokenClients(t *testing.T, s *Server, fullToken, readToken string) (reader, full *httpClient) {
	t.Helper()
	ts := httptest.NewServer(s.HTTPHandler(Auth{Token: fullToken, ReadToken: readToken}))
	t.Cleanup(ts.Close)
	reader = &httpClient{t: t, url: ts.URL, token: readToken}
	reader.initialize()
	full = &httpClient{t: t, url: ts.URL, token: fullToken}
	full.initialize()
	return reader, full
}

// TestAuditNamesTheOAuthSubject: with an access token of a real
// authorization server, the audit line's principal is the token's subject
// at its issuer, never the token.
func TestAuditNamesTheOAuthSubject(t *testing.T) {
	as := startAuthServer(t)
	res := startOAuthResource(t, as.URL)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res.srv.audit.trail = log
	token := as.token(t, res.URL, oauth.ScopeFull)
	cl := &httpClient{t: t, url: res.URL, token: token}
	cl.initialize()
	cl.call("vox_tool_search")
	log.Close()

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), token) {
		t.Errorf("the audit file holds the access token:\n%s", raw)
	}
	var line struct{ Principal, What string }
	if err := json.Unmarshal(raw, &line); err != nil {
		t.Fatalf("audit file %q: %v", raw, err)
	}
	if want := oauthtest.ClientID + "@" + as.URL; line.Principal != want || line.What != "vox_tool_search" {
		t.Errorf("audit line principal %q what %q, want %q vox_tool_search", line.Principal, line.What, want)
	}
}
