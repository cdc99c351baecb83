'use strict';
// The questions about the past: the rows the view makes of each answer
// (bodies as the server sends them for testdata/dap/past.n), and the
// commands: what they ask the server, with which frame, and travel from
// a row.

const test = require('node:test');
const assert = require('node:assert/strict');
const { makeStub, install, uri } = require('./vscode-stub');

const src = { name: 'past.n', path: '/src/past.n' };

const writes = {
  name: 'c.count',
  complete: true,
  writes: [
    { moment: 'M1', threadId: 2, threadName: 'thread-2', name: 'Worker.run', source: src, line: 33, oldValue: '3', newValue: '1' },
    { moment: 'M2', threadId: 4, threadName: 'thread-4', name: 'Worker.run', source: src, line: 33, oldValue: '2', newValue: '3' },
  ],
};

const origin = {
  steps: [
    { level: 0, kind: 'assigned', text: 'last', moment: 'O1', threadId: 1, threadName: 'main', source: src, line: 54, value: '1', code: 'last = results.recv();' },
    { level: 0, kind: 'received', text: 'from a channel, sent by thread 2 "thread-2"', moment: 'O1', threadId: 1, threadName: 'main', source: src, line: 54, value: '1' },
    { level: 0, kind: 'computed', text: '+', moment: 'O2', threadId: 2, threadName: 'thread-2', source: src, line: 33, value: '1' },
    { level: 1, kind: 'assigned', text: 'v', moment: 'O3', threadId: 2, threadName: 'thread-2', source: src, line: 28, value: '1' },
    { level: 1, kind: 'literal', moment: 'O4', threadId: 1, threadName: 'main', source: src, line: 48, value: '1' },
    { level: 1, kind: 'assigned', text: 'seen', moment: 'O5', threadId: 2, threadName: 'thread-2', source: src, line: 29, value: '0' },
    { level: 1, kind: 'initial', text: 'Counter.count was never written before: its zero value' },
  ],
};

const query = {
  source: src, line: 33, total: 3,
  hits: [
    { moment: 'Q1', threadId: 3, threadName: 'thread-3', name: 'Worker.run', value: '2' },
    { moment: 'Q2', threadId: 4, threadName: 'thread-4', name: 'Worker.run', value: '1' },
  ],
};

const timeline = {
  threadId: 2, name: 'thread-2', total: 4,
  entries: [
    { kind: 'spawned', moment: 'T1', byThread: 1, byName: 'main', name: 'main', source: src, line: 44 },
    { kind: 'parked', moment: 'T2', reason: 'chan recv', on: 'Channel<int>(len 0/cap 1)', name: 'Worker.run', source: src, line: 28 },
    { kind: 'woken', moment: 'T3', byThread: 1, byName: 'main' },
    { kind: 'ran', moment: 'T4', from: 'T3', quanta: 4, reductions: 3, preempted: false },
  ],
};

test('the rows of each answer, a moment on every row that has one', () => {
  const past = require('../lib/past');
  const w = past.writesTree(writes)[0];
  assert.equal(w.label, 'Who wrote c.count');
  assert.deepEqual(w.children.map((r) => [r.label, r.description, r.moment]), [
    ['c.count: 3 → 1', '[2] thread-2 · past.n:33 in Worker.run', 'M1'],
    ['c.count: 2 → 3', '[4] thread-4 · past.n:33 in Worker.run', 'M2'],
    ['(no earlier write)', undefined, undefined],
  ]);
  // a chain is a list; the inputs of a computation are its children
  const o = past.originTree(origin, 'last')[0];
  assert.deepEqual(o.children.map((r) => r.label), ['assigned last = 1', 'received from a channel, sent by thread 2 "thread-2" = 1', 'computed + = 1']);
  assert.equal(o.children[0].description, '[1] main · past.n:54 · last = results.recv();');
  assert.deepEqual(o.children[2].children.map((r) => [r.label, r.moment]),
    [['assigned v = 1', 'O3'], ['literal = 1', 'O4'], ['assigned seen = 0', 'O5'], ['initial Counter.count was never written before: its zero value', undefined]]);
  const q = past.queryTree(query, 'v')[0];
  assert.deepEqual([q.label, q.description], ['v at past.n:33', '3 executions (the first 2)']);
  assert.deepEqual(q.children.map((r) => [r.label, r.description, r.moment]), [['2', '[3] thread-3 · Worker.run', 'Q1'], ['1', '[4] thread-4 · Worker.run', 'Q2']]);
  const t = past.timelineTree(timeline)[0];
  assert.equal(t.label, 'Timeline of [2] thread-2');
  assert.deepEqual(t.children.map((r) => [r.label, r.description]), [
    ['spawned', 'by [1] main · past.n:44 in main'],
    ['parked: chan recv', 'Channel<int>(len 0/cap 1) · past.n:28 in Worker.run'],
    ['woken', 'by [1] main'],
    ['ran', '4 quanta, 3 reductions'],
  ]);
});

/** setup registers lib/past.js against a fresh stub with an nlang session. */
function setup(answers) {
  const stub = makeStub();
  const uninstall = install(stub);
  let past;
  try {
    delete require.cache[require.resolve('../lib/past')];
    past = require('../lib/past');
  } finally {
    uninstall();
  }
  const asked = [];
  const session = {
    id: 's1',
    type: 'nlang',
    customRequest: async (cmd, args) => {
      asked.push([cmd, args]);
      const a = answers[cmd];
      if (a instanceof Error) throw a;
      return typeof a === 'function' ? a(args) : a;
    },
  };
  stub.debug.activeDebugSession = session;
  const context = { subscriptions: [] };
  past.register(stub, context);
  return { stub, rec: stub.rec, session, asked, provider: stub.rec.views['nlang.past'] };
}

test('Who Wrote This? asks lastWrites in the stopped thread\'s top frame and shows the answer; a row travels', async () => {
  const { rec, asked, provider, stub } = setup({
    'nlang/threads': { threads: [{ id: 1, stopped: false }, { id: 3, stopped: true }] },
    stackTrace: { stackFrames: [{ id: 7 }] },
    'nlang/lastWrites': writes,
    'nlang/travel': {},
  });
  rec.inputs.push('c.count');
  await rec.commands['nlang.past.lastWrites']();
  assert.deepEqual(asked, [
    ['nlang/threads', {}],
    ['stackTrace', { threadId: 3, startFrame: 0, levels: 1 }],
    ['nlang/lastWrites', { expression: 'c.count', frameId: 7, count: 10 }],
  ]);
  assert.deepEqual(rec.executed, ['nlang.past.focus']); // the collapsed view opens
  const top = provider.getChildren();
  assert.equal(top[0].label, 'Who wrote c.count');
  const item = provider.getTreeItem(provider.getChildren(top[0])[0]);
  assert.equal(item.label, 'c.count: 3 → 1');
  assert.deepEqual(item.command, { command: 'nlang.past.travel', title: 'Travel to this moment', arguments: ['M1'] });
  asked.length = 0;
  await rec.commands[item.command.command](...item.command.arguments);
  assert.deepEqual(asked, [['nlang/travel', { moment: 'M1' }]]);
  // the frame selected in the Call Stack view wins
  stub.debug.activeStackItem = { session: stub.debug.activeDebugSession, threadId: 2, frameId: 11 };
  asked.length = 0;
  await rec.commands['nlang.past.origin']('last');
  assert.deepEqual(asked, [['nlang/origin', { expression: 'last', frameId: 11 }]]);
});

test('Query This Line asks about the cursor\'s line with the condition after "if"; Thread Timeline asks for a thread', async () => {
  const { rec, asked, provider, stub } = setup({ 'nlang/query': query, 'nlang/timeline': timeline, 'nlang/threads': { threads: [{ id: 2, stopped: true }] } });
  stub.window.activeTextEditor = {
    document: { uri: uri('/src/past.n'), getText: () => '' },
    selection: { isEmpty: true, active: { line: 32 } },
  };
  rec.inputs.push('v if v < 2');
  await rec.commands['nlang.past.query']();
  assert.deepEqual(asked, [['nlang/query', { source: { path: '/src/past.n' }, line: 33, expression: 'v', condition: 'v < 2' }]]);
  assert.equal(provider.getChildren()[0].label, 'v at past.n:33');
  asked.length = 0;
  rec.inputs.push('2');
  await rec.commands['nlang.past.timeline']();
  assert.equal(rec.prompts[rec.prompts.length - 1].value, '2'); // the stopped thread by default
  assert.deepEqual(asked.map((a) => a[0]), ['nlang/threads', 'nlang/timeline']);
  assert.deepEqual(asked[1][1], { threadId: 2 });
  rec.inputs.push('two');
  await rec.commands['nlang.past.timeline']();
  assert.match(rec.errors[rec.errors.length - 1], /two is not a thread id/);
});

test('an error answer is shown, and no session says so', async () => {
  const { rec, provider, stub } = setup({ 'nlang/origin': new Error('nlang/origin: last +: column 7: expected expression') });
  stub.debug.activeStackItem = { session: stub.debug.activeDebugSession, threadId: 1, frameId: 1 };
  await rec.commands['nlang.past.origin']('last +');
  assert.deepEqual(provider.getChildren().map((r) => r.label), ['(nlang/origin: last +: column 7: expected expression)']);
  assert.match(rec.errors[0], /column 7/);
  stub.debug.activeDebugSession = undefined;
  await rec.commands['nlang.past.lastWrites']('x');
  assert.match(rec.errors[1], /start a debug session/);
});
