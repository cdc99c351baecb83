// End-to-end: going back in time (supportsStepBack) with DebugClient.
'use strict';

const assert = require('node:assert/strict');
const { Session, fixture } = require('../lib/harness');

describe('going back (stepBack, reverseContinue)', function () {
  const f = fixture('prodcons.n');
  const MAIN = 1;
  const PRODUCER = 2;
  let s;

  before(async function () {
    s = new Session();
    await s.start();
    const stopped = s.dc.waitForEvent('stopped');
    const init = await s.launch({ program: f.path }, async (dc) => {
      await dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('got') }] });
    });
    assert.equal(init.body.supportsStepBack, true);
    await stopped; // first value received
  });
  after(async function () {
    if (s) await s.stop();
  });

  const local = async (threadId, name) => {
    const frames = await s.stack(threadId);
    return (await s.evaluate(name, frames[0].id)).result;
  };

  it('stops in the consumer after its second recv', async function () {
    const stop = await s.resume(() => s.dc.continueRequest({ threadId: MAIN }));
    assert.equal(stop.body.reason, 'breakpoint');
    assert.equal(await local(MAIN, 'v'), '10');
    assert.equal(await local(MAIN, 'sum'), '0');
  });

  it('steps back to the recv, and forward again', async function () {
    const back = await s.resume(() => s.dc.stepBackRequest({ threadId: MAIN }));
    assert.equal(back.body.reason, 'step');
    assert.equal(back.body.threadId, MAIN);
    const frames = await s.stack(MAIN);
    assert.equal(frames[0].line, f.line('got') - 1);
    const fwd = await s.resume(() => s.dc.nextRequest({ threadId: MAIN }));
    assert.equal(fwd.body.reason, 'step');
    assert.equal(await local(MAIN, 'v'), '10');
  });

  it("reverse-continues to the producer's send that delivered the value", async function () {
    await s.dc.setBreakpointsRequest({
      source: { path: f.path },
      breakpoints: [{ line: f.line('send'), condition: 'i * 10 == 10' }],
    });
    const stop = await s.resume(() => s.dc.send('reverseContinue', { threadId: MAIN }));
    assert.equal(stop.body.reason, 'breakpoint');
    assert.equal(stop.body.threadId, PRODUCER);
    const frames = await s.stack(PRODUCER);
    assert.equal(frames[0].name, 'producer');
    assert.equal(frames[0].line, f.line('send'));
    assert.equal(await local(PRODUCER, 'i'), '1');
  });

  it('runs forward to the end with the output shown once', async function () {
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    const e = await s.resumeToExit(() => s.dc.continueRequest({ threadId: MAIN }));
    assert.equal(e.body.exitCode, 0);
    assert.equal(s.output('stdout'), 'sum 30\n');
  });
});
