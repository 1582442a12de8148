// Streamable HTTP as the official TypeScript client sees it: the same
// tools as stdio, bearer tokens with 401 and WWW-Authenticate, the read
// role's error result, session ids, and the refusal to listen on a
// non-loopback address without a token.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { bin, connect, connectHTTP, repoRoot, startHTTP, textOf } from "./helpers.mjs";

const FULL = "e2e-full-token";
const READ = "e2e-read-token";
let server;
before(async () => {
  server = await startHTTP({ env: { VOX_MCP_TOKEN: FULL, VOX_MCP_READ_TOKEN: READ } });
});
after(async () => {
  const code = await server?.stop();
  assert.equal(code, 0, `vox-mcp --http stops cleanly on SIGTERM:\n${server?.stderr()}`);
});

test("HTTP serves the same tools as stdio", async () => {
  const http = await connectHTTP(server.url, FULL);
  const stdio = await connect();
  try {
    const overHTTP = (await http.client.listTools()).tools;
    const overStdio = (await stdio.client.listTools()).tools;
    assert.deepEqual(overHTTP, overStdio);
    assert.match(http.transport.sessionId, /^vox1\.[A-Za-z0-9_-]{88}$/, "initialize minted a signed Mcp-Session-Id");
    const result = await http.client.callTool({ name: "vox_tool_search", arguments: { query: "search" } });
    assert.equal(result.isError, undefined);
    // The ranking among the search tools depends on every tool served
    // (workspace tools included); the call working is what counts here.
    assert.ok(JSON.parse(textOf(result)).results.some((r) => r.name === "vox_tool_search"));
  } finally {
    await http.close();
    await stdio.close();
  }
});

test("full access calls workspace tools and reads workspace resources over HTTP", async () => {
  const full = await connectHTTP(server.url, FULL);
  try {
    const slug = await full.client.callTool({ name: "slugify", arguments: { title: "Full Access" } });
    assert.equal(textOf(slug), "full-access");
    const readme = await full.client.readResource({ uri: "vox-mcp://examples/README.md" });
    assert.match(readme.contents[0].text, /^# vox-mcp examples/);
  } finally {
    await full.close();
  }
});

test("list_changed reaches other HTTP sessions, and the active skill belongs to one session", async () => {
  const a = await connectHTTP(server.url, FULL);
  const b = await connectHTTP(server.url, FULL);
  try {
    // b learns on its GET stream that a's install changed the tools.
    const changed = new Promise((resolve) => b.client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
    const ok = async (client, name, args) => {
      const res = await client.callTool({ name, arguments: args });
      assert.equal(res.isError, undefined, `${name}: ${JSON.stringify(res.content)}`);
      return res;
    };
    await ok(a.client, "vox_skill_install", {
      skill_md: "---\nname: http-only\ndescription: A skill of the HTTP test. Use in tests.\nmetadata:\n  vox-tools: http_macro\n---\n# HTTP only\n",
    });
    await changed;
    const { tools } = await b.client.listTools();
    assert.ok(tools.some((t) => t.name === "http_macro" && t._meta.vox_source === "skill"), "b sees the new macro tool");

    await ok(a.client, "vox_skill_use", { id: "http-only" });
    const denied = await a.client.callTool({ name: "vox_check", arguments: { source: "" } });
    assert.equal(textOf(denied), `Tool 'vox_check' is not in skill 'http-only' allowlist ["http_macro"]`);
    const other = await b.client.callTool({ name: "vox_check", arguments: { source: "" } });
    assert.equal(other.isError, undefined, "b's session has no active skill");
    await ok(a.client, "vox_skill_use", { id: "" });
    await ok(a.client, "vox_skill_remove", { id: "http-only" });
  } finally {
    await a.close();
    await b.close();
  }
});

test("DELETE ends a session: the client's id then gets 404, and a new session works", async () => {
  const a = await connectHTTP(server.url, FULL);
  const ended = a.transport.sessionId;
  // The SDK's terminateSession sends DELETE with the session id.
  await a.transport.terminateSession();
  assert.equal(a.transport.sessionId, undefined);
  await a.close();

  // A client still holding the ended id (here: resuming with it) gets the
  // 404 as a StreamableHTTPError; the TypeScript SDK does not re-initialize
  // by itself, the application connects again.
  const headers = { Authorization: `Bearer ${FULL}` };
  const stale = new StreamableHTTPClientTransport(new URL(server.url), { sessionId: ended, requestInit: { headers } });
  const client = new Client({ name: "vox-e2e-stale", version: "1.0.0" });
  await client.connect(stale); // with a session id the SDK skips initialize
  await assert.rejects(client.listTools(), (err) => err instanceof StreamableHTTPError && err.code === 404 && /session ended \(DELETE\): start a new session with initialize/.test(err.message));
  await client.close();

  const b = await connectHTTP(server.url, FULL);
  try {
    assert.notEqual(b.transport.sessionId, ended);
    assert.ok((await b.client.listTools()).tools.length > 0);
  } finally {
    await b.close();
  }
});

test("requests without a session id get 400, a bare GET at once", async () => {
  const headers = { Authorization: `Bearer ${FULL}`, Accept: "application/json, text/event-stream", "Content-Type": "application/json" };
  const get = await fetch(server.url, { method: "GET", headers, signal: AbortSignal.timeout(10000) });
  assert.equal(get.status, 400);
  assert.equal(get.headers.get("mcp-session-id"), null);
  assert.match(await get.text(), /missing Mcp-Session-Id/);
  const post = await fetch(server.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
  assert.equal(post.status, 400);
  await post.body?.cancel();
});

test("requests without a valid bearer token get 401 with WWW-Authenticate: Bearer", async () => {
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  // A bearer token that is refused adds error="invalid_token" (RFC 6750 §3.1).
  for (const [auth, challenge] of [[undefined, "Bearer"], ["Bearer wrong", 'Bearer error="invalid_token"'], [`Basic ${FULL}`, "Bearer"]]) {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (auth) headers.Authorization = auth;
    const res = await fetch(server.url, { method: "POST", headers, body: init });
    assert.equal(res.status, 401, `Authorization ${auth}`);
    assert.equal(res.headers.get("www-authenticate"), challenge, `Authorization ${auth}`);
  }
  await assert.rejects(connectHTTP(server.url, "wrong"));
});

test("the read role lists everything and calls only eligible tools", async () => {
  const reader = await connectHTTP(server.url, READ);
  try {
    const { tools } = await reader.client.listTools();
    const eligible = tools.filter((t) => t._meta?.vox_http_read_role_eligible === true).map((t) => t.name);
    assert.ok(eligible.includes("vox_tool_search"));
    const ok = await reader.client.callTool({ name: "vox_tool_search", arguments: { query: "tools" } });
    assert.equal(ok.isError, undefined);
    for (const t of tools.filter((t) => !eligible.includes(t.name))) {
      const denied = await reader.client.callTool({ name: t.name, arguments: {} });
      assert.equal(denied.isError, true);
      assert.equal(textOf(denied), `read role may not call ${t.name}: use a full-access token`);
    }
    // Workspace tools (examples/*.vox) are callable by name but never by the read role.
    const slug = await reader.client.callTool({ name: "slugify", arguments: { title: "Read Role" } });
    assert.equal(slug.isError, true);
    assert.equal(textOf(slug), "read role may not call slugify: use a full-access token");
    const { resources } = await reader.client.listResources();
    assert.ok(resources.some((r) => r.uri === "vox-mcp://examples/README.md"), "the read role lists workspace resources");
    const index = await reader.client.readResource({ uri: "skill://index.json" });
    assert.equal(index.contents[0].uri, "skill://index.json");
    await assert.rejects(
      reader.client.readResource({ uri: "vox-mcp://examples/README.md" }),
      (err) => err.code === -32600 && /read role may not read vox-mcp:\/\/examples\/README.md: use a full-access token/.test(err.message),
    );
    await assert.rejects(
      reader.client.readResource({ uri: "file:///etc/hostname" }),
      (err) => /read role may not read file:\/\/\/etc\/hostname: use a full-access token/.test(err.message),
    );
  } finally {
    await reader.close();
  }
});

test("without a token vox-mcp refuses a non-loopback address and says why", () => {
  const run = spawnSync(bin, ["--root", repoRoot, "--http", ":0"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    encoding: "utf8",
    timeout: 30000,
  });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /refusing to listen on :0 \(every interface\) without a token: it is not a loopback address/);
  assert.match(run.stderr, /VOX_MCP_TOKEN/);
});
