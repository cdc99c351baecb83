// End-to-end tests of non-stop debugging (DAP 1.65 breakpoint modes): a
// breakpoint in mode "thread" stops its worker alone while the ticker
// keeps printing; the stopped worker is read and changed, continued and
// stepped alone; an "all" breakpoint stops every thread; a nonStop launch
// pauses one thread at a time.
'use strict';

const assert = require('node:assert/strict');
const { Session, fixture } = require('../lib/harness');

const ticks = (s) => (s.output('stdout').match(/tick /g) || []).length;

// stoppedEvents is the stopped events recorded so far.
const stoppedEvents = (s) => s.log.filter((e) => e.event === 'stopped').map((e) => e.body);

describe('non-stop: one thread stopped while the others run', function () {
  const f = fixture('nonstop.n');
  let s;
  beforeEach(async function () {
    s = new Session();
    await s.start();
  });
  afterEach(async function () {
    if (s) await s.stop();
  });

  it('stops a worker alone at a thread-mode breakpoint, reads, changes and resumes it while the ticker prints', async function () {
    const init = await s.launch({ program: f.path }, async (dc) => {
      const r = await dc.customRequest('setBreakpoints', { source: { path: f.path },
        breakpoints: [{ line: f.line('work'), mode: 'thread' }, { line: f.line('main'), mode: 'all' }] });
      assert.deepEqual(r.body.breakpoints.map((b) => b.verified), [true, true]);
    });
    assert.deepEqual(init.body.breakpointModes.map((m) => m.mode), ['all', 'thread']);
    // both workers stop, each alone
    await s.until(() => stoppedEvents(s).length >= 2, 'two workers stopped');
    const [first, second] = stoppedEvents(s);
    for (const st of [first, second]) {
      assert.equal(st.reason, 'breakpoint');
      assert.ok(!st.allThreadsStopped); // (false is left out)
    }
    // the ticker's output keeps arriving
    const n = ticks(s);
    await s.until(() => ticks(s) > n + 20, 'more ticks');
    const threads = (await s.dc.threadsRequest()).body.threads;
    const held = new Set([first.threadId, second.threadId]);
    for (const t of threads) {
      assert.equal(/· stopped$/.test(t.name), held.has(t.id), t.name);
    }
    // evaluate and setVariable in the first while the others run
    const [top] = await s.stack(first.threadId);
    assert.equal(top.line, f.line('work'));
    const locals = (await s.scopes(top.id)).Locals;
    const acc = (await s.vars(locals.variablesReference)).acc.value;
    assert.ok(acc === '10' || acc === '20', acc);
    assert.equal((await s.evaluate('acc + 1', top.id)).result, String(Number(acc) + 1));
    const set = await s.dc.setVariableRequest({ variablesReference: locals.variablesReference, name: 'acc', value: '41' });
    assert.equal(set.body.value, '41');
    // continue the first alone, then step the second alone
    const cont = await s.dc.continueRequest({ threadId: first.threadId });
    assert.ok(!cont.body.allThreadsContinued);
    const step = await s.resume(() => s.dc.nextRequest({ threadId: second.threadId }));
    assert.equal(step.body.threadId, second.threadId);
    assert.ok(!step.body.allThreadsStopped);
    assert.equal((await s.stack(second.threadId))[0].line, f.line('next'));
    // the all-mode breakpoint in main stops every thread
    const all = await s.resume(() => s.dc.continueRequest({ threadId: second.threadId }));
    assert.equal(all.body.threadId, 1);
    assert.equal(all.body.allThreadsStopped, true);
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
    const want = first.threadId === 3 ? 'results 43 22' : 'results 12 43';
    assert.match(s.output('stdout'), new RegExp(`${want}\nticker done\n$`));
  });

  it('pauses one thread of a nonStop launch; main, which joins it, waits', async function () {
    await s.launch({ program: f.path, nonStop: true }, async (dc) => {
      await dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('main') }] });
    });
    // the breakpoint, no mode given, stops main alone (non-stop); the
    // ticker goes on until it is paused
    const atMain = await s.until(() => stoppedEvents(s)[0], 'main stopped');
    assert.equal(atMain.threadId, 1);
    assert.ok(!atMain.allThreadsStopped);
    const n = ticks(s);
    await s.until(() => ticks(s) > n + 10, 'ticks');
    const paused = await s.resume(() => s.dc.pauseRequest({ threadId: 2 }));
    assert.equal(paused.body.threadId, 2);
    assert.equal(paused.body.reason, 'pause');
    assert.ok(!paused.body.allThreadsStopped);
    // continue main alone: it stops the ticker, joins it, and waits
    await s.dc.continueRequest({ threadId: 1 });
    await s.untilOutput('console', 'thread 1 "main" waits for join thread-2, held by thread 2 "thread-2" (stopped by the debugger)');
    assert.match(s.output('console'), /note: nothing else can run while the debugger holds thread 2 "thread-2"/);
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 2 }));
    assert.equal(exited.body.exitCode, 0);
    assert.match(s.output('stdout'), /ticker done\n$/);
  });
});
