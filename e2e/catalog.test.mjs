// The catalog tools over stdio, as the official TypeScript client sees
// them: tools/list with _meta, annotations and schemas, and calls of
// vox_tool_search including its error results.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect, repoRoot, textOf } from "./helpers.mjs";

let conn;
before(async () => {
  conn = await connect();
});
after(async () => {
  await conn?.close();
});

test("the server identifies itself and declares list_changed", async () => {
  const info = conn.client.getServerVersion();
  assert.equal(info.name, "vox-mcp");
  const caps = conn.client.getServerCapabilities();
  assert.equal(caps.tools.listChanged, true);
  assert.equal(caps.resources.listChanged, true);
});

test("tools/list advertises every catalog tool with _meta and annotations", async () => {
  const { tools } = await conn.client.listTools();
  const names = tools.map((t) => t.name);
  assert.deepEqual(names, [...names].sort(), "tools are sorted by name");
  const search = tools.find((t) => t.name === "vox_tool_search");
  assert.ok(search, "vox_tool_search is listed");
  assert.equal(search.title, "Search tools");
  assert.deepEqual(search._meta, {
    vox_source: "catalog",
    vox_exposure: "core",
    vox_side_effect_class: "read_only",
    vox_side_effects: ["read_only"],
    vox_requires: [],
    vox_product_lane: "platform",
    vox_http_read_role_eligible: true,
  });
  assert.deepEqual(search.annotations, {
    readOnlyHint: true,
    idempotentHint: true,
    destructiveHint: false,
    openWorldHint: false,
  });
  // The hints follow every side-effect class of a row (docs/contracts.md §1).
  const hints = (name) => tools.find((t) => t.name === name).annotations;
  assert.deepEqual(hints("vox_skill_uninstall"), { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false });
  assert.deepEqual(hints("vox_skill_remove"), { readOnlyHint: false, destructiveHint: true, openWorldHint: false });
  assert.deepEqual(hints("vox_skill_add"), { readOnlyHint: false, destructiveHint: false, openWorldHint: true });
  assert.deepEqual(hints("vox_skill_use"), { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false });
  assert.equal(search.inputSchema.type, "object");
  assert.deepEqual(Object.keys(search.inputSchema.properties), ["query", "source", "limit"], "properties keep catalog order");
  assert.deepEqual(search.inputSchema.required, ["query"]);
  assert.equal(search.outputSchema.type, "object");
  for (const tool of tools.filter((t) => t._meta?.vox_source === "catalog")) {
    assert.ok(tool.description.length > 0, `${tool.name} has a description`);
    assert.equal(tool.inputSchema.type, "object", `${tool.name} input schema is an object`);
    assert.ok(Array.isArray(tool._meta.vox_requires), `${tool.name} vox_requires is an array`);
    assert.equal(typeof tool.annotations.openWorldHint, "boolean", `${tool.name} openWorldHint`);
  }
});

test("every catalog MCP row is advertised", async () => {
  const { tools } = await conn.client.listTools();
  const catalog = readFileSync(join(repoRoot, "contracts/operations/catalog.v1.yaml"), "utf8");
  const rowNames = [...catalog.matchAll(/^\s+name: (vox_[A-Za-z0-9_-]+)\s*$/gm)].map((m) => m[1]);
  assert.ok(rowNames.length > 0);
  for (const name of rowNames) {
    assert.ok(tools.some((t) => t.name === name), `${name} is advertised`);
  }
});

test("vox_tool_search returns structured and text results", async () => {
  const result = await conn.client.callTool({ name: "vox_tool_search", arguments: { query: "search tools", limit: 5 } });
  assert.equal(result.isError, undefined);
  const fromText = JSON.parse(textOf(result));
  assert.deepEqual(result.structuredContent, fromText);
  assert.ok(fromText.results.length >= 1 && fromText.results.length <= 5);
  const first = fromText.results[0];
  assert.equal(first.name, "vox_tool_search");
  assert.equal(first.vox_source, "catalog");
  assert.equal(first.inputSchema.type, "object");
  assert.ok(first.score > 0);
  for (let i = 1; i < fromText.results.length; i++) {
    const [a, b] = [fromText.results[i - 1], fromText.results[i]];
    assert.ok(a.score > b.score || (a.score === b.score && a.name < b.name), "score descending, then name");
  }
});

test("bad arguments are error results and the server keeps serving", async () => {
  const bad = await conn.client.callTool({ name: "vox_tool_search", arguments: { query: 42 } });
  assert.equal(bad.isError, true);
  assert.equal(textOf(bad), "argument query: want string, got integer");
  const missing = await conn.client.callTool({ name: "vox_tool_search", arguments: {} });
  assert.equal(textOf(missing), "missing argument: query");
  const unknown = await conn.client.callTool({ name: "vox_tool_search", arguments: { query: "x", nope: 1 } });
  assert.equal(textOf(unknown), "unknown argument: nope");
  const good = await conn.client.callTool({ name: "vox_tool_search", arguments: { query: "search" } });
  assert.equal(good.isError, undefined);
});

test("an unknown tool is a JSON-RPC error naming it", async () => {
  await assert.rejects(
    conn.client.callTool({ name: "no_such_tool", arguments: {} }),
    (err) => err.code === -32602 && /no_such_tool/.test(err.message),
  );
});
