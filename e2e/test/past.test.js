// End-to-end: the questions about the past (docs/past.md) with
// DebugClient — who wrote the counter, where main's value came from, a
// logpoint added after the fact, a worker's timeline, and travel.
'use strict';

const assert = require('node:assert/strict');
const { Session, fixture } = require('../lib/harness');

describe('questions about the past (nlang/lastWrites, origin, query, timeline, travel)', function () {
  const f = fixture('past.n');
  const MAIN = 1;
  let s;
  let frameId;

  before(async function () {
    s = new Session();
    await s.start();
    await s.launchToLine(f.path, f.line('done'));
    frameId = (await s.stack(MAIN))[0].id;
  });
  after(async function () {
    if (s) await s.stop();
  });

  let lost;

  it('names the write that lost the others\' updates: thread, line, 3 -> 1', async function () {
    const r = await s.dc.customRequest('nlang/lastWrites', { expression: 'c.count', frameId, count: 3 });
    const ws = r.body.writes;
    assert.deepEqual(ws.map((w) => [w.threadId, w.line, w.oldValue, w.newValue]),
      [[2, f.line('update'), '3', '1'], [4, f.line('update'), '2', '3'], [3, f.line('update'), '0', '2']]);
    assert.equal(ws[0].name, 'Worker.run');
    assert.equal(ws[0].source.path, f.path);
    lost = ws[0];
  });

  it('follows main\'s last value back across the channel to the worker that sent it', async function () {
    const r = await s.dc.customRequest('nlang/origin', { expression: 'last', frameId });
    const steps = r.body.steps;
    assert.equal(steps[1].kind, 'received');
    assert.equal(steps[2].kind, 'sent');
    assert.equal(steps[2].threadId, 2);
    assert.equal(steps[2].line, f.line('send'));
    assert.ok(steps.some((st) => st.kind === 'written' && st.text.includes('3 -> 1')));
  });

  it('answers a logpoint added after the fact, in order', async function () {
    const r = await s.dc.customRequest('nlang/query', { source: { path: f.path }, line: f.line('update'), expression: 'v', condition: 'v < 2' });
    assert.deepEqual(r.body.hits.map((h) => [h.threadId, h.value]), [[4, '1'], [2, '1']]);
    assert.equal(r.body.total, 2);
  });

  it('gives a worker\'s timeline: spawn, park on its channel, wake, end', async function () {
    const r = await s.dc.customRequest('nlang/timeline', { threadId: 2 });
    assert.deepEqual(r.body.entries.map((e) => e.kind), ['spawned', 'ran', 'parked', 'woken', 'ran', 'ended']);
    assert.equal(r.body.entries[2].reason, 'chan recv');
    assert.equal(r.body.entries[3].byThread, MAIN);
  });

  it('refuses a query of a line with no code, with the reason', async function () {
    await assert.rejects(s.dc.customRequest('nlang/query', { source: { path: f.path }, line: 3, expression: 'v' }), /has no code/);
  });

  it('travels to the write: the writer stops there, about to write', async function () {
    const stop = await s.resume(() => s.dc.customRequest('nlang/travel', { moment: lost.moment }));
    assert.equal(stop.body.reason, 'goto');
    assert.equal(stop.body.threadId, 2);
    const frames = await s.stack(2);
    assert.equal(frames[0].line, f.line('update'));
    assert.equal((await s.evaluate('c.count', frames[0].id)).result, '3');
    const next = await s.resume(() => s.dc.nextRequest({ threadId: 2 }));
    assert.equal(next.body.reason, 'step');
    assert.equal((await s.evaluate('c.count', (await s.stack(2))[0].id)).result, '1');
  });
});
