// The official TypeScript SDK peer of the peer benchmark
// (docs/benchmarks.md): @modelcontextprotocol/sdk, as pinned in
// e2e/package.json, serving add(a, b) the way that SDK's documentation
// writes a tool — McpServer.registerTool with a zod input schema, which the
// SDK validates — over stdio or, with --http HOST:PORT, streamable HTTP at
// /mcp with one transport and one McpServer per session (the SDK's
// stateful example). --tools N serves N copies of add (add, add_001, …).
//
// The harness runs it from a scratch folder whose node_modules links to
// e2e/node_modules, so it resolves the pinned SDK without a package of its
// own.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const { values } = parseArgs({
  options: { http: { type: 'string' }, tools: { type: 'string', default: '1' } },
});
const toolCount = Number.parseInt(values.tools, 10);

// toolName is the name of the i-th tool: add, then add_001, add_002, …
function toolName(i) {
  return i === 0 ? 'add' : `add_${String(i).padStart(3, '0')}`;
}

// newServer is one McpServer with the add tools. add answers as vox-mcp
// answers an int result: the number as text and {"result": n} as
// structured content.
function newServer() {
  const server = new McpServer({ name: 'tssdk-peer', version: '1' });
  for (let i = 0; i < toolCount; i++) {
    server.registerTool(
      toolName(i),
      { description: 'Add two integers', inputSchema: { a: z.number().int(), b: z.number().int() } },
      async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
        structuredContent: { result: a + b },
      }),
    );
  }
  return server;
}

if (values.http === undefined) {
  await newServer().connect(new StdioServerTransport());
} else {
  const sep = values.http.lastIndexOf(':');
  const host = values.http.slice(0, sep);
  const port = Number.parseInt(values.http.slice(sep + 1), 10);
  const transports = new Map(); // Mcp-Session-Id → transport

  const readBody = (req) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const httpServer = http.createServer(async (req, res) => {
    try {
      if (new URL(req.url, 'http://x').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const sid = req.headers['mcp-session-id'];
      let body;
      if (req.method === 'POST') {
        body = JSON.parse(await readBody(req));
      }
      let transport = sid === undefined ? undefined : transports.get(sid);
      if (transport === undefined) {
        if (sid !== undefined || req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(sid === undefined ? 400 : 404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no such session' }, id: null }));
          return;
        }
        // JSON responses, the mode vox-mcp and mcp-go answer in; the
        // SDK's default, a one-event SSE stream per response, costs it more.
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
        };
        await newServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    }
  });
  httpServer.listen(port, host);
}
