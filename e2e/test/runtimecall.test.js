// End-to-end: user code that the runtime calls (a toString while a List
// is converted to a string) is an ordinary activation for the debugger.
'use strict';

const assert = require('node:assert/strict');
const { Session, fixture } = require('../lib/harness');

describe('a toString called by the runtime', function () {
  const f = fixture('tostring.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('stops at a breakpoint in it, above a native frame and main', async function () {
    const stop = await s.launchToLine(f.path, f.line('ts'));
    assert.equal(stop.body.reason, 'breakpoint');
    const st = await s.dc.stackTraceRequest({ threadId: stop.body.threadId });
    const frames = st.body.stackFrames;
    assert.deepEqual(frames.map((fr) => [fr.name, fr.line]),
      [['P.toString', f.line('ts')], ['string conversion', 0], ['main', f.line('fmt')]]);
    assert.equal(frames[1].source, undefined);
    assert.equal(frames[1].presentationHint, 'subtle');
    const r = await s.dc.evaluateRequest({ expression: 'n', frameId: frames[0].id, context: 'watch' });
    assert.equal(r.body.result, '1');
  });

  it('runs to the end with the text the toString methods made', async function () {
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
    assert.equal(s.output('stdout'), 'l = [P1, P2]\n');
  });
});
