'use strict';
// The extension as VS Code loads it (extension.js with a stand-in vscode
// module): what activate registers, the descriptors the factory returns
// for launch and attach, F5 with no launch.json, and the two commands.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { makeStub, install, uri } = require('./vscode-stub');

const root = path.join(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-ext-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const bin = path.join(tmp, 'bin', 'nlangdbg');
fs.mkdirSync(path.dirname(bin), { recursive: true });
fs.writeFileSync(bin, '#!/bin/sh\n');
fs.chmodSync(bin, 0o755);
const custom = path.join(tmp, 'ws', 'build', 'nlangdbg');
fs.mkdirSync(path.dirname(custom), { recursive: true });
fs.writeFileSync(custom, '#!/bin/sh\n');
fs.chmodSync(custom, 0o755);
const wsFolder = { uri: uri(path.join(tmp, 'ws')), name: 'ws', index: 0 };

/** activated loads extension.js afresh against a new stub and activates it. */
function activated() {
  const stub = makeStub();
  const uninstall = install(stub);
  for (const k of Object.keys(require.cache)) {
    if (k.startsWith(root + path.sep) && !k.includes(`${path.sep}test${path.sep}`) && !k.includes('node_modules')) delete require.cache[k];
  }
  try {
    const ext = require(path.join(root, manifest.main));
    const context = { subscriptions: [] };
    ext.activate(context);
    return { stub, rec: stub.rec, context };
  } finally {
    uninstall();
  }
}

/** withPath runs fn with PATH set to dirs. */
function withPath(dirs, fn) {
  const old = process.env.PATH;
  process.env.PATH = dirs.join(path.delimiter);
  try {
    return fn();
  } finally {
    process.env.PATH = old;
  }
}

test('activate registers the factory, the configuration providers, the commands, the two views and the reload on save', () => {
  const { rec, context } = activated();
  assert.deepEqual(Object.keys(rec.views), ['nlang.virtualThreads', 'nlang.past']);
  assert.deepEqual(Object.keys(rec.trackers), ['nlang']);
  assert.deepEqual(manifest.contributes.views.debug.map((v) => v.id), ['nlang.virtualThreads', 'nlang.past']);
  assert.deepEqual(Object.keys(rec.factories), ['nlang']);
  assert.deepEqual(rec.providers.map((p) => [p.type, p.trigger]), [['nlang', 1], ['nlang', 2]]);
  const declared = manifest.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(Object.keys(rec.commands).sort(), declared);
  assert.equal(rec.saveHooks.length, 1);
  assert.equal(context.subscriptions.length, 17);
});

test('launch: nlangdbg dap from PATH', () => {
  const { rec } = activated();
  const d = withPath([path.join(tmp, 'nothing'), path.dirname(bin)], () =>
    rec.factories.nlang.createDebugAdapterDescriptor({ configuration: { type: 'nlang', request: 'launch', program: 'a.n' } }),
  );
  assert.equal(d.constructor.name, 'DebugAdapterExecutable');
  assert.equal(d.command, bin);
  assert.deepEqual(d.args, ['dap']);
});

test('launch: nlangdbg dap from the setting, relative to the session folder', () => {
  const { rec } = activated();
  rec.settings['nlang.debugger.path'] = 'build/nlangdbg';
  const d = withPath([path.dirname(bin)], () =>
    rec.factories.nlang.createDebugAdapterDescriptor({
      workspaceFolder: wsFolder,
      configuration: { type: 'nlang', request: 'launch', program: 'a.n' },
    }),
  );
  assert.equal(d.command, custom);
  assert.deepEqual(d.args, ['dap']);
});

test('launch: no binary anywhere is an error that names the setting', () => {
  const { rec } = activated();
  assert.throws(
    () =>
      withPath([path.join(tmp, 'nothing')], () =>
        rec.factories.nlang.createDebugAdapterDescriptor({ configuration: { type: 'nlang', request: 'launch' } }),
      ),
    /nlang\.debugger\.path/,
  );
});

test('attach: a TCP connection to run --listen, host defaulting to 127.0.0.1', () => {
  const { rec } = activated();
  const f = rec.factories.nlang;
  const d = f.createDebugAdapterDescriptor({ configuration: { type: 'nlang', request: 'attach', port: 4711 } });
  assert.equal(d.constructor.name, 'DebugAdapterServer');
  assert.deepEqual([d.port, d.host], [4711, '127.0.0.1']);
  const d2 = f.createDebugAdapterDescriptor({ configuration: { type: 'nlang', request: 'attach', host: 'localhost', port: '5000' } });
  assert.deepEqual([d2.port, d2.host], [5000, 'localhost']);
  for (const port of [undefined, 0, 70000, 'x', 1.5]) {
    assert.throws(() => f.createDebugAdapterDescriptor({ configuration: { request: 'attach', port } }), /"port" must be/);
  }
});

/** resolve runs the (non-dynamic) provider's resolveDebugConfiguration. */
function resolve(rec, folder, config) {
  return rec.providers[0].provider.resolveDebugConfiguration(folder, config);
}

test('F5 with no launch.json on a .n file: NLang: Launch of ${file}', () => {
  const { stub, rec } = activated();
  stub.window.activeTextEditor = { document: { languageId: 'nlang', uri: uri('/w/a.n') } };
  assert.deepEqual(resolve(rec, wsFolder, {}), {
    type: 'nlang',
    request: 'launch',
    name: 'NLang: Launch',
    program: '${file}',
    cwd: '${workspaceFolder}',
    stopOnEntry: false,
  });
  assert.equal(resolve(rec, undefined, {}).cwd, '${fileDirname}');
  const dynamic = rec.providers[1].provider.provideDebugConfigurations(wsFolder);
  assert.deepEqual(dynamic.map((c) => c.name), ['NLang: Launch']);
});

test('F5 with no launch.json on another file, or a configuration missing what it needs: a message, no session', () => {
  const { stub, rec } = activated();
  stub.window.activeTextEditor = { document: { languageId: 'go', uri: uri('/w/a.go') } };
  assert.equal(resolve(rec, wsFolder, {}), undefined);
  assert.equal(rec.providers[1].provider.provideDebugConfigurations(wsFolder).length, 0);
  assert.equal(resolve(rec, wsFolder, { type: 'nlang', request: 'launch', name: 'x' }), undefined);
  assert.equal(resolve(rec, wsFolder, { type: 'nlang', request: 'attach', name: 'x' }), undefined);
  assert.equal(rec.errors.length, 3);
  assert.match(rec.errors[0], /open a \.n file/);
  assert.match(rec.errors[1], /"program"/);
  assert.match(rec.errors[2], /"port".*run --listen/);
});

test('a complete configuration passes through', () => {
  const { rec } = activated();
  const c = { type: 'nlang', request: 'launch', name: 'mine', program: 'p.n', seed: 3 };
  assert.deepEqual(resolve(rec, wsFolder, { ...c }), c);
});

test('NLang: Run File and NLang: Debug File launch the active file (saved first)', async () => {
  const { stub, rec } = activated();
  let saved = 0;
  const file = path.join(tmp, 'ws', 'prog.n');
  stub.workspace.workspaceFolders = [wsFolder];
  stub.window.activeTextEditor = {
    document: { languageId: 'nlang', uri: uri(file), isDirty: true, save: async () => (saved++, true) },
  };
  assert.equal(await rec.commands['nlang.runFile'](), true);
  assert.equal(await rec.commands['nlang.debugFile'](), true);
  assert.equal(saved, 2);
  assert.deepEqual(
    rec.started.map((s) => [s.folder, s.config, s.options]),
    [
      [wsFolder, { type: 'nlang', request: 'launch', name: 'NLang: Run File', program: file, cwd: wsFolder.uri.fsPath, noDebug: true }, { noDebug: true }],
      [wsFolder, { type: 'nlang', request: 'launch', name: 'NLang: Debug File', program: file, cwd: wsFolder.uri.fsPath, noDebug: false }, { noDebug: false }],
    ],
  );
});

test('Run File on a file outside any folder runs in its directory; with no editor it says so', async () => {
  const { rec } = activated();
  await rec.commands['nlang.runFile'](uri('/elsewhere/x.n'));
  assert.deepEqual(rec.started[0].config.cwd, '/elsewhere');
  assert.equal(rec.started[0].folder, undefined);
  assert.equal(await rec.commands['nlang.debugFile'](), false);
  assert.match(rec.errors[0], /open a \.n file/);
});
