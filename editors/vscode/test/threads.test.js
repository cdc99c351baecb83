'use strict';
// The "Virtual threads" view: the rows it makes of an nlang/scheduler
// body (the example of docs/dap.md), and that it refreshes on a stop the
// tracker sees and empties when the program runs on.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { makeStub, install } = require('./vscode-stub');

const body = {
  quota: 4000,
  carriers: [{ id: 1, runQueue: [1] }],
  runQueue: [{ id: 1, name: 'main', state: 'stopped', function: 'main', source: { name: 'locks.n', path: '/src/locks.n' }, line: 26 }],
  parked: [
    { id: 2, name: 'left', state: 'waiting', waitReason: 'mutex lock', waitsOn: 'o1', function: 'left', source: { name: 'locks.n' }, line: 7 },
    { id: 3, name: 'right', state: 'waiting', waitReason: 'mutex lock', waitsOn: 'o2', function: 'right', source: { name: 'locks.n' }, line: 14 },
  ],
  frozen: [],
  timers: [{ threadId: 4, name: 'ticker', inMs: 372.5 }],
  waitGraph: { nodes: [], edges: [], cycles: [[2, 3]] },
  deadlock: false,
};

test('the rows: run queue, parked threads with what they wait on, timers, deadlock cycles', () => {
  const { schedulerTree } = require('../lib/threads');
  const rows = schedulerTree(body);
  assert.deepEqual(rows.map((r) => r.label), ['Run queue (1)', 'Parked (2)', 'Timers (1)', 'Deadlock cycles (1)']);
  assert.deepEqual(rows[0].children.map((c) => [c.label, c.description]), [['[1] main', 'next, stopped · main (locks.n:26)']]);
  assert.deepEqual(rows[1].children.map((c) => [c.label, c.description]),
    [['[2] left', 'mutex lock · left (locks.n:7)'], ['[3] right', 'mutex lock · right (locks.n:14)']]);
  assert.deepEqual(rows[2].children.map((c) => [c.label, c.description]), [['[4] ticker', 'wakes in 373 ms']]);
  assert.deepEqual(rows[3].children.map((c) => c.label), ['[2] left → [3] right → [2] left']);
});

test('the view refreshes on a stop and empties when the program continues', async () => {
  const stub = makeStub();
  const uninstall = install(stub);
  let threads;
  try {
    delete require.cache[require.resolve('../lib/threads')];
    threads = require('../lib/threads');
  } finally {
    uninstall();
  }
  const context = { subscriptions: [] };
  const provider = threads.register(stub, context);
  assert.equal(stub.rec.views['nlang.virtualThreads'], provider);
  let fired = 0;
  provider.onDidChangeTreeData(() => fired++);
  const asked = [];
  const session = { type: 'nlang', customRequest: async (cmd) => { asked.push(cmd); return body; } };
  const tracker = stub.rec.trackers.nlang.createDebugAdapterTracker(session);
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'pause', threadId: 1 } });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(asked, ['nlang/scheduler']);
  assert.equal(provider.getChildren().length, 4);
  const item = provider.getTreeItem(provider.getChildren()[1]);
  assert.equal(item.label, 'Parked (2)');
  assert.equal(item.collapsibleState, stub.TreeItemCollapsibleState.Expanded);
  tracker.onDidSendMessage({ type: 'event', event: 'continued', body: { threadId: 1 } });
  assert.equal(provider.getChildren().length, 0);
  assert.ok(fired >= 2);
  // a request that fails shows why, not a stale tree
  session.customRequest = async () => { throw new Error('the program is running'); };
  await provider.refresh(session);
  assert.deepEqual(provider.getChildren().map((r) => r.label), ['(the program is running)']);
  void path;
});
