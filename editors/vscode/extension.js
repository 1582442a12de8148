// The Vox extension's client: it starts `vox lsp` (the binary and
// arguments from the settings vox.lsp.path and vox.lsp.args) over stdio
// for every `vox` document. Plain CommonJS so that the extension ships
// as written, with no build step; the grammar and the language
// configuration are contributed by package.json alone.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

// serverOptions reads the settings each time the server starts, so a
// restart after a change of vox.lsp.path picks the new binary.
function serverOptions() {
  const config = vscode.workspace.getConfiguration("vox.lsp");
  const command = config.get("path", "vox") || "vox";
  const args = config.get("args", ["lsp"]);
  return { command, args: Array.isArray(args) ? args : ["lsp"], transport: TransportKind.stdio };
}

async function start(context) {
  const output = vscode.window.createOutputChannel("Vox Language Server");
  context.subscriptions.push(output);
  client = new LanguageClient(
    "vox",
    "Vox Language Server",
    serverOptions(),
    {
      documentSelector: [
        { scheme: "file", language: "vox" },
        { scheme: "untitled", language: "vox" },
      ],
      outputChannel: output,
    },
  );
  try {
    await client.start();
  } catch (err) {
    const opts = serverOptions();
    vscode.window.showErrorMessage(
      `Vox: could not start the language server \`${opts.command} ${opts.args.join(" ")}\`: ${err.message}. ` +
        "Install vox (see the repository's README) or set vox.lsp.path.",
    );
  }
}

exports.activate = async function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration("vox.lsp")) return;
      if (client) await client.stop().catch(() => {});
      client = undefined;
      await start(context);
    }),
  );
  await start(context);
};

exports.deactivate = function deactivate() {
  return client ? client.stop() : undefined;
};
