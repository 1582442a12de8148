// Workspace tools written in Vox, as the official TypeScript client sees
// them over stdio: hidden versus advertised (flag, VOX_MCP_WORKSPACE_TOOLS,
// the deprecated VOX_MCP_TIERS and its warning), dispatch of a hidden tool
// by name, a refresh that adds a tool with tools/list_changed, shadowing
// and per-file errors in the refresh result, live body edits, resources,
// --watch, and the skill allowlist denying a workspace tool.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  ToolListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { connect, repoRoot, tempDir, textOf } from "./helpers.mjs";

const greetVox = `@tool "Greet someone by name"
fn greet(name: str, punct: str = "!") to str { "hello " + name + punct }

@tool "Split a sentence into words"
fn words(text: str) { text.split(" ") }

@resource("docs://guide.md", "The team guide")
fn guide() to str { "# Guide\\n" }
`;

/** A new workspace holding the scan config and files. */
function workspace(files = {}) {
  const root = tempDir("vox-e2e-ws-");
  const all = { "contracts/mcp/workspace-mcp-surface.v1.yaml": 'scan_globs: ["tools/**/*.vox"]\n', "tools/greet.vox": greetVox, ...files };
  for (const [rel, body] of Object.entries(all)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
  return root;
}

/** Writes a file with a modification time distinct from the last one. */
let bump = 0;
function edit(root, rel, body) {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, body);
  const t = new Date(Date.now() + ++bump * 3600_000);
  utimesSync(p, t, t);
}

const conns = [];
const roots = [];
async function start(opts) {
  const c = await connect(opts);
  conns.push(c);
  return c;
}
after(async () => {
  for (const c of conns) await c.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function newRoot(files) {
  const r = workspace(files);
  roots.push(r);
  return r;
}

const workspaceNames = (tools) => tools.filter((t) => t._meta?.vox_source === "workspace").map((t) => t.name);

test("workspace tools are hidden without the opt-in, yet found by search and callable by name", async () => {
  const { client } = await start({ root: newRoot() });
  // The first call waits for the first scan of this (snapshot-less) root.
  const greeted = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
  assert.equal(greeted.isError, undefined, JSON.stringify(greeted));
  assert.equal(textOf(greeted), "hello Ada!");
  assert.deepEqual(greeted.structuredContent, { result: "hello Ada!" });
  const words = await client.callTool({ name: "words", arguments: { text: "one two" } });
  assert.equal(textOf(words), '["one","two"]');
  assert.deepEqual(words.structuredContent, { result: ["one", "two"] });

  const { tools } = await client.listTools();
  assert.deepEqual(workspaceNames(tools), [], "no workspace tool is advertised");
  const search = await client.callTool({ name: "vox_tool_search", arguments: { query: "greet someone", source: "workspace" } });
  assert.equal(search.structuredContent.results[0].name, "greet");

  const bad = await client.callTool({ name: "greet", arguments: { name: 3 } });
  assert.equal(bad.isError, true);
  assert.equal(textOf(bad), "argument name: want str, got integer");
  const missing = await client.callTool({ name: "greet", arguments: {} });
  assert.equal(textOf(missing), "missing argument: name");
});

test("--workspace-tools advertises them with _meta and annotations", async () => {
  const { client } = await start({ root: newRoot(), args: ["--workspace-tools"] });
  await client.callTool({ name: "greet", arguments: { name: "x" } }); // after the first scan
  const { tools } = await client.listTools();
  assert.deepEqual(workspaceNames(tools), ["greet", "words"]);
  const greet = tools.find((t) => t.name === "greet");
  assert.deepEqual(greet._meta, { vox_source: "workspace", vox_source_path: "tools/greet.vox", vox_source_line: 1 });
  assert.deepEqual(greet.annotations, { readOnlyHint: true, openWorldHint: false });
  assert.deepEqual(greet.inputSchema, {
    type: "object",
    properties: { name: { type: "string" }, punct: { type: "string", default: "!" } },
    required: ["name"],
    additionalProperties: false,
  });
});

test("VOX_MCP_WORKSPACE_TOOLS=1 advertises them too", async () => {
  const { client } = await start({ root: newRoot(), env: { VOX_MCP_WORKSPACE_TOOLS: "1" } });
  await client.callTool({ name: "greet", arguments: { name: "x" } });
  assert.deepEqual(workspaceNames((await client.listTools()).tools), ["greet", "words"]);
});

test("the deprecated VOX_MCP_TIERS still works and warns once, naming VOX_MCP_WORKSPACE_TOOLS", async () => {
  const conn = await start({ root: newRoot(), env: { VOX_MCP_TIERS: "core, Workspace" } });
  await conn.client.callTool({ name: "greet", arguments: { name: "x" } });
  assert.deepEqual(workspaceNames((await conn.client.listTools()).tools), ["greet", "words"]);
  const warnings = conn.stderr().split("\n").filter((l) => l.includes("VOX_MCP_TIERS is deprecated"));
  assert.equal(warnings.length, 1, conn.stderr());
  assert.match(warnings[0], /level=WARN/);
  assert.match(warnings[0], /VOX_MCP_WORKSPACE_TOOLS/);

  const other = await start({ root: newRoot(), env: { VOX_MCP_TIERS: "core" } });
  await other.client.callTool({ name: "greet", arguments: { name: "x" } });
  assert.deepEqual(workspaceNames((await other.client.listTools()).tools), [], "core does not advertise workspace tools");
  assert.match(other.stderr(), /VOX_MCP_TIERS is deprecated/);
});

test("a refresh adds a tool with tools/list_changed and reports shadowing and per-file errors", async () => {
  const root = newRoot();
  const { client } = await start({ root, args: ["--workspace-tools"] });
  await client.callTool({ name: "greet", arguments: { name: "x" } });
  const changed = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
  edit(root, "tools/more.vox", '@tool "Add two numbers"\nfn add(a: int, b: int) to int { a + b }\n\n@tool "Shadows the catalog"\nfn vox_tool_search(q: str) to str { q }\n\n@tool "Second greet"\nfn greet() to str { "no" }\n');
  edit(root, "tools/broken.vox", '@tool "Broken"\nfn broken( to int { 1 }\n');
  const refreshed = await client.callTool({ name: "vox_workspace_mcp_refresh", arguments: {} });
  assert.equal(refreshed.isError, undefined, JSON.stringify(refreshed));
  assert.deepEqual(refreshed.structuredContent, {
    tool_count: 3,
    resource_count: 1,
    shadowed: ["vox_tool_search"],
    duplicate_tools: ["greet"],
    duplicate_resources: [],
    errors: [{ path: "tools/broken.vox", message: "2:12: expected a name, found keyword to [vox/parse/syntax]" }],
  });
  assert.deepEqual(JSON.parse(textOf(refreshed)), refreshed.structuredContent);
  await changed;
  const { tools } = await client.listTools();
  assert.deepEqual(workspaceNames(tools), ["add", "greet", "words"]);
  assert.equal(tools.find((t) => t.name === "vox_tool_search")._meta.vox_source, "catalog", "the catalog tool wins");
  const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
  assert.equal(textOf(sum), "42");
  assert.equal(textOf(await client.callTool({ name: "greet", arguments: { name: "Bo" } })), "hello Bo!", "first declaration wins");
});

test("an edited tool body takes effect on the next call, without a refresh", async () => {
  const root = newRoot();
  const { client } = await start({ root });
  assert.equal(textOf(await client.callTool({ name: "greet", arguments: { name: "Ada" } })), "hello Ada!");
  edit(root, "tools/greet.vox", greetVox.replace('"hello "', '"bonjour "'));
  assert.equal(textOf(await client.callTool({ name: "greet", arguments: { name: "Ada" } })), "bonjour Ada!");
  edit(root, "tools/greet.vox", '@tool "x"\nfn other() to int { 1 }\n');
  const gone = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
  assert.equal(gone.isError, true);
  assert.equal(textOf(gone), "tools/greet.vox no longer declares tool greet; run vox_workspace_mcp_refresh");
});

test("workspace resources are listed and read; unknown URIs are -32002", async () => {
  const root = newRoot();
  const { client } = await start({ root });
  await client.callTool({ name: "greet", arguments: { name: "x" } });
  const { resources } = await client.listResources();
  const guide = resources.find((r) => r.uri === "docs://guide.md");
  assert.ok(guide, JSON.stringify(resources));
  assert.equal(guide.mimeType, "text/markdown");
  assert.equal(guide.description, "The team guide");
  assert.equal(guide._meta.vox_source, "workspace");
  const read = await client.readResource({ uri: "docs://guide.md" });
  assert.deepEqual(read.contents, [{ uri: "docs://guide.md", mimeType: "text/markdown", text: "# Guide\n" }]);
  await assert.rejects(client.readResource({ uri: "docs://missing.md" }), (err) => {
    assert.equal(err.code, -32002);
    assert.match(err.message, /docs:\/\/missing\.md/);
    return true;
  });

  const changed = new Promise((resolve) => client.setNotificationHandler(ResourceListChangedNotificationSchema, resolve));
  edit(root, "tools/notes.vox", '@resource("notes://today.txt", "Today")\nfn today() to str { "busy" }\n');
  await client.callTool({ name: "vox_workspace_mcp_refresh", arguments: {} });
  await changed;
  assert.equal((await client.readResource({ uri: "notes://today.txt" })).contents[0].text, "busy");
});

test("workspace resource templates are listed, read with their variables and completed; prompt arguments are completed; a prompt returns its messages", async () => {
  const root = newRoot({
    "tools/notes.vox": `fn note_ids() to list[str] { ["alpha", "Beta", "alphabet", "delta"] }

@mcp.resource("test://template/{id}/data", "Data for an id", "application/json")
@mcp.complete("id", note_ids)
fn template_data(id: str) to str {
    json.stringify({id: id, templateTest: true, data: "Data for ID: {id}"})
}

@mcp.prompt("Summarize a note")
@mcp.complete("id", note_ids)
fn summarize(id: str) to str { "Summarize " + id }

@mcp.prompt("A prompt with an embedded resource")
fn test_prompt_with_embedded_resource(resourceUri: str) to list[Message] {
    [
        {role: "user", content: content.resource(resourceUri, "Embedded resource content for testing.", "text/plain")},
        {role: "assistant", content: "Please process the embedded resource above."},
    ]
}
`,
  });
  const { client } = await start({ root });
  await client.callTool({ name: "greet", arguments: { name: "x" } }); // the first scan is in
  const { resourceTemplates } = await client.listResourceTemplates();
  const data = resourceTemplates.find((t) => t.uriTemplate === "test://template/{id}/data");
  assert.ok(data, JSON.stringify(resourceTemplates));
  assert.equal(data.name, "template_data");
  assert.equal(data.mimeType, "application/json");
  assert.equal(data._meta.vox_source, "workspace");
  const { resources } = await client.listResources();
  assert.ok(!resources.some((r) => r.uri.includes("{")), JSON.stringify(resources));

  const read = await client.readResource({ uri: "test://template/123/data" });
  assert.deepEqual(read.contents, [
    { uri: "test://template/123/data", mimeType: "application/json", text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' },
  ]);
  await assert.rejects(client.readResource({ uri: "test://template/1/2/data" }), (err) => {
    assert.equal(err.code, -32002);
    assert.deepEqual(err.data, { uri: "test://template/1/2/data" });
    return true;
  });

  const ids = await client.complete({ ref: { type: "ref/resource", uri: "test://template/{id}/data" }, argument: { name: "id", value: "AL" } });
  assert.deepEqual(ids.completion.values, ["alpha", "alphabet"]);
  assert.equal(ids.completion.total, 2);
  assert.ok(!ids.completion.hasMore);
  const args = await client.complete({ ref: { type: "ref/prompt", name: "summarize" }, argument: { name: "id", value: "b" } });
  assert.deepEqual(args.completion.values, ["Beta", "alphabet"]);

  const prompt = await client.getPrompt({ name: "test_prompt_with_embedded_resource", arguments: { resourceUri: "test://example-resource" } });
  assert.deepEqual(prompt.messages, [
    { role: "user", content: { type: "resource", resource: { uri: "test://example-resource", mimeType: "text/plain", text: "Embedded resource content for testing." } } },
    { role: "assistant", content: { type: "text", text: "Please process the embedded resource above." } },
  ]);
});

test("a subscriber of a workspace resource is told when a refresh may have changed it, until it unsubscribes", async () => {
  const root = newRoot();
  const { client } = await start({ root });
  await client.callTool({ name: "greet", arguments: { name: "x" } }); // the first scan is in
  const updates = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
  await client.subscribeResource({ uri: "docs://guide.md" });
  await client.callTool({ name: "vox_workspace_mcp_refresh", arguments: {} });
  for (let i = 0; i < 200 && updates.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(updates, ["docs://guide.md"]);
  await client.unsubscribeResource({ uri: "docs://guide.md" });
  await client.callTool({ name: "vox_workspace_mcp_refresh", arguments: {} });
  await client.ping(); // a notification sent before the reply to ping would be in by now
  assert.deepEqual(updates, ["docs://guide.md"]);
});

test("vox-mcp --watch refreshes when a .vox file is added", async () => {
  const root = newRoot();
  const { client } = await start({ root, args: ["--watch", "--workspace-tools"] });
  await client.callTool({ name: "greet", arguments: { name: "x" } });
  const changed = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
  edit(root, "tools/watched.vox", '@tool "Watched"\nfn watched() to str { "seen" }\n');
  await changed;
  assert.equal(textOf(await client.callTool({ name: "watched", arguments: {} })), "seen");
});

test("an active skill's allowlist denies a workspace tool", async () => {
  const skills = tempDir("vox-e2e-ws-skills-");
  roots.push(skills);
  cpSync(join(repoRoot, "internal/skills/testdata/skills/release-notes"), join(skills, "release-notes"), { recursive: true });
  const { client } = await start({ root: newRoot(), env: { VOX_SKILL_ROOTS: skills } });
  assert.equal(textOf(await client.callTool({ name: "greet", arguments: { name: "x" } })), "hello x!");
  const used = await client.callTool({ name: "vox_skill_use", arguments: { id: "release-notes" } });
  assert.equal(used.isError, undefined, JSON.stringify(used));
  const denied = await client.callTool({ name: "greet", arguments: { name: "x" } });
  assert.equal(denied.isError, true);
  assert.equal(textOf(denied), `Tool 'greet' is not in skill 'release-notes' allowlist ["git_log", "vox_check"]`);
});

test("this repository's own example tools run through the snapshot", async () => {
  const { client } = await start();
  const slug = await client.callTool({ name: "slugify", arguments: { title: "Hello Vox World" } });
  assert.equal(textOf(slug), "hello-vox-world");
  const summary = await client.callTool({ name: "file_summary", arguments: { path: "examples/data/notes.txt", head: 1 } });
  assert.deepEqual(summary.structuredContent.result, { path: "examples/data/notes.txt", lines: 4, head: ["vox-mcp example notes"] });
  const outside = await client.callTool({ name: "file_summary", arguments: { path: "../etc/passwd" } });
  assert.equal(outside.isError, true);
  assert.match(textOf(outside), /outside the workspace/);
});
