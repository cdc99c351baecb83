'use strict';
// The "Virtual threads" view: the rows it makes of an nlang/scheduler
// body (the example of docs/dap.md), of nlang/leaks, nlang/threadGroups
// and nlang/threads bodies; that it refreshes on a stop the tracker sees
// and empties when the program runs on; the group-by command; the spawn
// tree loaded when expanded.

const test = require('node:test');
const assert = require('node:assert/strict');
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

// what nlang/leaks answers for a server that dropped a reply channel
const leaks = {
  total: 7,
  threads: [{
    id: 6, name: 'thread-6', waitReason: 'chan send', waitingOn: 'chan send on Channel<int>(len 0/cap 0)',
    objectMadeAt: { source: { name: 'leaky.n' }, line: 23 }, parent: 1, spawnedAt: { source: { name: 'leaky.n' }, line: 24 },
    function: 'handle', source: { name: 'leaky.n' }, line: 12,
  }],
};

// what nlang/threadGroups answers, by function and by stack
const byFunction = {
  selected: 9004, total: 9004,
  groups: [
    { key: 'wait', count: 9000, threadIds: [3, 4, 5] },
    { key: 'main', count: 1, threadIds: [1] },
  ],
};
const byStack = {
  selected: 3000, total: 9004,
  groups: [{
    key: 'wait (crowd.n:11) ← relay (crowd.n:16)', count: 3000, threadIds: [6003],
    stack: [{ function: 'wait', source: { name: 'crowd.n' }, line: 11 }, { function: 'relay', source: { name: 'crowd.n' }, line: 16 }],
  }],
};

// what nlang/threads answers: main → a → b → c, and five workers of main
const threadsBody = {
  total: 9,
  threads: [
    { id: 1, name: 'main', state: 'stopped', function: 'main', source: { name: 'crowd.n' }, line: 52 },
    { id: 2, name: 'a', state: 'waiting', waitReason: 'chan recv', function: 'a', line: 34, parent: 1, spawnedAt: { source: { name: 'crowd.n' }, line: 39 } },
    ...[3, 4, 5, 6, 7].map((id) => ({ id, name: `thread-${id}`, state: 'waiting', waitReason: 'chan recv', function: 'wait', line: 9, parent: 1, spawnedAt: { source: { name: 'crowd.n' }, line: 41 } })),
    { id: 8, name: 'b', state: 'waiting', waitReason: 'chan recv', function: 'b', line: 29, parent: 2, spawnedAt: { source: { name: 'crowd.n' }, line: 33 } },
    { id: 9, name: 'c', state: 'waiting', waitReason: 'chan recv', function: 'c', line: 24, parent: 8, spawnedAt: { source: { name: 'crowd.n' }, line: 28 } },
    { id: 12, name: 'orphan', state: 'waiting', waitReason: 'sleep', function: 'sleepy', line: 20, parent: 11, spawnedAt: { source: { name: 'crowd.n' }, line: 47 } },
  ],
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

test('leaked threads come first, with what they wait on and where they were spawned, and are marked where else they appear', () => {
  const { schedulerTree } = require('../lib/threads');
  const parked = { ...body, parked: [{ id: 6, name: 'thread-6', state: 'waiting', waitReason: 'chan send', function: 'handle', source: { name: 'leaky.n' }, line: 12 }] };
  const rows = schedulerTree(parked, leaks);
  assert.deepEqual(rows.map((r) => r.label), ['Leaked (1)', 'Run queue (1)', 'Parked (1)', 'Timers (1)', 'Deadlock cycles (1)']);
  const [leak] = rows[0].children;
  assert.deepEqual([leak.label, leak.description, leak.leaked], ['[6] thread-6', 'chan send · spawned at leaky.n:24', true]);
  assert.match(leak.tooltip, /parked on chan send on Channel<int>\(len 0\/cap 0\) \(made at leaky.n:23\), which no thread that can run reaches; spawned by thread 1 at leaky.n:24; at handle \(leaky.n:12\)/);
  assert.deepEqual([rows[2].children[0].description, rows[2].children[0].leaked], ['leaked · chan send · handle (leaky.n:12)', true]);
  // no leaks, no row
  assert.equal(schedulerTree(body, { threads: [] })[0].label, 'Run queue (1)');
});

test('groups: a count per key, the first threads expandable; by stack, the shared frames', () => {
  const { groupsTree } = require('../lib/threads');
  const g = groupsTree(byFunction, 'function', leaks);
  assert.equal(g.label, 'Groups by function (2)');
  assert.deepEqual(g.children.map((c) => [c.label, c.description]), [['wait', '× 9000'], ['main', '× 1']]);
  assert.deepEqual(g.children[0].children.map((c) => c.label), ['[3]', '[4]', '[5]', '… 8997 more']);
  const s = groupsTree(byStack, 'stack');
  assert.equal(s.label, 'Groups by stack (parallel stacks) (1)');
  assert.deepEqual([s.children[0].label, s.children[0].description], ['wait (crowd.n:11)', '× 3000']);
  assert.deepEqual(s.children[0].children.map((c) => c.label), ['wait (crowd.n:11)', 'relay (crowd.n:16)', '[6003]', '… 2999 more']);
  assert.equal(s.children[0].tooltip, 'wait (crowd.n:11)\nrelay (crowd.n:16)');
});

test('the spawn tree: three levels, siblings spawned at one place counted, a thread whose parent ended', () => {
  const { spawnTree } = require('../lib/threads');
  const roots = spawnTree(threadsBody);
  assert.deepEqual(roots.map((r) => r.label), ['[1] main', '[11] (ended)']);
  const main = roots[0];
  assert.deepEqual(main.children.map((c) => [c.label, c.description]), [
    ['[2] a', 'chan recv · a · spawned at crowd.n:39'],
    ['[3] thread-3', 'chan recv · wait · spawned at crowd.n:41'],
    ['[4] thread-4', 'chan recv · wait · spawned at crowd.n:41'],
    ['[5] thread-5', 'chan recv · wait · spawned at crowd.n:41'],
    ['… 2 more', 'spawned at crowd.n:41 wait'],
  ]);
  const a = main.children[0];
  assert.equal(a.children[0].label, '[8] b');
  assert.equal(a.children[0].children[0].label, '[9] c');
  assert.equal(a.children[0].children[0].children, undefined);
  assert.deepEqual(roots[1].children.map((c) => c.label), ['[12] orphan']);
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
  const answers = { 'nlang/scheduler': body, 'nlang/leaks': leaks, 'nlang/threads': threadsBody };
  const session = {
    type: 'nlang',
    customRequest: async (cmd, args) => {
      asked.push(args ? `${cmd} ${JSON.stringify(args)}` : cmd);
      if (cmd === 'nlang/threadGroups') return args.by === 'stack' ? byStack : byFunction;
      return answers[cmd];
    },
  };
  const tracker = stub.rec.trackers.nlang.createDebugAdapterTracker(session);
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'pause', threadId: 1 } });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(asked, ['nlang/scheduler', 'nlang/leaks', 'nlang/threadGroups {"by":"function"}']);
  let rows = await provider.getChildren();
  assert.deepEqual(rows.map((r) => r.label),
    ['Leaked (1)', 'Run queue (1)', 'Parked (2)', 'Timers (1)', 'Deadlock cycles (1)', 'Groups by function (2)', 'Spawn tree']);
  const item = provider.getTreeItem(rows[2]);
  assert.equal(item.label, 'Parked (2)');
  assert.equal(item.collapsibleState, stub.TreeItemCollapsibleState.Expanded);
  const leakItem = provider.getTreeItem(rows[0].children[0]);
  assert.equal(leakItem.iconPath.id, 'warning');
  const groupItem = provider.getTreeItem(rows[5]);
  assert.equal(groupItem.collapsibleState, stub.TreeItemCollapsibleState.Collapsed);
  // the spawn tree is asked for when it is expanded, once
  const tree = rows[6];
  assert.equal(provider.getTreeItem(tree).collapsibleState, stub.TreeItemCollapsibleState.Collapsed);
  const roots = await provider.getChildren(tree);
  assert.deepEqual(roots.map((r) => r.label), ['[1] main', '[11] (ended)']);
  await provider.getChildren(tree);
  assert.equal(asked.filter((a) => a.startsWith('nlang/threads ')).length, 1);
  // the group-by command: a quick pick of the keys, then the view again
  stub.rec.pick = 'stack';
  await stub.rec.commands['nlang.threads.groupBy']();
  assert.deepEqual(stub.rec.picks[0].map((p) => p.key), ['function', 'location', 'state', 'waitReason', 'spawnSite', 'stack']);
  assert.equal(asked[asked.length - 1], 'nlang/threadGroups {"by":"stack"}');
  rows = await provider.getChildren();
  assert.equal(rows[5].label, 'Groups by stack (parallel stacks) (1)');
  await stub.rec.commands['nlang.threads.groupBy']('spawnSite');
  assert.equal(asked[asked.length - 1], 'nlang/threadGroups {"by":"spawnSite"}');
  tracker.onDidSendMessage({ type: 'event', event: 'continued', body: { threadId: 1 } });
  assert.equal((await provider.getChildren()).length, 0);
  assert.ok(fired >= 2);
  // a request that fails shows why, not a stale tree; a server without
  // leaks or groups still shows the scheduler
  session.customRequest = async () => { throw new Error('the program is running'); };
  await provider.refresh(session);
  assert.deepEqual((await provider.getChildren()).map((r) => r.label), ['(the program is running)']);
  session.customRequest = async (cmd) => {
    if (cmd !== 'nlang/scheduler') throw new Error(`unsupported command "${cmd}"`);
    return body;
  };
  await provider.refresh(session);
  assert.deepEqual((await provider.getChildren()).map((r) => r.label),
    ['Run queue (1)', 'Parked (2)', 'Timers (1)', 'Deadlock cycles (1)', 'Spawn tree']);
});
