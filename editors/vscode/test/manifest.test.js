'use strict';
// The manifest describes what the extension has, and the .vsix that
// @vscode/vsce builds from it holds every file the extension needs.
// (The launch attributes against the server's launch arguments, both
// ways: TestVSCodeManifestLaunchAttributes in the dap package.)

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const yauzl = require('yauzl');

const root = path.join(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const debuggerOf = manifest.contributes.debuggers.find((d) => d.type === 'nlang');

test('one debugger of type nlang for the nlang language, with breakpoints', () => {
  assert.equal(manifest.contributes.debuggers.length, 1);
  assert.deepEqual(debuggerOf.languages, ['nlang']);
  assert.deepEqual(manifest.contributes.breakpoints, [{ language: 'nlang' }]);
  assert.equal(debuggerOf.program, undefined, 'the adapter comes from the descriptor factory, not a program');
});

test('every configuration attribute has a type, a description and a default', () => {
  for (const req of ['launch', 'attach']) {
    const props = debuggerOf.configurationAttributes[req].properties;
    for (const [name, p] of Object.entries(props)) {
      assert.ok(p.type, `${req}.${name}: no type`);
      assert.ok(p.description && p.description.length > 20, `${req}.${name}: no description`);
      assert.ok('default' in p, `${req}.${name}: no default`);
    }
  }
  // program or replay: neither is required alone (the server says which is missing)
  assert.equal(debuggerOf.configurationAttributes.launch.required, undefined);
});

test('attach takes the host and port of run --listen, which the factory connects to, and nonStop', () => {
  const attach = debuggerOf.configurationAttributes.attach;
  assert.deepEqual(Object.keys(attach.properties).sort(), ['host', 'nonStop', 'port', 'token']);
  assert.deepEqual(attach.required, ['port']);
});

test('initial configurations and snippets use only declared attributes', () => {
  const declared = (req) => new Set(['type', 'request', 'name', ...Object.keys(debuggerOf.configurationAttributes[req].properties)]);
  const bodies = [...debuggerOf.initialConfigurations, ...debuggerOf.configurationSnippets.map((s) => s.body)];
  assert.ok(debuggerOf.configurationSnippets.some((s) => s.body.request === 'attach'));
  assert.ok(debuggerOf.initialConfigurations.some((c) => c.name === 'NLang: Launch'));
  for (const b of bodies) {
    assert.equal(b.type, 'nlang');
    for (const k of Object.keys(b)) assert.ok(declared(b.request).has(k), `${b.name}: ${k} is not a ${b.request} attribute`);
    for (const k of debuggerOf.configurationAttributes[b.request].required || []) assert.ok(k in b, `${b.name}: no ${k}`);
  }
});

test('the files the manifest names exist, and the grammar is the language\'s', () => {
  assert.ok(fs.existsSync(path.join(root, manifest.main)));
  const lang = manifest.contributes.languages[0];
  assert.deepEqual([lang.id, lang.extensions], ['nlang', ['.n']]);
  const conf = JSON.parse(fs.readFileSync(path.join(root, lang.configuration), 'utf8'));
  assert.deepEqual(conf.comments, { lineComment: '//', blockComment: ['/*', '*/'] });
  const g = manifest.contributes.grammars[0];
  const grammar = JSON.parse(fs.readFileSync(path.join(root, g.path), 'utf8'));
  assert.equal(grammar.scopeName, g.scopeName);
  assert.equal(g.language, 'nlang');
});

test('commands are declared with the NLang category and activate the extension', () => {
  const cmds = manifest.contributes.commands.map((c) => `${c.category}: ${c.title}`).sort();
  assert.deepEqual(cmds, ['NLang: Debug File', 'NLang: Group Virtual Threads By…', 'NLang: Query This Line (Logpoint After the Fact)', 'NLang: Reload Changed Code', 'NLang: Run File',
    'NLang: Thread Timeline', 'NLang: Travel to Moment', 'NLang: Where Did This Value Come From?', 'NLang: Who Wrote This?']);
  for (const c of manifest.contributes.commands) assert.ok(manifest.activationEvents.includes(`onCommand:${c.command}`));
});

/** requires lists the files extension.js needs, following relative require()s. */
function requires(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const src = fs.readFileSync(file, 'utf8');
  for (const m of src.matchAll(/require\('(\.[^']+)'\)/g)) {
    let dep = path.join(path.dirname(file), m[1]);
    if (!dep.endsWith('.js')) dep += '.js';
    requires(dep, seen);
  }
  return seen;
}

/** entries lists the file names in a zip archive. */
function entries(zip) {
  return new Promise((resolve, reject) => {
    yauzl.open(zip, { lazyEntries: true }, (err, z) => {
      if (err) return reject(err);
      const names = [];
      z.on('entry', (e) => {
        names.push(e.fileName);
        z.readEntry();
      });
      z.on('end', () => resolve(names));
      z.on('error', reject);
      z.readEntry();
    });
  });
}

test('vsce packages a .vsix that holds every file the extension needs and nothing of the tests', async () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-vsix-')), 'nlang.vsix');
  const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  execFileSync(process.execPath, [vsce, 'package', '--out', out], { cwd: root, stdio: 'pipe' });
  const names = new Set(await entries(out));
  const need = [
    'extension/package.json',
    'extension/readme.md',
    'extension/changelog.md',
    'extension/LICENSE.txt',
    'extension/' + manifest.contributes.grammars[0].path.replace(/^\.\//, ''),
    'extension/' + manifest.contributes.languages[0].configuration.replace(/^\.\//, ''),
    ...[...requires(path.join(root, manifest.main))].map((f) => 'extension/' + path.relative(root, f).split(path.sep).join('/')),
  ];
  assert.ok(need.includes('extension/lib/find.js'));
  for (const n of need) assert.ok(names.has(n), `${n} missing from the .vsix (${[...names].join(', ')})`);
  for (const n of names) assert.ok(!/^extension\/(test|node_modules)\//.test(n), `${n} should not be packaged`);
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
});

test('the Questions about the past view starts collapsed (the Virtual threads view keeps the room)', () => {
  const views = Object.fromEntries(manifest.contributes.views.debug.map((v) => [v.id, v]));
  assert.equal(views['nlang.past'].visibility, 'collapsed');
  assert.equal(views['nlang.virtualThreads'].visibility, undefined);
});
