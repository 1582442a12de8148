// Rich results of workspace tools as the official TypeScript client sees
// them over stdio (docs/tool-results.md §2): content blocks from a tool
// declared `to list[Content]`, structured results from a tool declared
// with a record or map type — which the client validates against the
// listed outputSchema on every call, and which this test validates again
// with the client's own JSON Schema validator — string results unchanged,
// and a resource with a MIME type that is not text read as a blob.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { connect, tempDir, textOf } from "./helpers.mjs";

const richVox = `type Point { x: int, y: int, label: Option[str] }
type Segment { start: Point, end: Point }
type Tree { name: str, children: list[Tree] }

@tool "A picture and its caption"
fn picture(caption: str) to list[Content] {
    [content.text(caption), content.image(fs.read_base64("pixel.png")?, "image/png"),
     content.audio("UklGRg==", "audio/wav"), content.resource("test://doc", "some text"),
     content.resource("test://blob", "AAEC", "application/octet-stream"),
     content.resource_link("test://doc", "doc", "The doc", "text/plain")]
}

@tool "A segment"
fn segment(label: str = "") to Segment {
    let end = Point { x: 3, y: 4 }
    if label != "" { end.label = Some(label) }
    Segment { start: Point { x: 0, y: 0 }, end: end }
}

@tool "A tree"
fn tree(depth: int) to Result[Tree, str] {
    if depth < 0 { return Err("depth must not be negative") }
    let mut t = Tree { name: "leaf", children: [] }
    for i in range(depth) { t = Tree { name: "level " + str(i), children: [t, t] } }
    Ok(t)
}

@tool "Counts by word"
fn counts(text: str) to map[str, int] {
    let m = {}
    for w in text.split() { m[w] = m.get(w, 0) + 1 }
    m
}

@tool "A segment that lies about its type"
fn liar() to Segment { {start: {x: 0, y: 0}, end: {x: "three", y: 4}} }

@tool "A string stays as it was"
fn hello() to str { "hi" }

@resource("test://static-binary", "A PNG", "image/png")
fn pixel() to str { fs.read_base64("pixel.png")? }
`;

const pixel = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]);

const roots = [];
const conns = [];
after(async () => {
  for (const c of conns) await c.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

async function start() {
  const root = tempDir("vox-e2e-content-");
  roots.push(root);
  const files = {
    "contracts/mcp/workspace-mcp-surface.v1.yaml": 'scan_globs: ["tools/**/*.vox"]\n',
    "tools/rich.vox": richVox,
    "pixel.png": pixel,
  };
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
  const c = await connect({ root, args: ["--workspace-tools"] });
  conns.push(c);
  await c.client.callTool({ name: "hello", arguments: {} }); // after the first scan
  return c.client;
}

test("content blocks, structured results checked against their outputSchema, and blob resources", async () => {
  const client = await start();
  // listTools makes the client validate structured results from now on.
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.picture.outputSchema, undefined, "a Content tool lists no outputSchema");
  assert.deepEqual(byName.hello.outputSchema, { type: "object", properties: { result: { type: "string" } }, required: ["result"], "x-vox-wrap-result": true });
  assert.deepEqual(byName.liar.outputSchema, byName.segment.outputSchema);
  assert.deepEqual(byName.counts.outputSchema, { type: "object", additionalProperties: { type: "integer" } });
  assert.deepEqual(byName.segment.outputSchema.$defs.Point.properties.label, { anyOf: [{ type: "string" }, { type: "null" }] });
  assert.deepEqual(byName.segment.outputSchema.properties.start, { $ref: "#/$defs/Point" });
  assert.deepEqual(byName.tree.outputSchema.properties.children, { type: "array", items: { $ref: "#/$defs/Tree" } });

  const picture = await client.callTool({ name: "picture", arguments: { caption: "a pixel" } });
  assert.equal(picture.isError, undefined, JSON.stringify(picture));
  assert.equal(picture.structuredContent, undefined);
  assert.deepEqual(picture.content, [
    { type: "text", text: "a pixel" },
    { type: "image", data: pixel.toString("base64"), mimeType: "image/png" },
    { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    { type: "resource", resource: { uri: "test://doc", mimeType: "text/plain", text: "some text" } },
    { type: "resource", resource: { uri: "test://blob", mimeType: "application/octet-stream", blob: "AAEC" } },
    { type: "resource_link", uri: "test://doc", name: "doc", description: "The doc", mimeType: "text/plain" },
  ]);
  assert.deepEqual(Buffer.from(picture.content[1].data, "base64"), pixel);

  const ajv = new AjvJsonSchemaValidator();
  for (const [name, args, want] of [
    ["segment", {}, { start: { x: 0, y: 0, label: null }, end: { x: 3, y: 4, label: null } }],
    ["segment", { label: "end" }, { start: { x: 0, y: 0, label: null }, end: { x: 3, y: 4, label: "end" } }],
    ["counts", { text: "a b a" }, { a: 2, b: 1 }],
    ["tree", { depth: 1 }, { name: "level 0", children: [{ name: "leaf", children: [] }, { name: "leaf", children: [] }] }],
  ]) {
    // callTool itself throws when structuredContent does not match the
    // listed outputSchema.
    const res = await client.callTool({ name, arguments: args });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.deepEqual(res.structuredContent, want);
    assert.deepEqual(JSON.parse(textOf(res)), res.structuredContent, "the text block is the serialized structured content");
    const check = ajv.getValidator(byName[name].outputSchema);
    assert.equal(check(res.structuredContent).valid, true, `${name}: ${check(res.structuredContent).errorMessage}`);
    // The validator is not vacuous: a value of the wrong shape fails it.
    assert.equal(check({ ...res.structuredContent, extra: [] }).valid, false);
  }
  const err = await client.callTool({ name: "tree", arguments: { depth: -1 } });
  assert.equal(err.isError, true);
  assert.equal(textOf(err), "depth must not be negative");
  const liar = await client.callTool({ name: "liar", arguments: {} });
  assert.equal(liar.isError, true);
  assert.equal(liar.structuredContent, undefined);
  assert.equal(textOf(liar), "tools/rich.vox:36:14: the result does not match its declared type Segment: result.end.x: want int, got string");

  const hello = await client.callTool({ name: "hello", arguments: {} });
  assert.equal(textOf(hello), "hi");
  assert.deepEqual(hello.structuredContent, { result: "hi" });

  const { resources } = await client.listResources();
  assert.equal(resources.find((r) => r.uri === "test://static-binary").mimeType, "image/png");
  const read = await client.readResource({ uri: "test://static-binary" });
  assert.deepEqual(read.contents, [{ uri: "test://static-binary", mimeType: "image/png", blob: pixel.toString("base64") }]);
});
