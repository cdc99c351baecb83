// The concurrency views and DAP 1.68 locations over stdio with
// DebugClient: nlang/leaks on a server that drops some replies,
// nlang/threadGroups, the spawn parents of nlang/threads, and the
// location references of variables and evaluate resolved by `locations`.
'use strict';

const assert = require('node:assert/strict');
const { Session, fixture } = require('../lib/harness');

describe('leaked threads, groups and the spawn tree (nlang/leaks, nlang/threadGroups, nlang/threads)', function () {
  const f = fixture('leaky.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('lists exactly the handlers whose reply was dropped, with their spawn line, and the program goes on', async function () {
    await s.launchToLine(f.path, f.line('check'));
    const leaks = (await s.dc.customRequest('nlang/leaks', { stack: true })).body;
    assert.deepEqual(leaks.threads.map((l) => l.id), [6, 9, 12]);
    for (const l of leaks.threads) {
      assert.equal(l.waitReason, 'chan send');
      assert.deepEqual([l.parent, l.spawnedAt.line, l.spawnedAt.source.path], [1, f.line('spawnHandler'), f.path]);
      assert.equal(l.objectMadeAt.line, f.line('makeReply'));
      assert.deepEqual(l.stack.map((fr) => [fr.function, fr.line]), [['handle', f.line('handlerWaits')]]);
    }
    assert.equal(leaks.total, 7);
    // groups by spawn site: the workers, the leaked handlers, main
    const groups = (await s.dc.customRequest('nlang/threadGroups', { by: 'spawnSite' })).body;
    assert.deepEqual(groups.groups.map((g) => [g.key.replace(/.*\//, ''), g.count, g.threadIds]),
      [[`leaky.n:${f.line('spawnWorker')}`, 3, [2, 3, 4]], [`leaky.n:${f.line('spawnHandler')}`, 3, [6, 9, 12]], ['(main)', 1, [1]]]);
    // every thread knows who spawned it; a filter selects the leaked ones
    const all = (await s.dc.customRequest('nlang/threads', {})).body;
    assert.deepEqual(all.threads.map((t) => [t.id, t.parent || 0]), [[1, 0], [2, 1], [3, 1], [4, 1], [6, 1], [9, 1], [12, 1]]);
    const leaked = (await s.dc.customRequest('nlang/threads', { with: [{ key: 'leaked' }] })).body;
    assert.deepEqual(leaked.threads.map((t) => t.id), [6, 9, 12]);
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
    assert.match(s.output('stdout'), /served\n69\n/);
  });
});

describe('locations of values and variables (DAP 1.68)', function () {
  const f = fixture('values.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('resolves where a thread, a future, a channel, a mutex and a function value come from, and where each local is declared', async function () {
    await s.launchToLine(f.path, f.line('look'));
    const [top] = await s.stack(1);
    const locals = await s.vars((await s.scopes(top.id)).Locals.variablesReference);
    const line = async (ref) => {
      if (!ref) return 0;
      const r = await s.dc.customRequest('locations', { locationReference: ref });
      assert.equal(r.body.source.path, f.path);
      return r.body.line;
    };
    for (const [name, decl, value] of [['c', 'makeChan', 'makeChan'], ['t', 'spawnT', 'spawnT'], ['f', 'spawnF', 'spawnF'],
      ['m', 'makeMutex', 'makeMutex'], ['w', 'funcVal', 'worker'], ['b', 'makeBox', null]]) {
      assert.equal(await line(locals[name].declarationLocationReference), f.line(decl), `${name} declared`);
      assert.equal(await line(locals[name].valueLocationReference), value ? f.line(value) : 0, `${name}'s value`);
    }
    const t = await s.evaluate('t', top.id);
    assert.equal(await line(t.valueLocationReference), f.line('spawnT'));
    await assert.rejects(s.dc.customRequest('locations', { locationReference: 9999 }), /unknown location reference 9999/);
  });
});
