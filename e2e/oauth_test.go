package e2e

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/oauthtest"
)

// TestTypeScriptOAuthClient runs oauth/client_credentials.test.mjs: the
// TypeScript SDK's ClientCredentialsProvider against a real authorization
// server on loopback (internal/oauthtest: zitadel/oidc's OpenID
// provider) and `vox-mcp --http --auth-issuer` — discovery through the
// 401's resource_metadata, the token, initialize and tools/list
// (docs/security.md, OAuth).
func TestTypeScriptOAuthClient(t *testing.T) {
	if _, err := os.Stat("node_modules/@modelcontextprotocol/sdk/package.json"); err != nil {
		t.Fatal("the TypeScript client is not installed: run `make deps` (npm ci in e2e/)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the end-to-end tests need Node.js 20 or later")
	}
	as, err := oauthtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	// The audience is the URL clients use, so the port is chosen first.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	srv := startHTTPWith(t, repoRoot, []string{"--http", "127.0.0.1:" + port, "--auth-issuer", as.URL})
	env := append(os.Environ(), "VOX_MCP_URL="+srv.URL, "OAUTH_ISSUER="+as.URL,
		"OAUTH_CLIENT_ID="+oauthtest.ClientID, "OAUTH_CLIENT_SECRET="+oauthtest.ClientSecret)
	out, err := runNode(t, 2*time.Minute, env, node, "--test", "--test-reporter=spec", filepath.Join("oauth", "client_credentials.test.mjs"))
	t.Logf("node --test output:\n%s", out)
	if err != nil {
		t.Fatalf("the TypeScript OAuth client test failed: %v\nvox-mcp:\n%s", err, srv.stderr)
	}
}
