// Shared helpers of the end-to-end tests: start the vox-mcp binary built
// by the Go test harness (e2e_test.go) and connect the official
// TypeScript MCP client to it over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
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
