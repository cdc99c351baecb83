// End-to-end tests of what the third round of debugger fixes added to the
// protocol: the program's input from a file (launch "stdin"), the reason
// of a breakpoint that cannot be verified (DAP 1.64), the returnValue scope
// after a step out (DAP 1.67), supportsANSIStyling (DAP 1.69).
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Session, fixture } = require('../lib/harness');

describe('round 3: input, breakpoint reasons, return values', function () {
  const f = fixture('input.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('reads its input from the launch\'s stdin file, says why a breakpoint fails, shows a return value', async function () {
    const input = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-e2e-')), 'in.txt');
    fs.writeFileSync(input, 'ada\n');
    const stopped = s.dc.waitForEvent('stopped');
    let bps;
    const init = await s.launch({ program: f.path, stdin: input }, async (dc) => {
      bps = await dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('twice') }, { line: 999 }] });
    });
    assert.equal(init.body.supportsANSIStyling, true);
    assert.equal(bps.body.breakpoints[0].verified, true);
    assert.equal(bps.body.breakpoints[0].reason, undefined);
    assert.equal(bps.body.breakpoints[1].verified, false);
    assert.equal(bps.body.breakpoints[1].reason, 'failed');
    const stop = await stopped;
    assert.equal(stop.body.reason, 'breakpoint');
    const out = await s.resume(() => s.dc.stepOutRequest({ threadId: 1 }));
    assert.equal(out.body.reason, 'step');
    const [top] = await s.stack(1);
    assert.equal(top.line, f.line('call'));
    const scopes = await s.scopes(top.id);
    assert.equal(scopes['Return value'].presentationHint, 'returnValue');
    const ret = await s.vars(scopes['Return value'].variablesReference);
    assert.equal(ret['Return value'].value, '6');
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
    assert.equal(s.output('stdout'), 'hello ada 6\n');
  });
});
