// Skills over stdio, as the official TypeScript client sees them: the
// skill:// resources (list, read, traversal), skill search, macro tools,
// activating a skill, being denied by its allowlist, clearing it, installing
// a skill (with list_changed), and a sandboxed run. The client validates
// every structuredContent against the tool's output schema.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ToolListChangedNotificationSchema, ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connect, repoRoot, tempDir, textOf } from "./helpers.mjs";

const fixtures = join(repoRoot, "internal/skills/testdata/skills");
const skillRoot = tempDir("vox-e2e-skill-root-");
for (const name of ["release-notes", "pdf-forms", "security-audit", "commit-message"]) {
  cpSync(join(fixtures, name), join(skillRoot, name), { recursive: true });
}
// A file beside the root that no resource may reach.
const secret = join(dirname(skillRoot), `vox-e2e-secret-${process.pid}.txt`);
writeFileSync(secret, "TOP-SECRET");

let conn;
before(async () => {
  conn = await connect({ env: { VOX_SKILL_ROOTS: skillRoot } });
});
after(async () => {
  await conn?.close();
  rmSync(skillRoot, { recursive: true, force: true });
  rmSync(secret, { force: true });
});

/** Calls a tool that must succeed and returns its structured result. */
async function ok(name, args = {}) {
  const result = await conn.client.callTool({ name, arguments: args });
  assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(result.content)}`);
  assert.deepEqual(result.structuredContent, JSON.parse(textOf(result)), `${name}: text and structuredContent agree`);
  return result.structuredContent;
}

test("resources/list serves the index, every SKILL.md and every other file", async () => {
  const { resources } = await conn.client.listResources();
  const byURI = Object.fromEntries(resources.map((r) => [r.uri, r]));
  assert.deepEqual(byURI["skill://index.json"].name, "skill-index");
  assert.equal(byURI["skill://index.json"].mimeType, "application/json");
  const md = byURI["skill://release-notes/SKILL.md"];
  assert.equal(md.name, "release-notes");
  assert.equal(md.mimeType, "text/markdown");
  assert.match(md.description, /^Drafts release notes/);
  for (const [uri, mime] of [
    ["skill://release-notes/references/style-guide.md", "text/markdown"],
    ["skill://release-notes/scripts/collect.sh", "text/x-shellscript"],
    ["skill://release-notes/assets/template.md", "text/markdown"],
    ["skill://pdf-forms/scripts/fill_form.py", "text/x-python"],
    ["skill://pdf-forms/references/fields.json", "application/json"],
    ["skill://pdf-forms/assets/logo.png", "image/png"],
    ["skill://pdf-forms/assets/sample.pdf", "application/pdf"],
  ]) {
    assert.ok(byURI[uri], `${uri} is listed`);
    assert.equal(byURI[uri].mimeType, mime, uri);
    assert.equal(byURI[uri].name, uri.slice("skill://".length));
  }
  assert.equal(resources.filter((r) => r.uri.startsWith("skill://") && r.uri.endsWith("/SKILL.md")).length, 4);
});

test("resources/read returns the index, text files and binary blobs", async () => {
  const index = await conn.client.readResource({ uri: "skill://index.json" });
  const doc = JSON.parse(index.contents[0].text);
  assert.equal(doc.$schema, "https://schemas.agentskills.io/discovery/0.2.0/schema.json");
  assert.deepEqual(doc.skills.map((s) => s.name), ["commit-message", "pdf-forms", "release-notes", "security-audit"]);
  assert.deepEqual(doc.skills[2], {
    name: "release-notes",
    description: "Drafts release notes from the git history since the last tag. Use when the user asks for release notes, a changelog entry or a summary of what shipped.",
    type: "skill-md",
    url: "skill://release-notes/SKILL.md",
  });
  const md = await conn.client.readResource({ uri: "skill://release-notes/SKILL.md" });
  assert.equal(md.contents[0].text, readFileSync(join(skillRoot, "release-notes/SKILL.md"), "utf8"));
  const guide = await conn.client.readResource({ uri: "skill://release-notes/references/style-guide.md" });
  assert.match(guide.contents[0].text, /^# Release notes style guide/);
  const png = await conn.client.readResource({ uri: "skill://pdf-forms/assets/logo.png" });
  assert.equal(png.contents[0].mimeType, "image/png");
  assert.deepEqual(Buffer.from(png.contents[0].blob, "base64"), readFileSync(join(skillRoot, "pdf-forms/assets/logo.png")));
});

test("traversal URIs are unknown resources", async () => {
  for (const uri of [
    "skill://release-notes/../" + secret.split("/").pop(),
    "skill://release-notes/..%2F..%2F" + secret.split("/").pop(),
    "skill://release-notes/%2e%2e/%2e%2e/etc/passwd",
    "skill://release-notes/" + secret,
    "skill:///etc/passwd",
    "skill://release-notes/references/../SKILL.md",
  ]) {
    await assert.rejects(conn.client.readResource({ uri }), (err) => {
      assert.equal(err.code, -32002, `${uri}: ${err.message}`);
      assert.ok(err.message.includes(uri), `${uri}: the message names the URI: ${err.message}`);
      assert.deepEqual(err.data, { uri }, `${uri}: data.uri names it`);
      assert.ok(!err.message.includes("TOP-SECRET"));
      return true;
    });
  }
});

test("vox_skill_search ranks by BM25 and vox_skill_list lists by id", async () => {
  const { results } = await ok("vox_skill_search", { query: "release notes from git history", limit: 2 });
  assert.equal(results[0].id, "release-notes");
  assert.ok(results[0].score > 0);
  assert.ok(results.length <= 2);
  const { skills } = await ok("vox_skill_list");
  assert.deepEqual(skills.map((s) => s.id), ["commit-message", "pdf-forms", "release-notes", "security-audit"]);
  assert.deepEqual(skills[2].tools, ["git_log", "vox_check"]);
  const info = await ok("vox_skill_info", { id: "pdf-forms" });
  assert.deepEqual(info.files, ["SKILL.md", "assets/logo.png", "assets/sample.pdf", "references/fields.json", "scripts/fill_form.py"]);
});

test("macro tools are advertised and return the skill's instructions", async () => {
  const { tools } = await conn.client.listTools();
  const macro = tools.find((t) => t.name === "pdf_fill_form");
  assert.deepEqual(macro._meta, { vox_source: "skill", vox_skill_id: "pdf-forms" });
  assert.equal(macro.description, "Instructional macro tool from skill: pdf-forms");
  assert.deepEqual(macro.inputSchema, { type: "object" });
  assert.deepEqual(macro.annotations, { readOnlyHint: true, idempotentHint: true, openWorldHint: false });
  assert.ok(!tools.some((t) => t.name === "scan secrets!"), "an invalid name yields no macro tool");
  const result = await conn.client.callTool({ name: "pdf_fill_form", arguments: {} });
  assert.match(textOf(result), /^This tool is an instruction from skill 'pdf-forms'\. Carry out the steps below yourself\.\n\n# PDF forms\n/);
  const { results } = await ok("vox_tool_search", { query: "pdf form", source: "skill" });
  assert.ok(results.some((r) => r.name === "pdf_fill_form" && r.vox_source === "skill"));
});

test("an active skill restricts calls to its allowlist until it is cleared", async () => {
  const used = await ok("vox_skill_use", { id: "release-notes" });
  assert.equal(used.id, "release-notes");
  assert.match(used.body, /^# Release notes\n/);
  const denial = `["git_log", "vox_check"]`;
  // A macro tool outside the list is denied and does not run.
  const denied = await conn.client.callTool({ name: "pdf_fill_form", arguments: {} });
  assert.equal(denied.isError, true);
  assert.equal(textOf(denied), `Tool 'pdf_fill_form' is not in skill 'release-notes' allowlist ${denial}`);
  // So is every catalog tool that is not infrastructure.
  const { tools } = await conn.client.listTools();
  const infra = (n) => n.startsWith("vox_skill_") || n.startsWith("vox_chat_") || n === "vox_tool_search" || n === "vox_workspace_mcp_refresh";
  for (const t of tools.filter((t) => t._meta?.vox_source === "catalog" && !infra(t.name) && !["git_log", "vox_check"].includes(t.name))) {
    const r = await conn.client.callTool({ name: t.name, arguments: {} });
    assert.equal(textOf(r), `Tool '${t.name}' is not in skill 'release-notes' allowlist ${denial}`);
  }
  // A catalog tool in the list runs.
  const check = await ok("vox_check", { source: "" });
  assert.equal(typeof check.ok, "boolean");
  // Infrastructure stays allowed.
  await ok("vox_tool_search", { query: "skill" });
  await ok("vox_skill_list");
  // Another skill's list replaces this one: now the catalog tool is denied.
  await ok("vox_skill_use", { id: "pdf-forms" });
  const catalogDenied = await conn.client.callTool({ name: "vox_check", arguments: { source: "" } });
  assert.equal(catalogDenied.isError, true);
  assert.equal(textOf(catalogDenied), `Tool 'vox_check' is not in skill 'pdf-forms' allowlist ["pdf_fill_form", "pdf_read_fields"]`);
  // Clearing lifts the restriction.
  assert.deepEqual(await ok("vox_skill_use", { id: "" }), { active: null });
  const allowed = await conn.client.callTool({ name: "pdf_fill_form", arguments: {} });
  assert.equal(allowed.isError, undefined);
});

test("installing a skill adds its macro tool and resources, with list_changed", async () => {
  const toolsChanged = new Promise((resolve) => conn.client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
  const resourcesChanged = new Promise((resolve) => conn.client.setNotificationHandler(ResourceListChangedNotificationSchema, resolve));
  const installed = await ok("vox_skill_install", {
    skill_md: "---\nname: meeting-notes\ndescription: Turns a meeting transcript into notes.\nmetadata:\n  vox-tools: notes_from_transcript\n---\n# Meeting notes\n\nSummarise decisions first.\n",
    files: { "references/format.md": "# Format\n" },
  });
  assert.deepEqual(installed, { id: "meeting-notes", name: "meeting-notes", path: join(skillRoot, "meeting-notes") });
  await toolsChanged;
  await resourcesChanged;
  const { tools } = await conn.client.listTools();
  assert.ok(tools.some((t) => t.name === "notes_from_transcript"));
  const file = await conn.client.readResource({ uri: "skill://meeting-notes/references/format.md" });
  assert.equal(file.contents[0].text, "# Format\n");
  assert.deepEqual(await ok("vox_skill_uninstall", { id: "meeting-notes" }), {
    id: "meeting-notes",
    path: join(skillRoot, "meeting-notes"),
    deleted: false,
  });
});

test("vox_skill_run runs in the sandbox", async () => {
  const res = await ok("vox_skill_run", { id: "commit-message", command: "head -2 skill/SKILL.md; test -e " + repoRoot + " || echo no-repo" });
  assert.deepEqual(res, {
    exit_code: 0,
    stdout: "---\nname: commit-message\nno-repo\n",
    stderr: "",
    timed_out: false,
    truncated: false,
  });
  const bad = await conn.client.callTool({ name: "vox_skill_run", arguments: { id: "commit-message", command: "true", timeout_ms: 300001 } });
  assert.equal(textOf(bad), "argument timeout_ms: want at most 300000, got 300001");
});

test("every skill is a prompt, and the skill file template completes", async () => {
  const { prompts } = await conn.client.listPrompts();
  const release = prompts.find((p) => p.name === "release-notes");
  assert.ok(release, "release-notes is a prompt");
  assert.deepEqual(release.arguments.map((a) => a.name), ["task"]);
  const got = await conn.client.getPrompt({ name: "release-notes", arguments: { task: "notes for v2" } });
  assert.equal(got.messages[0].role, "user");
  assert.match(got.messages[0].content.text, /\n\nTask: notes for v2$/);
  assert.ok(got.messages.slice(1).every((m) => m.content.type === "resource"), "the other messages embed the skill's small files");

  const { resourceTemplates } = await conn.client.listResourceTemplates();
  // The skill file template, beside the repository's own workspace template (examples/files.vox).
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), ["skill://{id}/{+path}", "vox-mcp://examples/files/{+path}"]);
  const ids = await conn.client.complete({ ref: { type: "ref/resource", uri: "skill://{id}/{+path}" }, argument: { name: "id", value: "re" } });
  assert.deepEqual(ids.completion.values, ["release-notes"]);
  const paths = await conn.client.complete({
    ref: { type: "ref/resource", uri: "skill://{id}/{+path}" },
    argument: { name: "path", value: "SKILL" },
    context: { arguments: { id: "pdf-forms" } },
  });
  assert.deepEqual(paths.completion.values, ["SKILL.md"]);
});

test("logging/setLevel is accepted", async () => {
  assert.deepEqual(await conn.client.setLoggingLevel("debug"), {});
});
