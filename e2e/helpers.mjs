// Shared helpers of the end-to-end tests: start the vox-mcp binary built
// by the Go test harness (e2e_test.go) and connect the official
// TypeScript MCP client to it over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const bin = process.env.VOX_MCP_BIN;
export const repoRoot = process.env.VOX_REPO_ROOT;
if (!bin || !repoRoot) {
  throw new Error("run the end-to-end tests through `go test ./e2e` (it builds vox-mcp and sets VOX_MCP_BIN)");
}

/** A fresh empty folder. */
export function tempDir(prefix = "vox-e2e-") {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Start vox-mcp and connect a client. Skill discovery is pointed at an
 * empty folder unless env says otherwise, so no test sees the machine's
 * own skills. Returns { client, stderr(), close() }.
 */
export async function connect({ root = repoRoot, args = [], env = {} } = {}) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["--root", root, ...args],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      VOX_SKILL_ROOTS: tempDir("vox-e2e-skills-"),
      VOX_LOG: "debug",
      ...env,
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "vox-e2e", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** The text of a tool result's single text content. */
export function textOf(result) {
  if (!Array.isArray(result.content) || result.content.length !== 1 || result.content[0].type !== "text") {
    throw new Error(`want one text content, got ${JSON.stringify(result.content)}`);
  }
  return result.content[0].text;
}

/**
 * Start `vox-mcp --http 127.0.0.1:0` (a free loopback port) and wait for
 * the log line that gives its URL. Returns { url, stderr(), stop() }.
 */
export async function startHTTP({ root = repoRoot, args = [], env = {} } = {}) {
  const child = spawn(bin, ["--root", root, "--http", "127.0.0.1:0", ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      VOX_SKILL_ROOTS: tempDir("vox-e2e-skills-"),
      VOX_LOG: "info",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vox-mcp --http did not start:\n${stderr}`)), 30000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk.toString();
      const m = stderr.match(/url=(http:\/\/\S+\/mcp)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`vox-mcp --http exited with ${code}:\n${stderr}`));
    });
  });
  return {
    url,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill("SIGTERM");
      }),
  };
}

/** Connect the TypeScript client over streamable HTTP, with a bearer token when given. */
export async function connectHTTP(url, token) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "vox-e2e-http", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}
