'use strict';
// The debug adapter descriptor factory: VS Code asks it how to reach the
// debug adapter of a session. A launch runs `nlangdbg dap` (DAP on
// stdin/stdout); an attach connects over TCP to a program started with
// `nlangdbg run --listen HOST:PORT prog.n`.

const { findDebugger, SETTING } = require('./find');

const DEFAULT_HOST = '127.0.0.1';

/**
 * folderOf returns the file system path of the session's workspace
 * folder, or of the first one open, or undefined.
 */
function folderOf(vscode, session) {
  const f = session && session.workspaceFolder;
  if (f && f.uri) return f.uri.fsPath;
  const all = vscode.workspace.workspaceFolders;
  return all && all.length > 0 ? all[0].uri.fsPath : undefined;
}

/** A vscode.DebugAdapterDescriptorFactory for the debug type `nlang`. */
class NLangDebugAdapterFactory {
  /**
   * @param {typeof import('vscode')} vscode the VS Code API
   * @param {object} [options]
   * @param {Function} [options.find] findDebugger or a stand-in
   * @param {NodeJS.ProcessEnv} [options.env]
   * @param {string} [options.platform]
   */
  constructor(vscode, options = {}) {
    this.vscode = vscode;
    this.find = options.find || findDebugger;
    this.env = options.env;
    this.platform = options.platform;
  }

  /**
   * createDebugAdapterDescriptor returns a DebugAdapterServer for an
   * attach and a DebugAdapterExecutable running `nlangdbg dap` for a
   * launch. It throws an Error (which VS Code shows) when the binary
   * cannot be found or the attach port is missing.
   */
  createDebugAdapterDescriptor(session) {
    const vscode = this.vscode;
    const config = session.configuration || {};
    if (config.request === 'attach') {
      const port = Number(config.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535) {
        throw new Error(
          `NLang attach: "port" must be the port of \`nlangdbg run --listen HOST:PORT prog.n\` (1-65535), got ${JSON.stringify(config.port)}`,
        );
      }
      return new vscode.DebugAdapterServer(port, config.host || DEFAULT_HOST);
    }
    const folder = folderOf(vscode, session);
    const settings = vscode.workspace.getConfiguration('nlang', session.workspaceFolder);
    const found = this.find({
      setting: settings.get('debugger.path', ''),
      workspaceFolder: folder,
      env: this.env,
      platform: this.platform,
    });
    return new vscode.DebugAdapterExecutable(found.path, ['dap']);
  }
}

module.exports = { NLangDebugAdapterFactory, folderOf, DEFAULT_HOST, SETTING };
