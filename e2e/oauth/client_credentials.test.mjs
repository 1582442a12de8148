// The official TypeScript SDK's client-credentials auth provider against
// vox-mcp as an OAuth resource server (docs/security.md, OAuth): the
// client gets 401, finds the authorization server through the
// resource_metadata of WWW-Authenticate (RFC 9728), takes a token with
// resource= the metadata's resource (RFC 8707), then initializes and
// lists the tools. Run by TestTypeScriptOAuthClient (oauth_test.go),
// which starts a real authorization server (zitadel/oidc's OpenID
// provider) and vox-mcp --http --auth-issuer, and passes their URLs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";

const { VOX_MCP_URL: url, OAUTH_ISSUER: issuer, OAUTH_CLIENT_ID: clientId, OAUTH_CLIENT_SECRET: clientSecret } = process.env;

function provider(secret) {
  return new ClientCredentialsProvider({ clientId, clientSecret: secret, scope: "vox:full", expectedIssuer: issuer });
}

test("client credentials open vox-mcp: discovery from the 401, token, initialize, tools/list", async () => {
  // Without a token: 401 naming the metadata, which names this resource and the issuer.
  const refused = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
  assert.equal(refused.status, 401);
  const challenge = refused.headers.get("www-authenticate");
  const metadataURL = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  assert.ok(metadataURL, `WWW-Authenticate names the resource metadata: ${challenge}`);
  const metadata = await (await fetch(metadataURL)).json();
  assert.equal(metadata.resource, url);
  assert.deepEqual(metadata.authorization_servers, [issuer]);

  const auth = provider(clientSecret);
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: auth });
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  await client.connect(transport);
  try {
    const token = auth.tokens()?.access_token;
    assert.ok(token, "the provider holds the token it got");
    const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
    assert.equal(claims.iss, issuer);
    assert.deepEqual([claims.aud].flat(), [url], "the token is for this resource (resource=, RFC 8707)");
    assert.equal(claims.scope, "vox:full");
    assert.match(transport.sessionId ?? "", /^vox\d\./, "initialize minted a session");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "vox_tool_search"), `tools/list: ${tools.map((t) => t.name)}`);
  } finally {
    await client.close();
  }
});

test("a wrong client secret gets no token and no session", async () => {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider("not-the-secret") });
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  await assert.rejects(client.connect(transport));
  assert.equal(transport.sessionId, undefined);
});
