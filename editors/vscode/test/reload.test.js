'use strict';
// Edit and continue in the extension (lib/reload.js): a save of an NLang
// file while a session of its program is paused sends nlang/reload and
// says what it did; a refusal shows the report; a save while the program
// runs is not an error; the command sends the unsaved editors' text.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { makeStub, install, uri } = require('./vscode-stub');
const { summary } = require('../lib/reload');

const root = path.join(__dirname, '..');

/** activated loads extension.js afresh against a new stub and activates it. */
function activated() {
  const stub = makeStub();
  const uninstall = install(stub);
  for (const k of Object.keys(require.cache)) {
    if (k.startsWith(root + path.sep) && !k.includes(`${path.sep}test${path.sep}`) && !k.includes('node_modules')) delete require.cache[k];
  }
  try {
    require(path.join(root, 'extension.js')).activate({ subscriptions: [] });
    return stub;
  } finally {
    uninstall();
  }
}

/** session is a debug session stand-in answering nlang/reload with answer(args). */
function session(answer) {
  const sent = [];
  return {
    type: 'nlang',
    sent,
    customRequest: async (command, args) => {
      sent.push({ command, args });
      return answer(args);
    },
  };
}

const doc = (dirty = false, text = '') => ({ languageId: 'nlang', uri: uri('/w/prog.n'), isDirty: dirty, getText: () => text });

test('summary says what changed and what became of the frames', () => {
  assert.equal(summary({ unchanged: true }), 'NLang: nothing to reload (no file of the program changed).');
  assert.equal(
    summary({ reload: 2, changed: ['f'], added: ['g'], fields: ['P.z'], objects: 3, frames: [{ how: 'old' }, { how: 'new' }], breakpoints: [{ verified: false }] }),
    'NLang: reload 2: changed f; added g; new fields P.z (3 existing objects got them). 1 frame finishes on the old code (Restart Frame runs the new code). 1 breakpoint is no longer placed.',
  );
  assert.equal(summary({ reload: 1, frames: [{ how: 'moved' }, { how: 'moved' }] }), 'NLang: reload 1: no code changed. 2 frames moved to the new code.');
});

test('saving an NLang file reloads the paused session and says what changed', async () => {
  const stub = activated();
  const s = session(() => ({ reload: 1, changed: ['f'] }));
  stub.debug.activeDebugSession = s;
  assert.equal(stub.rec.saveHooks.length, 1);
  await stub.rec.saveHooks[0](doc());
  assert.deepEqual(s.sent, [{ command: 'nlang/reload', args: {} }]);
  assert.deepEqual(stub.rec.infos, ['NLang: reload 1: changed f.']);
  // another language, no session, or the setting off: nothing is sent
  await stub.rec.saveHooks[0]({ languageId: 'go', uri: uri('/w/a.go') });
  stub.rec.settings['nlang.reload.onSave'] = false;
  await stub.rec.saveHooks[0](doc());
  stub.rec.settings['nlang.reload.onSave'] = true;
  stub.debug.activeDebugSession = undefined;
  await stub.rec.saveHooks[0](doc());
  assert.equal(s.sent.length, 1);
});

test('a refusal shows the first line of the report, all of it in the output channel; a running program is not an error', async () => {
  const stub = activated();
  const report = 'nlang/reload: /w/prog.n:4:13: expected expression, got \';\'\n    y = y + ;\n            ^';
  stub.debug.activeDebugSession = session(() => {
    throw new Error(report);
  });
  await stub.rec.saveHooks[0](doc());
  assert.deepEqual(stub.rec.errors, ["NLang: not reloaded: /w/prog.n:4:13: expected expression, got ';'"]);
  assert.deepEqual(stub.rec.output, [report.replace('nlang/reload: ', '')]);
  stub.debug.activeDebugSession = session(() => {
    throw new Error('nlang/reload: the program is running (pause it first)');
  });
  await stub.rec.saveHooks[0](doc());
  assert.equal(stub.rec.errors.length, 1);
  assert.match(stub.rec.status[0], /the program runs/);
});

test('NLang: Reload Changed Code sends the unsaved editors\' text', async () => {
  const stub = activated();
  const s = session(() => ({ reload: 1, changed: ['f'] }));
  stub.debug.activeDebugSession = s;
  stub.workspace.textDocuments = [doc(true, 'int main() { return 1; }'), { ...doc(false), uri: uri('/w/other.n') }];
  await stub.rec.commands['nlang.reload']();
  assert.deepEqual(s.sent, [{ command: 'nlang/reload', args: { sources: [{ path: '/w/prog.n', content: 'int main() { return 1; }' }] } }]);
  stub.debug.activeDebugSession = undefined;
  await stub.rec.commands['nlang.reload']();
  assert.deepEqual(stub.rec.errors, ['NLang: no NLang debug session to reload.']);
});
