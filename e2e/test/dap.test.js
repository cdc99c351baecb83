// End-to-end tests of `nlangdbg dap`: the real binary, driven over stdio
// by Microsoft's DebugClient (@vscode/debugadapter-testsupport).
'use strict';

const assert = require('node:assert/strict');
const { Session, fixture } = require('../lib/harness');

describe('nlangdbg dap over stdio', function () {
  let s;
  const open = async () => {
    s = new Session();
    await s.start();
    return s;
  };
  const close = async () => {
    if (s) await s.stop();
    s = undefined;
  };

  describe('initialize', function () {
    before(open);
    after(close);

    it('advertises the capabilities the tests rely on', async function () {
      const r = await s.dc.initializeRequest();
      const caps = r.body;
      for (const c of ['supportsConfigurationDoneRequest', 'supportsConditionalBreakpoints',
        'supportsFunctionBreakpoints', 'supportsSetVariable', 'supportsExceptionInfoRequest',
        'supportsSingleThreadExecutionRequests']) {
        assert.equal(caps[c], true, c);
      }
      assert.deepEqual(caps.exceptionBreakpointFilters.map((f) => f.filter), ['uncaught', 'all']);
    });
  });

  // One program, one session: the its below run in order, each going on
  // from where the one before left the program.
  describe('a conditional breakpoint in a spawned thread', function () {
    const f = fixture('workers.n');
    const WORKER = 3; // main is 1, the spinner 2 (spawned first), the worker 3
    let stop;
    let frame;

    before(async function () {
      await open();
      // quota 1: threads switch at every safepoint, so the spinner really
      // runs between the worker's steps.
      const stopped = s.dc.waitForEvent('stopped');
      await s.launch({ program: f.path, quota: 1 }, async (dc) => {
        const r = await dc.setBreakpointsRequest({
          source: { path: f.path },
          breakpoints: [{ line: f.line('cond'), condition: 'i == 3' }, { line: f.line('print') }],
        });
        assert.deepEqual(r.body.breakpoints.map((b) => [b.verified, b.line]),
          [[true, f.line('cond')], [true, f.line('print')]]);
      });
      stop = await stopped;
    });
    after(close);

    it('stops in the spawned thread when the condition holds', async function () {
      assert.equal(stop.body.reason, 'breakpoint');
      assert.equal(stop.body.threadId, WORKER);
      assert.equal(stop.body.allThreadsStopped, true);
      assert.equal(stop.body.hitBreakpointIds.length, 1);
    });

    it('lists every thread with its id and name', async function () {
      const r = await s.dc.threadsRequest();
      const threads = r.body.threads;
      assert.deepEqual(threads.map((t) => t.id), [1, 2, WORKER]);
      const byId = Object.fromEntries(threads.map((t) => [t.id, t.name]));
      // [ID] NAME · FUNC · STATE (a waiting thread's state is its wait reason)
      assert.equal(byId[1], '[1] main · main · join crunch');
      assert.match(byId[2], /^\[2\] thread-2 · (spinner|square) · runnable$/);
      assert.match(byId[WORKER], /^\[3\] crunch · worker · (runnable|running|stopped)$/);
    });

    it("shows the stack of the stopped thread, not main's", async function () {
      const frames = await s.stack(WORKER);
      assert.equal(frames[0].name, 'worker');
      assert.equal(frames[0].line, f.line('cond'));
      assert.equal(frames[0].source.path, f.path);
      assert.ok(!frames.some((fr) => fr.name === 'main'), JSON.stringify(frames));
      frame = frames[0];
    });

    it('shows a local int and an object field', async function () {
      const sc = await s.scopes(frame.id);
      assert.ok(sc.Locals, `scopes ${Object.keys(sc)}`);
      const locals = await s.vars(sc.Locals.variablesReference);
      assert.equal(locals.i.value, '3');
      assert.equal(locals.i.type, 'int');
      assert.equal(locals.n.value, '6');

      // c is a parameter: look in every scope of the frame.
      let c;
      for (const scope of Object.values(sc)) {
        c = c || (await s.vars(scope.variablesReference)).c;
      }
      assert.ok(c, 'no variable c in any scope');
      assert.equal(c.type, 'Counter');
      assert.ok(c.variablesReference > 0, 'c has no children');
      const fields = await s.vars(c.variablesReference);
      assert.equal(fields.hits.value, '5'); // 0 + 1 + 4 before i == 3
      assert.equal(fields.label.value, '"ctr"');
      assert.equal(fields.hits.evaluateName, 'c.hits');
    });

    it('evaluates an expression in that frame', async function () {
      const v = await s.evaluate('i * 10 + c.hits', frame.id);
      assert.equal(v.result, '35');
      assert.equal(v.type, 'int');
      const label = await s.evaluate('c.label', frame.id, 'hover');
      assert.equal(label.result, '"ctr"');
    });

    it('steps over on the same thread while the spinner runs', async function () {
      const spinnerJ = async () => {
        const frames = await s.stack(2);
        const sp = frames.find((fr) => fr.name === 'spinner');
        assert.ok(sp, `no spinner frame in ${JSON.stringify(frames)}`);
        return Number((await s.evaluate('j', sp.id)).result);
      };
      const before = await spinnerJ();

      const stepped = await s.resume(() => s.dc.nextRequest({ threadId: WORKER }));
      assert.equal(stepped.body.reason, 'step');
      assert.equal(stepped.body.threadId, WORKER);
      const frames = await s.stack(WORKER);
      assert.equal(frames[0].name, 'worker');
      assert.equal(frames[0].line, f.line('next'));
      assert.equal((await s.evaluate('sq', frames[0].id)).result, '9');
      assert.equal((await s.evaluate('i', frames[0].id)).result, '3');

      // The other thread was runnable and ran during the step (the worker's
      // call to square() is a safepoint where quota 1 switches threads).
      assert.ok(await spinnerJ() > before, 'the spinner did not run during the step');
    });

    it('changes a local with setVariable, and the output shows it', async function () {
      // The condition holds once: the next stop is main's breakpoint.
      const atPrint = s.dc.assertStoppedLocation('breakpoint', { path: f.path, line: f.line('print') });
      await s.dc.continueRequest({ threadId: WORKER });
      const st = await atPrint;
      const top = st.body.stackFrames[0];
      assert.equal(top.name, 'main');
      assert.equal(s.output('stdout'), 'worker ctr 55\n');

      const sc = await s.scopes(top.id);
      const locals = await s.vars(sc.Locals.variablesReference);
      assert.equal(locals.answer.value, '10');
      const r = await s.dc.setVariableRequest({ variablesReference: sc.Locals.variablesReference, name: 'answer', value: '42' });
      assert.equal(r.body.value, '42');
      assert.equal((await s.evaluate('answer', top.id)).result, '42');

      const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
      assert.deepEqual(s.programOutput(), [['stdout', 'worker ctr 55\n'], ['stdout', 'answer 42\n']]);
      assert.equal(exited.body.exitCode, 42); // main returns answer
    });
  });

  describe('an uncaught exception', function () {
    const f = fixture('errors.n');
    let stop;

    before(async function () {
      await open();
      const stopped = s.dc.waitForEvent('stopped');
      await s.launch({ program: f.path }, async (dc) => {
        await dc.setExceptionBreakpointsRequest({ filters: ['uncaught'] });
      });
      stop = await stopped;
    });
    after(close);

    it('stops where it is thrown, not at the caught one', async function () {
      assert.equal(stop.body.reason, 'exception');
      assert.equal(stop.body.threadId, 1);
      const frames = await s.stack(1);
      assert.equal(frames[0].name, 'Loader.load');
      assert.equal(frames[0].line, f.line('throw'));
      assert.equal(frames[1].name, 'main');
      assert.equal((await s.evaluate('key', frames[0].id)).result, '"b"');
      // The caught exception ran its handler without stopping.
      assert.equal(s.output('stdout'), 'caught missing zz\nloading\n');
    });

    it('describes it with exceptionInfo', async function () {
      const r = await s.dc.exceptionInfoRequest({ threadId: 1 });
      assert.equal(r.body.exceptionId, 'ConfigError');
      assert.equal(r.body.description, 'missing b');
      assert.equal(r.body.breakMode, 'unhandled');
      assert.equal(r.body.details.typeName, 'ConfigError');
      assert.equal(r.body.details.message, 'missing b');
      // No line numbers: the backtrace gives an explicit throw the line of
      // the instruction after it (17 here), where stackTrace says 16.
      assert.match(r.body.details.stackTrace, /^ConfigError: missing b\n {2}at Loader\.load \(errors\.n:\d+\)\n {2}at main \(errors\.n:\d+\)/);
    });

    it('ends the program with exit code 1 and the error on stderr', async function () {
      const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
      assert.equal(exited.body.exitCode, 1);
      assert.match(s.output('stderr'), /^warn\nRuntime error: ConfigError: missing b\n {2}at Loader\.load \(errors\.n:\d+\)\n {2}at main \(errors\.n:\d+\)\n/);
    });
  });

  describe('the "all" exception filter', function () {
    const f = fixture('errors.n');
    before(open);
    after(close);

    it('stops at a caught exception too', async function () {
      const stopped = s.dc.waitForEvent('stopped');
      await s.launch({ program: f.path }, (dc) => dc.setExceptionBreakpointsRequest({ filters: ['all'] }));
      const st = await stopped;
      assert.equal(st.body.reason, 'exception');
      const frames = await s.stack(1);
      assert.equal(frames[0].line, f.line('throw'));
      assert.equal((await s.evaluate('key', frames[0].id)).result, '"zz"');
      const info = await s.dc.exceptionInfoRequest({ threadId: 1 });
      assert.equal(info.body.exceptionId, 'ConfigError');
      assert.equal(info.body.description, 'missing zz');
      assert.notEqual(info.body.breakMode, 'unhandled');
    });
  });

  describe('a function breakpoint on Class.method', function () {
    const f = fixture('shapes.n');
    before(open);
    after(close);

    it('stops at the method entry with its fields at hand', async function () {
      // The hitBreakpoint pattern, with a function breakpoint.
      const [, , st] = await Promise.all([
        s.dc.waitForEvent('initialized').then(async () => {
          const r = await s.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'Rect.area' }] });
          assert.equal(r.body.breakpoints.length, 1);
          assert.equal(r.body.breakpoints[0].verified, true);
          return s.dc.configurationDoneRequest();
        }),
        s.dc.launch({ program: f.path }),
        s.dc.assertStoppedLocation('function breakpoint', { path: f.path, line: f.line('area') }),
      ]);
      const top = st.body.stackFrames[0];
      assert.equal(top.name, 'Rect.area');
      assert.equal(st.body.stackFrames[1].name, 'main');
      assert.equal((await s.evaluate('w * h', top.id)).result, '15');
      assert.equal((await s.evaluate('this.w', top.id)).result, '3');
      assert.deepEqual(s.programOutput(), [['stdout', 'one\n'], ['stderr', 'two\n']]);
    });

    it('sends the rest of the output in order, then exited with the exit code', async function () {
      const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
      assert.deepEqual(s.programOutput(), [
        ['stdout', 'one\n'], ['stderr', 'two\n'], ['stdout', 'area 15\n'], ['stdout', 'three\n'],
      ]);
      assert.equal(exited.body.exitCode, 7);
      // exited comes after the last output and before terminated
      const order = s.log.map((e) => e.event).filter((e) => ['output', 'exited', 'terminated'].includes(e));
      assert.deepEqual(order.slice(-3), ['output', 'exited', 'terminated']);
    });
  });

  describe('a line breakpoint set when initialized arrives', function () {
    const f = fixture('errors.n');
    before(open);
    after(close);

    // hitBreakpoint sends launch as soon as initialize answers and
    // setBreakpoints when initialized arrives: the launch goes first.
    it('is verified and hit (DebugClient.hitBreakpoint)', async function () {
      await s.dc.hitBreakpoint({ program: f.path }, { path: f.path, line: f.line('throw') });
      const frames = await s.stack(1);
      assert.equal((await s.evaluate('prefix + key', frames[0].id)).result, '"missing zz"');
    });
  });

  // Pending: the server answers a setBreakpoints sent between the
  // initialized event and launch with {verified: false, no id}, then sets
  // the breakpoint at launch and stops with hitBreakpointIds [1], an id the
  // client never got, and sends no breakpoint event to verify it. Remove
  // .skip once that is fixed.
  describe('a line breakpoint set before launch', function () {
    const f = fixture('workers.n');
    before(open);
    after(close);

    it('ends verified, under an id the client knows', async function () {
      const bps = new Map(); // id -> breakpoint, as the client knows it
      s.dc.on('breakpoint', (e) => {
        if (e.body.breakpoint.id !== undefined) bps.set(e.body.breakpoint.id, e.body.breakpoint);
      });
      const initialized = s.dc.waitForEvent('initialized');
      await s.dc.initializeRequest();
      await initialized;
      const r = await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('print') }] });
      for (const b of r.body.breakpoints) if (b.id !== undefined) bps.set(b.id, b);
      const stopped = s.dc.waitForEvent('stopped');
      await s.dc.launchRequest({ program: f.path });
      await s.dc.configurationDoneRequest();
      const st = await stopped;
      assert.equal(st.body.reason, 'breakpoint');
      for (const id of st.body.hitBreakpointIds || []) {
        assert.ok(bps.has(id), `stopped at breakpoint ${id}, which the client never heard of`);
        assert.equal(bps.get(id).verified, true, `breakpoint ${id} hit but still unverified`);
      }
      assert.equal(bps.size, 1, 'the client knows no breakpoint id');
    });
  });

  describe('a run without breakpoints', function () {
    const f = fixture('shapes.n');
    before(open);
    after(close);

    it('runs to the end: configurationSequence, output, exit code', async function () {
      const exited = s.dc.waitForEvent('exited');
      await Promise.all([s.dc.configurationSequence(), s.dc.launch({ program: f.path })]);
      assert.equal((await exited).body.exitCode, 7);
      await s.untilOutput('stdout', 'three\n');
      assert.equal(s.output('stdout'), 'one\narea 15\nthree\n');
      assert.equal(s.output('stderr'), 'two\n');
    });
  });
});
