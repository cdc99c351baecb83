'use strict';
// The commands "NLang: Run File" and "NLang: Debug File": both start a
// launch of the file (the active editor's, or the one the command was
// invoked on), Run without breakpoints or stops.

const path = require('path');

/**
 * startFile launches the .n file at uri (or the active editor's) under
 * the debugger; noDebug runs it without stops. It resolves to whether a
 * session started.
 */
async function startFile(vscode, uri, noDebug) {
  let doc;
  if (!uri || !uri.fsPath) {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      vscode.window.showErrorMessage('NLang: open a .n file first.');
      return false;
    }
    doc = editor.document;
    uri = doc.uri;
  } else {
    doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  }
  if (doc && doc.isDirty) await doc.save();
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const file = uri.fsPath;
  const config = {
    type: 'nlang',
    request: 'launch',
    name: noDebug ? 'NLang: Run File' : 'NLang: Debug File',
    program: file,
    cwd: folder ? folder.uri.fsPath : path.dirname(file),
    noDebug,
  };
  return vscode.debug.startDebugging(folder, config, { noDebug });
}

/** register adds both commands to the extension's subscriptions. */
function register(vscode, context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('nlang.runFile', (uri) => startFile(vscode, uri, true)),
    vscode.commands.registerCommand('nlang.debugFile', (uri) => startFile(vscode, uri, false)),
  );
}

module.exports = { register, startFile };
