// The client's own logic, without VS Code (which CI cannot run): the
// modules `vscode` and `vscode-languageclient/node` are replaced by
// recording fakes, and extension.js is loaded as VS Code loads it. What
// the real client then speaks is the protocol of `vox lsp`, tested over
// the wire by e2e/lsp with the library under vscode-languageclient.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Module = require("node:module");
const here = path.dirname(fileURLToPath(import.meta.url));
const extension = path.join(here, "..", "extension.js");

// load returns extension.js bound to fakes: settings is what
// getConfiguration("vox.lsp") answers, and the returned log records the
// clients made, started and stopped and the errors shown.
function load(settings) {
  const log = { clients: [], errors: [], configListeners: [] };
  const vscode = {
    workspace: {
      getConfiguration(section) {
        assert.equal(section, "vox.lsp");
        return { get: (key, dflt) => (key in settings ? settings[key] : dflt) };
      },
      onDidChangeConfiguration(fn) {
        log.configListeners.push(fn);
        return { dispose() {} };
      },
    },
    window: {
      createOutputChannel: (name) => ({ name, dispose() {} }),
      showErrorMessage: (msg) => log.errors.push(msg),
    },
  };
  class LanguageClient {
    constructor(id, name, server, client) {
      Object.assign(this, { id, name, server, client, started: false, stopped: false });
      log.clients.push(this);
    }
    async start() {
      if (settings.failStart) throw new Error("spawn vox ENOENT");
      this.started = true;
    }
    async stop() {
      this.stopped = true;
    }
  }
  const fakes = {
    vscode,
    "vscode-languageclient/node": { LanguageClient, TransportKind: { stdio: 0 } },
  };
  const orig = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request in fakes) return fakes[request];
    return orig.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[extension];
    return { ext: require(extension), log };
  } finally {
    Module._load = orig;
  }
}

const context = () => ({ subscriptions: [] });

test("activate starts vox lsp for vox documents, with the default settings", async () => {
  const { ext, log } = load({});
  await ext.activate(context());
  assert.equal(log.clients.length, 1);
  const c = log.clients[0];
  assert.deepEqual(c.server, { command: "vox", args: ["lsp"], transport: 0 });
  assert.deepEqual(c.client.documentSelector.map((s) => s.language), ["vox", "vox"]);
  assert.ok(c.started);
  await ext.deactivate();
  assert.ok(c.stopped);
});

test("vox.lsp.path and vox.lsp.args choose the command, and a change restarts it", async () => {
  const settings = { path: "/opt/vox/bin/vox", args: ["lsp", "--verbose"] };
  const { ext, log } = load(settings);
  await ext.activate(context());
  assert.deepEqual(log.clients[0].server.command, "/opt/vox/bin/vox");
  assert.deepEqual(log.clients[0].server.args, ["lsp", "--verbose"]);

  settings.path = "/usr/local/bin/vox";
  await log.configListeners[0]({ affectsConfiguration: (s) => s === "vox.lsp" });
  assert.equal(log.clients.length, 2);
  assert.ok(log.clients[0].stopped, "the old server is stopped");
  assert.equal(log.clients[1].server.command, "/usr/local/bin/vox");
  assert.ok(log.clients[1].started);

  // Another setting changing leaves the server alone.
  await log.configListeners[0]({ affectsConfiguration: () => false });
  assert.equal(log.clients.length, 2);
});

test("a server that does not start is an error message naming the command and the setting", async () => {
  const { ext, log } = load({ path: "vox-missing", failStart: true });
  await ext.activate(context());
  assert.equal(log.errors.length, 1);
  assert.match(log.errors[0], /vox-missing lsp/);
  assert.match(log.errors[0], /vox\.lsp\.path/);
});
