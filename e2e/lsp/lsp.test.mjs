// `vox lsp` driven by an independent client: Microsoft's
// vscode-languageserver-protocol over vscode-jsonrpc, as editors built on
// them speak it, over the stdio of a spawned `vox lsp`. Run through
// `go test ./e2e -run TestLSPClient`, which builds vox and sets VOX_BIN.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import protocol from "vscode-languageserver-protocol/node";

const {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  PublishDiagnosticsNotification,
  HoverRequest,
  DefinitionRequest,
  CompletionRequest,
  SignatureHelpRequest,
  CodeActionRequest,
  DocumentSymbolRequest,
  WorkspaceSymbolRequest,
  ReferencesRequest,
  PrepareRenameRequest,
  RenameRequest,
  InlayHintRequest,
  FoldingRangeRequest,
  SemanticTokensRequest,
  ShutdownRequest,
  ExitNotification,
} = protocol;

const bin = process.env.VOX_BIN;
if (!bin) {
  throw new Error("run this test through `go test ./e2e -run TestLSPClient` (it builds vox and sets VOX_BIN)");
}

const uri = "file:///project/tools/greet.vox";

// A tool with a typo: totl is undefined (a warning reached from a tool),
// and a record literal with a field Point does not have (an error).
const text = [
  "type Point { x: int, y: int }",
  "",
  '@tool "Greet someone by name"',
  "fn greet(name: str, times: int = 1) to str {",
  '    let greeting = "Hello, " + name',
  "    let p = Point { x: 1, z: 2 }",
  "    greeting.repeat(times) + totl",
  "}",
  "",
].join("\n");

/** The position of the k-th character of the first `needle` in s. */
function at(s, needle, k = 0) {
  const i = s.indexOf(needle);
  assert.ok(i >= 0, `${needle} is not in the text`);
  const before = s.slice(0, i + k);
  const line = before.split("\n").length - 1;
  return { line, character: before.length - (before.lastIndexOf("\n") + 1) };
}

function start() {
  const child = spawn(bin, ["lsp"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published = [];
  const waiters = [];
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
    published.push(p);
    waiters.splice(0).forEach((w) => w());
  });
  conn.listen();
  /** The next diagnostics published for uri after `n` had been seen. */
  async function diagnostics(n) {
    while (published.filter((p) => p.uri === uri).length <= n) {
      await new Promise((resolve, reject) => {
        waiters.push(resolve);
        setTimeout(() => reject(new Error(`no diagnostics within 10s; stderr: ${stderr}`)), 10000).unref();
      });
    }
    return published.filter((p) => p.uri === uri)[n];
  }
  return { conn, child, exited, diagnostics, stderr: () => stderr };
}

test("vox lsp over stdio with vscode-languageserver-protocol", async (t) => {
  const { conn, child, exited, diagnostics, stderr } = start();
  // A failed assertion must not leave the server running (the test
  // runner would wait for it).
  t.after(() => {
    conn.dispose();
    child.kill();
  });

  const init = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: "file:///project",
    capabilities: {},
  });
  assert.equal(init.serverInfo.name, "vox lsp");
  assert.equal(init.capabilities.hoverProvider, true);
  assert.equal(init.capabilities.definitionProvider, true);
  assert.deepEqual(init.capabilities.completionProvider.triggerCharacters, [".", "@"]);
  assert.ok(init.capabilities.signatureHelpProvider.triggerCharacters.includes("("));
  for (const c of ["documentSymbolProvider", "workspaceSymbolProvider", "referencesProvider", "foldingRangeProvider", "inlayHintProvider"]) {
    assert.equal(init.capabilities[c], true, c);
  }
  assert.deepEqual(init.capabilities.renameProvider, { prepareProvider: true });
  const legend = init.capabilities.semanticTokensProvider.legend;
  assert.equal(init.capabilities.semanticTokensProvider.full, true);
  await conn.sendNotification(InitializedNotification.type, {});

  // Diagnostics on open: the record field error and the undefined name.
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "vox", version: 1, text },
  });
  const opened = await diagnostics(0);
  assert.equal(opened.version, 1);
  const field = opened.diagnostics.find((d) => d.code === "vox/resolve/record-field" && d.message.includes("no field z"));
  assert.ok(field, JSON.stringify(opened.diagnostics));
  assert.equal(field.severity, 1);
  assert.match(field.message, /record Point has no field z: its fields are x, y/);
  assert.deepEqual(field.range.start, at(text, "z: 2"));
  const undef = opened.diagnostics.find((d) => d.code === "vox/name/undefined");
  assert.ok(undef, JSON.stringify(opened.diagnostics));
  assert.deepEqual(undef.range, { start: at(text, "totl"), end: at(text, "totl", 4) });

  // Diagnostics on change: an incremental edit fixes the field.
  await conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: at(text, "z: 2"), end: at(text, "z: 2", 1) }, text: "y" }],
  });
  const changed = await diagnostics(1);
  assert.equal(changed.version, 2);
  assert.equal(changed.diagnostics.filter((d) => d.code === "vox/resolve/record-field").length, 0);
  const fixed = text.replace("z: 2", "y: 2");

  // Hover: a parameter's type, a function's signature, a method's.
  const hoverName = await conn.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: at(fixed, "+ name", 3),
  });
  assert.match(hoverName.contents.value, /\(parameter\) name: str/);
  const hoverFn = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: at(fixed, "fn greet", 4) });
  assert.match(hoverFn.contents.value, /fn greet\(name: str, times: int = 1\) to str/);
  const hoverMethod = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: at(fixed, "repeat", 2) });
  assert.match(hoverMethod.contents.value, /str\.repeat\(n: int = 1\) to str/);

  // Definition: the use of greeting goes to its let.
  const def = await conn.sendRequest(DefinitionRequest.type, {
    textDocument: { uri },
    position: at(fixed, "greeting.repeat", 2),
  });
  assert.equal(def.uri, uri);
  assert.deepEqual(def.range.start, at(fixed, "greeting ="));

  // Completion: after "greeting." the str methods; at a name the locals
  // and builtins.
  const line = at(fixed, "greeting.repeat").line;
  const members = await conn.sendRequest(CompletionRequest.type, {
    textDocument: { uri },
    position: { line, character: at(fixed, "greeting.repeat", "greeting.".length).character },
  });
  const memberLabels = members.items.map((i) => i.label);
  for (const m of ["repeat", "trim", "split", "to_upper"]) {
    assert.ok(memberLabels.includes(m), `methods lack ${m}: ${memberLabels}`);
  }
  const names = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: at(fixed, "totl") });
  const nameLabels = names.items.map((i) => i.label);
  for (const n of ["greeting", "name", "times", "greet", "len", "fs", "Point"]) {
    assert.ok(nameLabels.includes(n), `names lack ${n}`);
  }

  // Signature help inside greeting.repeat(|times).
  const sig = await conn.sendRequest(SignatureHelpRequest.type, {
    textDocument: { uri },
    position: at(fixed, "repeat(", "repeat(".length),
  });
  assert.equal(sig.signatures[sig.activeSignature].label, "str.repeat(n: int = 1) to str");
  assert.equal(sig.activeParameter, 0);

  // Code action: the fix of "cannot assign twice" edits the let, and is
  // offered with the cursor on the assignment's line.
  const mutText = '@tool "t"\nfn t() to int {\n    let n = 1\n    print(n)\n    n = 2\n    n\n}\n';
  const mutURI = "file:///project/tools/mut.vox";
  await conn.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri: mutURI, languageId: "vox", version: 1, text: mutText },
  });
  const cursor = at(mutText, "n = 2", 2);
  const actions = await conn.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: mutURI },
    range: { start: cursor, end: cursor },
    context: { diagnostics: [] },
  });
  assert.equal(actions.length, 1, JSON.stringify(actions));
  assert.deepEqual(actions[0].edit.changes[mutURI], [{ range: { start: at(mutText, "n = 1"), end: at(mutText, "n = 1") }, newText: "mut " }]);

  // Symbols: the record with its fields, the tool; across open documents.
  const symbols = await conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
  assert.deepEqual(symbols.map((s) => s.name), ["Point", "greet"]);
  assert.deepEqual(symbols[0].children.map((c) => c.name), ["x", "y"]);
  assert.deepEqual(symbols[1].selectionRange.start, at(fixed, "greet("));
  const found = await conn.sendRequest(WorkspaceSymbolRequest.type, { query: "gre" });
  assert.deepEqual(found.map((s) => s.name), ["greet"]);

  // References and rename of greeting.
  const refs = await conn.sendRequest(ReferencesRequest.type, {
    textDocument: { uri },
    position: at(fixed, "greeting.repeat"),
    context: { includeDeclaration: true },
  });
  assert.deepEqual(refs.map((r) => r.range.start), [at(fixed, "greeting ="), at(fixed, "greeting.repeat")]);
  const prep = await conn.sendRequest(PrepareRenameRequest.type, { textDocument: { uri }, position: at(fixed, "greeting =") });
  assert.equal(prep.placeholder, "greeting");
  const edit = await conn.sendRequest(RenameRequest.type, { textDocument: { uri }, position: at(fixed, "greeting ="), newName: "hello" });
  assert.equal(edit.changes[uri].length, 2);
  await assert.rejects(
    conn.sendRequest(RenameRequest.type, { textDocument: { uri }, position: at(fixed, "greeting ="), newName: "name" }),
    /name is already a local of the same function/,
  );

  // Inlay hints: the inferred types of greeting and p after their names.
  const hints = await conn.sendRequest(InlayHintRequest.type, {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 99, character: 0 } },
  });
  assert.deepEqual(hints.map((h) => [h.position, h.label]), [
    [at(fixed, "greeting =", "greeting".length), ": str"],
    [at(fixed, "p =", 1), ": Point"],
  ]);

  // Folding: the tool's body, to the line before its closing brace.
  const folds = await conn.sendRequest(FoldingRangeRequest.type, { textDocument: { uri } });
  assert.deepEqual(folds.map((f) => [f.startLine, f.endLine]), [[at(fixed, "fn greet").line, at(fixed, "\n}").line]]);

  // Semantic tokens: the first line, type Point { x: int, y: int }.
  const tokens = await conn.sendRequest(SemanticTokensRequest.type, { textDocument: { uri } });
  const first = [];
  for (let i = 0; i < 5 * 6; i += 5) {
    first.push(legend.tokenTypes[tokens.data[i + 3]]);
  }
  assert.deepEqual(first, ["keyword", "type", "property", "type", "property", "type"]);

  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  assert.equal(await exited, 0, `vox lsp exited non-zero; stderr: ${stderr()}`);
});
