'use strict';
// The NLang extension's entry point. Each feature lives in its own file
// under lib/ and is registered here: the debug adapter, its
// configurations, the commands, the "Virtual threads" view (lib/threads.js,
// fed by the server's nlang/scheduler request at every stop), the
// questions about the past with their view (lib/past.js), and edit and
// continue (lib/reload.js: a save while paused reloads the code).

const vscode = require('vscode');
const { NLangDebugAdapterFactory } = require('./lib/adapter');
const { NLangConfigurationProvider } = require('./lib/configuration');
const commands = require('./lib/commands');
const threads = require('./lib/threads');
const past = require('./lib/past');
const reload = require('./lib/reload');

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
  threads.register(vscode, context);
  past.register(vscode, context);
  reload.register(vscode, context);
}

/** deactivate has nothing to release: subscriptions are disposed by VS Code. */
function deactivate() {}

module.exports = { activate, deactivate };
