'use strict';
// The NLang extension's entry point. Each feature lives in its own file
// under lib/ and is registered here; a view fed by a custom DAP request
// (a "Virtual threads" tree from the server's scheduler request, once it
// has one) would be one more file registered the same way, refreshed from
// vscode.debug.onDidReceiveDebugSessionCustomEvent and the stopped events
// a DebugAdapterTracker sees.

const vscode = require('vscode');
const { NLangDebugAdapterFactory } = require('./lib/adapter');
const { NLangConfigurationProvider } = require('./lib/configuration');
const commands = require('./lib/commands');

/** activate registers the debug adapter, its configurations and the commands. */
function activate(context) {
  const provider = new NLangConfigurationProvider(vscode);
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('nlang', new NLangDebugAdapterFactory(vscode)),
    vscode.debug.registerDebugConfigurationProvider('nlang', provider),
    vscode.debug.registerDebugConfigurationProvider(
      'nlang',
      {
        provideDebugConfigurations: () => {
          const editor = vscode.window.activeTextEditor;
          if (!editor || editor.document.languageId !== 'nlang') return [];
          return provider.provideDebugConfigurations();
        },
      },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
  );
  commands.register(vscode, context);
}

/** deactivate has nothing to release: subscriptions are disposed by VS Code. */
function deactivate() {}

module.exports = { activate, deactivate };
