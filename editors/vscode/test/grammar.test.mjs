// Tokenizes Vox with the TextMate grammar (syntaxes/vox.tmLanguage.json)
// through vscode-textmate and vscode-oniguruma, the libraries VS Code
// itself highlights with, so what passes here is what the editor shows.
//
// - Every test/testdata/NAME.vox is compared with test/testdata/NAME.tokens:
//   each line of the input, then its tokens with their scopes (the root
//   source.vox left out). VOX_UPDATE_GOLDEN=1 rewrites the .tokens files
//   (go test ./e2e/editors -run TestVSCodeGrammar -update does).
// - Every .vox file of the repository and every ```vox block of
//   docs/vox-language.md tokenizes back to the top level by its end: a
//   string, tag or bracket region the grammar opened and never closed
//   would colour the rest of a file wrongly.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const here = path.dirname(fileURLToPath(import.meta.url));
const extRoot = path.dirname(here);
const repoRoot = path.resolve(extRoot, "..", "..");
// Under testdata/, which the workspace scan excludes by default: these
// files declare tools that are no part of this repository's surface.
const goldenDir = path.join(here, "testdata");
const update = process.env.VOX_UPDATE_GOLDEN === "1";

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== "source.vox") return null;
      const file = path.join(extRoot, "syntaxes", "vox.tmLanguage.json");
      return vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file);
    },
  });
  return registry.loadGrammar("source.vox");
}

const grammarPromise = loadGrammar();

// tokenize returns the tokens of each line and the rule stack after the
// last line.
function tokenize(grammar, text) {
  let stack = vsctm.INITIAL;
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const out = [];
  for (const line of lines) {
    const r = grammar.tokenizeLine(line, stack);
    out.push({
      line,
      tokens: r.tokens.map((t) => ({
        text: line.slice(t.startIndex, t.endIndex),
        scopes: t.scopes.filter((s) => s !== "source.vox"),
      })),
    });
    stack = r.ruleStack;
  }
  return { lines: out, stack };
}

// render writes the tokenization in the .tokens format: each input line
// as `N| text`, then one token a line, `  "text" scope scope ...`;
// blanks with no scope of their own are left out.
function render(lines) {
  const out = [];
  lines.forEach(({ line, tokens }, i) => {
    out.push(`${i + 1}| ${line}`);
    for (const t of tokens) {
      if (t.scopes.length === 0 && t.text.trim() === "") continue;
      out.push(`  ${JSON.stringify(t.text)} ${t.scopes.join(" ")}`.trimEnd());
    }
  });
  return out.join("\n") + "\n";
}

const goldens = fs.readdirSync(goldenDir).filter((f) => f.endsWith(".vox")).sort();

test("there are golden inputs", () => {
  assert.ok(goldens.length >= 5, `only ${goldens.length} golden inputs in ${goldenDir}`);
});

for (const name of goldens) {
  test(`golden ${name}`, async () => {
    const grammar = await grammarPromise;
    const src = fs.readFileSync(path.join(goldenDir, name), "utf8");
    const { lines, stack } = tokenize(grammar, src);
    const got = render(lines);
    const want = path.join(goldenDir, name.replace(/\.vox$/, ".tokens"));
    if (update) fs.writeFileSync(want, got);
    assert.ok(fs.existsSync(want), `${want} is missing: run with VOX_UPDATE_GOLDEN=1`);
    assert.equal(got, fs.readFileSync(want, "utf8"), `${name}: the tokens differ from ${path.basename(want)} (VOX_UPDATE_GOLDEN=1 rewrites it; review the diff)`);
    assert.equal(stack.depth, 1, `${name}: a region is still open at the end of the file`);
  });
}

// scopeAt returns the scopes of the token of a golden tokenization that
// covers the given text on the given line: the spot checks below state,
// independently of the .tokens files, what the goldens must keep.
function scopesOf(lines, lineText, tokenText) {
  const l = lines.find((x) => x.line.includes(lineText));
  assert.ok(l, `no line containing ${JSON.stringify(lineText)}`);
  const t = l.tokens.find((x) => x.text === tokenText);
  assert.ok(t, `no token ${JSON.stringify(tokenText)} on line ${JSON.stringify(l.line)}: ${JSON.stringify(l.tokens)}`);
  return t.scopes;
}

test("spot checks of what each construct is coloured as", async () => {
  const grammar = await grammarPromise;
  const src = [
    '@tool "Greet {name}"',
    "fn greet(name: str, times: int = 1) to str {",
    '    let mut s = "Hello, {name}! {{x}} \\n" + r#"raw {name}"#',
    "    // a comment",
    "    # another",
    "    let n = 1.5e3 + 19.99dec + 42",
    "    match s { Some(x) if x > 3 => x, _ => None }",
    "    xs |> f(1)?",
    "}",
  ].join("\n");
  const { lines, stack } = tokenize(grammar, src);
  assert.equal(stack.depth, 1);
  assert.deepEqual(scopesOf(lines, "@tool", "@"), ["meta.decorator.vox", "punctuation.definition.decorator.vox"]);
  assert.ok(scopesOf(lines, "@tool", "tool").includes("entity.name.function.decorator.vox"));
  // A description is never a template: its braces are plain text.
  assert.ok(scopesOf(lines, "@tool", "Greet {name}").includes("string.quoted.double.vox"));
  assert.ok(scopesOf(lines, "fn greet", "fn").includes("storage.type.function.vox"));
  assert.ok(scopesOf(lines, "fn greet", "greet").includes("entity.name.function.vox"));
  assert.ok(scopesOf(lines, "fn greet", "name").includes("variable.parameter.vox"));
  assert.ok(scopesOf(lines, "fn greet", "times").includes("variable.parameter.vox"));
  assert.ok(scopesOf(lines, "fn greet", "str").includes("support.type.vox"));
  assert.ok(scopesOf(lines, "fn greet", "to").includes("keyword.other.to.vox"));
  assert.ok(scopesOf(lines, "let mut s", "name").includes("variable.other.interpolated.vox"));
  assert.ok(scopesOf(lines, "let mut s", "\\n").includes("constant.character.escape.vox"));
  assert.ok(scopesOf(lines, "let mut s", "{{").includes("string.quoted.double.vox"));
  assert.ok(!scopesOf(lines, "let mut s", "x").includes("variable.other.interpolated.vox"), "{{x}} is not an interpolation");
  assert.ok(scopesOf(lines, "let mut s", "raw {name}").includes("string.quoted.raw.vox"));
  assert.ok(scopesOf(lines, "let mut s", "mut").includes("storage.modifier.mut.vox"));
  assert.ok(scopesOf(lines, "// a comment", " a comment").includes("comment.line.double-slash.vox"));
  assert.ok(scopesOf(lines, "# another", " another").includes("comment.line.number-sign.vox"));
  assert.ok(scopesOf(lines, "1.5e3", "1.5e3").includes("constant.numeric.float.vox"));
  assert.ok(scopesOf(lines, "1.5e3", "19.99dec").includes("constant.numeric.decimal.vox"));
  assert.ok(scopesOf(lines, "1.5e3", "42").includes("constant.numeric.integer.vox"));
  assert.ok(scopesOf(lines, "match s", "match").includes("keyword.control.vox"));
  assert.ok(scopesOf(lines, "match s", "=>").includes("keyword.operator.arrow.vox"));
  assert.ok(scopesOf(lines, "match s", "None").includes("constant.language.none.vox"));
  assert.ok(scopesOf(lines, "xs |>", "|>").includes("keyword.operator.pipe.vox"));
  assert.ok(scopesOf(lines, "xs |>", "?").includes("keyword.operator.try.vox"));
});

// The lexer's reserved words (internal/vox/syntax), passed by the Go test
// (VOX_KEYWORDS): each is coloured as a keyword, a storage word or a
// language constant wherever an expression may stand.
test("every reserved word of the lexer is coloured as one", async () => {
  const words = (process.env.VOX_KEYWORDS || "").split(",").filter(Boolean);
  assert.ok(words.length >= 20, "VOX_KEYWORDS lists the lexer's keywords: run through go test ./e2e/editors -run TestVSCodeGrammar");
  const grammar = await grammarPromise;
  const missed = [];
  for (const w of words) {
    const { lines } = tokenize(grammar, `fn f() {\n    x ${w} y\n}`);
    const t = lines[1].tokens.find((t) => t.text === w);
    if (!t || !t.scopes.some((s) => /^(keyword|storage|constant\.language)\./.test(s))) missed.push(w);
  }
  assert.deepEqual(missed, [], "these reserved words are not coloured as keywords");
});

// corpus lists the repository's .vox files (tests, examples, fixtures).
function corpus() {
  const found = [];
  const skip = new Set(["node_modules", ".git", "editors"]);
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (skip.has(e.name)) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".vox")) found.push(p);
    }
  })(repoRoot);
  return found.sort();
}

// These files are broken on purpose, to test the checker's errors: an
// unclosed string or brackets runs to the end of the file in Vox as in
// the grammar.
const brokenOnPurpose = new Set([
  "internal/vox/testdata/check/lexer.vox", // "never closed
  "internal/vox/testdata/check/parse.vox", // this is not vox {{{
  "internal/vox/testdata/check/tolerance.vox", // 'unterminated in a skipped body
]);

test("every .vox file of the repository ends at the top level", async () => {
  const grammar = await grammarPromise;
  const files = corpus();
  assert.ok(files.length >= 50, `only ${files.length} .vox files found under ${repoRoot}`);
  const open = [];
  for (const f of files) {
    const rel = path.relative(repoRoot, f).split(path.sep).join("/");
    const { stack } = tokenize(grammar, fs.readFileSync(f, "utf8"));
    if ((stack.depth !== 1) !== brokenOnPurpose.has(rel)) open.push(`${rel}: ${stack.depth === 1 ? "closed, but listed as broken on purpose" : "left open"}`);
  }
  assert.deepEqual(open, [], "these files end in another state than expected");
});

test("every ```vox block of docs/vox-language.md ends at the top level", async () => {
  const grammar = await grammarPromise;
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "vox-language.md"), "utf8");
  const blocks = [...doc.matchAll(/^( *)```vox\n([\s\S]*?)^\1```/gm)].map((m) => m[2]);
  assert.ok(blocks.length >= 10, `only ${blocks.length} vox blocks in docs/vox-language.md`);
  const open = [];
  blocks.forEach((b, i) => {
    const { stack } = tokenize(grammar, b);
    if (stack.depth !== 1) open.push(`block ${i + 1}: ${b.split("\n")[0]}`);
  });
  assert.deepEqual(open, [], "these blocks leave a region of the grammar open at their end");
});

// The language configuration is what VS Code applies while typing; its
// regular expressions are checked here on the lines they are for.
test("the language configuration", () => {
  const conf = JSON.parse(fs.readFileSync(path.join(extRoot, "language-configuration.json"), "utf8"));
  // Vox comments are // and # to the end of the line, and nothing else
  // (Lexical rules): no block comment to toggle.
  assert.deepEqual(conf.comments, { lineComment: "//" });
  const pairs = (list) => list.map((p) => (Array.isArray(p) ? p.join("") : p.open + p.close)).sort();
  assert.deepEqual(pairs(conf.brackets), ["()", "[]", "{}"]);
  assert.deepEqual(pairs(conf.autoClosingPairs), ['""', "''", "()", "[]", "{}"]);
  assert.deepEqual(pairs(conf.surroundingPairs), ['""', "''", "()", "[]", "{}"]);
  // Quotes do not auto-close inside strings and comments (an apostrophe
  // in a comment is text).
  for (const p of conf.autoClosingPairs.filter((p) => p.open === '"' || p.open === "'")) {
    assert.deepEqual(p.notIn.sort(), ["comment", "string"]);
  }
  const increase = new RegExp(conf.indentationRules.increaseIndentPattern);
  const decrease = new RegExp(conf.indentationRules.decreaseIndentPattern);
  for (const line of ["fn greet(name: str) to str {", "    let xs = [", "    let r = call(", "    match s {  // the arms", "type Point {"]) {
    assert.ok(increase.test(line), `the line after ${JSON.stringify(line)} is not indented`);
  }
  for (const line of ['    let o = {a: 1, b: "{"}', "    f(x)", "}", '    "{name}"', "    xs[0] = 1"]) {
    assert.ok(!increase.test(line), `the line after ${JSON.stringify(line)} is indented`);
  }
  for (const line of ["}", "    ]", "  )", "} else {"]) {
    assert.ok(decrease.test(line), `${JSON.stringify(line)} is not outdented`);
  }
  for (const line of ["    x", "    let y = {}"]) {
    assert.ok(!decrease.test(line), `${JSON.stringify(line)} is outdented`);
  }
  const word = new RegExp(`^(?:${conf.wordPattern})$`);
  for (const w of ["total", "_x1", "19.99dec", "1.5e3", "42"]) {
    assert.ok(word.test(w), `${w} is not one word`);
  }
});
