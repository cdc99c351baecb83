'use strict';
// The debug configuration provider: fills in a launch configuration when
// F5 is pressed with no launch.json (or with an empty one), checks the
// required attributes, and offers "NLang: Launch" for the active file.

const LAUNCH_NAME = 'NLang: Launch';

/** launchFor returns a launch configuration for a file (or ${file}). */
function launchFor(program, extra = {}) {
  return Object.assign(
    { type: 'nlang', request: 'launch', name: LAUNCH_NAME, program, cwd: '${workspaceFolder}', stopOnEntry: false },
    extra,
  );
}

/** A vscode.DebugConfigurationProvider for the debug type `nlang`. */
class NLangConfigurationProvider {
  /** @param {typeof import('vscode')} vscode the VS Code API */
  constructor(vscode) {
    this.vscode = vscode;
  }

  /** provideDebugConfigurations offers the initial launch.json entries. */
  provideDebugConfigurations() {
    return [launchFor('${file}')];
  }

  /**
   * resolveDebugConfiguration completes a configuration before the
   * session starts. An empty one (F5 with no launch.json) becomes a
   * launch of the active .n file; undefined aborts with a message.
   */
  resolveDebugConfiguration(folder, config) {
    const vscode = this.vscode;
    if (!config.type && !config.request && !config.name) {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'nlang') {
        vscode.window.showErrorMessage('NLang: open a .n file to debug it, or add a launch configuration.');
        return undefined;
      }
      config = launchFor('${file}');
      if (!folder) config.cwd = '${fileDirname}';
    }
    config.type = config.type || 'nlang';
    if (!config.request) config.request = 'launch';
    if (!config.name) config.name = config.request === 'attach' ? 'NLang: Attach' : LAUNCH_NAME;
    if (config.request === 'launch' && !config.program) {
      vscode.window.showErrorMessage('NLang: the launch configuration needs "program" (the .n file to run).');
      return undefined;
    }
    if (config.request === 'attach' && (config.port === undefined || config.port === '')) {
      vscode.window.showErrorMessage(
        'NLang: the attach configuration needs "port" (start the program with `nlangdbg run --listen 127.0.0.1:PORT prog.n`).',
      );
      return undefined;
    }
    return config;
  }
}

module.exports = { NLangConfigurationProvider, launchFor, LAUNCH_NAME };
