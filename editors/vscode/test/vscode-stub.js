'use strict';
// A stand-in for the `vscode` module, with just the API the extension
// uses; it records what the extension registers and starts. install()
// makes require('vscode') return it.

const Module = require('module');

/** makeStub returns a fresh stub and its record of calls. */
function makeStub() {
  const rec = {
    factories: {},
    providers: [],
    commands: {},
    started: [],
    errors: [],
    settings: {},
    views: {},
    trackers: {},
    inputs: [], // answers showInputBox gives, in order
    prompts: [],
    infos: [],
    status: [],
    saveHooks: [],
    output: [],
    executed: [], // the commands executeCommand ran
  };
  class EventEmitter {
    constructor() {
      this.listeners = [];
      this.event = (fn) => {
        this.listeners.push(fn);
        return { dispose() {} };
      };
    }
    fire(x) {
      for (const fn of this.listeners) fn(x);
    }
  }
  class TreeItem {
    constructor(label, collapsibleState) {
      Object.assign(this, { label, collapsibleState });
    }
  }
  class ThemeIcon {
    constructor(id) {
      this.id = id;
    }
  }
  class DebugAdapterExecutable {
    constructor(command, args, options) {
      Object.assign(this, { command, args, options });
    }
  }
  class DebugAdapterServer {
    constructor(port, host) {
      Object.assign(this, { port, host });
    }
  }
  const vscode = {
    rec,
    DebugAdapterExecutable,
    DebugAdapterServer,
    DebugConfigurationProviderTriggerKind: { Initial: 1, Dynamic: 2 },
    EventEmitter,
    ThemeIcon,
    TreeItem,
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    window: {
      activeTextEditor: undefined,
      registerTreeDataProvider: (id, p) => {
        rec.views[id] = p;
        return { dispose() {} };
      },
      showErrorMessage: (msg) => {
        rec.errors.push(msg);
        return Promise.resolve(undefined);
      },
      showQuickPick: (items) => {
        rec.picks = (rec.picks || []).concat([items]);
        return Promise.resolve(items.find((i) => i.key === rec.pick));
      },
      showInputBox: (opts) => {
        rec.prompts.push(opts);
        return Promise.resolve(rec.inputs.shift());
      },
      showInformationMessage: (msg) => {
        rec.infos.push(msg);
        return Promise.resolve(undefined);
      },
      setStatusBarMessage: (msg) => {
        rec.status.push(msg);
        return { dispose() {} };
      },
      createOutputChannel: () => ({
        appendLine: (l) => rec.output.push(l),
        clear: () => rec.output.splice(0),
        show() {},
        dispose() {},
      }),
    },
    workspace: {
      workspaceFolders: undefined,
      textDocuments: [],
      getConfiguration: (section) => ({
        get: (key, dflt) => {
          const v = rec.settings[`${section}.${key}`];
          return v === undefined ? dflt : v;
        },
      }),
      getWorkspaceFolder: (uri) =>
        (vscode.workspace.workspaceFolders || []).find((f) => uri.fsPath.startsWith(f.uri.fsPath + '/')),
      onDidSaveTextDocument: (fn) => {
        rec.saveHooks.push(fn);
        return { dispose() {} };
      },
    },
    debug: {
      activeDebugSession: undefined,
      activeStackItem: undefined,
      registerDebugAdapterDescriptorFactory: (type, f) => {
        rec.factories[type] = f;
        return { dispose() {} };
      },
      registerDebugAdapterTrackerFactory: (type, f) => {
        rec.trackers[type] = f;
        return { dispose() {} };
      },
      registerDebugConfigurationProvider: (type, p, trigger) => {
        rec.providers.push({ type, provider: p, trigger: trigger || 1 });
        return { dispose() {} };
      },
      startDebugging: (folder, config, options) => {
        rec.started.push({ folder, config, options });
        return Promise.resolve(true);
      },
    },
    commands: {
      registerCommand: (id, fn) => {
        rec.commands[id] = fn;
        return { dispose() {} };
      },
      executeCommand: (id, ...args) => {
        rec.executed.push(id);
        return Promise.resolve(undefined);
      },
    },
  };
  return vscode;
}

/** uri makes a file Uri stand-in. */
function uri(fsPath) {
  return { fsPath, scheme: 'file', toString: () => 'file://' + fsPath };
}

/** install makes require('vscode') resolve to stub until the returned function is called. */
function install(stub) {
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (request === 'vscode') return stub;
    return load.call(this, request, ...rest);
  };
  return () => {
    Module._load = load;
  };
}

module.exports = { makeStub, install, uri };
