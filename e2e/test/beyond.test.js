// End-to-end: the requests beyond the common set (instructions, the
// scheduler view, thread control, data breakpoints, console editing).
'use strict';

const assert = require('node:assert/strict');
const { Session, fixture } = require('../lib/harness');

// addr moves an instruction address by n instructions.
const addr = (a, n) => '0x' + (BigInt(a) + BigInt(n)).toString(16);

describe('instructions', function () {
  const f = fixture('disasm.n');
  let s;
  let frame;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('advertises disassembly, instruction stepping and instruction breakpoints', async function () {
    const stopped = s.dc.waitForEvent('stopped');
    const init = await s.launch({ program: f.path }, async (dc) => {
      await dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('calls') }] });
    });
    for (const c of ['supportsDisassembleRequest', 'supportsSteppingGranularity', 'supportsInstructionBreakpoints']) {
      assert.equal(init.body[c], true, c);
    }
    await stopped;
    [frame] = await s.stack(1);
    assert.match(frame.instructionPointerReference, /^0x[0-9a-f]+$/);
  });

  it('disassembles around the frame as the Disassembly view asks', async function () {
    const r = await s.dc.customRequest('disassemble', {
      memoryReference: frame.instructionPointerReference, offset: 0, instructionOffset: -1, instructionCount: 4,
      resolveSymbols: true,
    });
    const list = r.body.instructions;
    assert.equal(list.length, 4);
    assert.equal(list[0].symbol, 'main');
    assert.equal(list[0].line, f.line('first'));
    assert.equal(list[0].location.path, f.path);
    assert.equal(list[1].address, frame.instructionPointerReference);
    assert.match(list[2].instruction, /^call .*; twice$/);
  });

  it('steps one instruction, over a call and into one', async function () {
    const step = async (command) => {
      const stop = await s.resume(() => s.dc.customRequest(command, { threadId: 1, granularity: 'instruction' }));
      assert.equal(stop.body.reason, 'step');
      return (await s.stack(1))[0];
    };
    assert.equal((await step('next')).instructionPointerReference, addr(frame.instructionPointerReference, 1));
    assert.equal((await step('next')).instructionPointerReference, addr(frame.instructionPointerReference, 2));
    await step('stepIn');
    const inside = await step('stepIn');
    assert.equal(inside.name, 'twice');
    const back = await step('stepOut');
    assert.equal(back.name, 'main');
    assert.equal(back.instructionPointerReference, addr(frame.instructionPointerReference, 4));
  });

  it('stops at an instruction breakpoint', async function () {
    const r = await s.dc.customRequest('setInstructionBreakpoints', {
      breakpoints: [{ instructionReference: frame.instructionPointerReference, offset: 5 }],
    });
    assert.equal(r.body.breakpoints[0].verified, true);
    const stop = await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(stop.body.reason, 'instruction breakpoint');
    const [top] = await s.stack(1);
    assert.equal(top.instructionPointerReference, addr(frame.instructionPointerReference, 5));
    await s.dc.customRequest('setInstructionBreakpoints', { breakpoints: [] });
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
    assert.equal(s.output('stdout'), '14\n');
  });
});

describe('the scheduler view (nlang/scheduler)', function () {
  const f = fixture('locks.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('shows two threads waiting for each other as a cycle', async function () {
    await s.launchToLine(f.path, f.line('join'));
    const r = await s.dc.customRequest('nlang/scheduler');
    const v = r.body;
    assert.deepEqual(v.parked.map((t) => [t.id, t.waitReason]).sort(), [[2, 'mutex lock'], [3, 'mutex lock'], [4, 'sleep']]);
    assert.deepEqual(v.timers.map((t) => t.threadId), [4]);
    assert.deepEqual(v.waitGraph.cycles, [[2, 3]]);
    const from = (n) => v.waitGraph.edges.find((e) => e.from === n);
    const wait = from('t2');
    assert.equal(wait.cycle, true);
    assert.equal(from(wait.to).to, 't3');
    assert.equal(v.deadlock, false);
  });
});

describe('thread control: restartFrame, goto, terminateThreads', function () {
  const f = fixture('threadctl.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('restarts a frame with its arguments', async function () {
    const stopped = s.dc.waitForEvent('stopped');
    const init = await s.launch({ program: f.path }, async (dc) => {
      await dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('countr') }] });
    });
    for (const c of ['supportsRestartFrame', 'supportsGotoTargetsRequest', 'supportsTerminateThreadsRequest']) {
      assert.equal(init.body[c], true, c);
    }
    await stopped;
    const [top] = await s.stack(1);
    const stop = await s.resume(() => s.dc.customRequest('restartFrame', { frameId: top.id }));
    assert.equal(stop.body.reason, 'restart');
    const [again] = await s.stack(1);
    assert.deepEqual([again.name, again.line], ['count', f.line('count')]);
    assert.equal((await s.evaluate('k', again.id)).result, '4');
  });

  it('moves the thread over a line with goto', async function () {
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('y2') }] });
    await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    const r = await s.dc.customRequest('gotoTargets', { source: { path: f.path }, line: f.line('printy') });
    const stop = await s.resume(() => s.dc.customRequest('goto', { threadId: 1, targetId: r.body.targets[0].id }));
    assert.equal(stop.body.reason, 'goto');
    const [top] = await s.stack(1);
    assert.equal(top.line, f.line('printy'));
  });

  it('terminates threads: finally blocks run, the future throws', async function () {
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('parked') }] });
    await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    await s.dc.customRequest('terminateThreads', { threadIds: [2, 3] });
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
    const out = s.output('stdout');
    assert.match(out, /^y 1$/m);
    assert.match(out, /^worker finally$/m);
    assert.match(out, /^future: thread 3 "thread-3" was terminated before it computed the future$/m);
    assert.match(out, /^joined$/m);
  });
});

describe('data breakpoints', function () {
  const f = fixture('watch.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('stops after a write that changes a field, on the thread that writes', async function () {
    const stopped = s.dc.waitForEvent('stopped');
    const init = await s.launch({ program: f.path }, async (dc) => {
      await dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('start') }] });
    });
    assert.equal(init.body.supportsDataBreakpoints, true);
    await stopped;
    const [top] = await s.stack(1);
    const locals = await s.vars((await s.scopes(top.id)).Locals.variablesReference);
    const info = await s.dc.customRequest('dataBreakpointInfo', { variablesReference: locals.p.variablesReference, name: 'x' });
    assert.deepEqual(info.body.accessTypes, ['write', 'readWrite']);
    const set = await s.dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId }] });
    assert.equal(set.body.breakpoints[0].verified, true);
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    let stop = await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(stop.body.reason, 'data breakpoint');
    assert.equal(stop.body.text, 'p.x: 0 -> 1');
    stop = await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(stop.body.threadId, 2);
    assert.equal(stop.body.text, 'p.x: 1 -> 5');
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
  });
});

describe('console and editing', function () {
  const f = fixture('editing.n');
  let s;
  let frame;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('advertises the console and editing requests', async function () {
    const stopped = s.dc.waitForEvent('stopped');
    const init = await s.launch({ program: f.path }, async (dc) => {
      await dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('calls') }] });
    });
    for (const c of ['supportsCompletionsRequest', 'supportsSetExpression', 'supportsBreakpointLocationsRequest',
      'supportsStepInTargetsRequest', 'supportsValueFormattingOptions', 'supportsExceptionFilterOptions',
      'supportsExceptionOptions', 'supportsCancelRequest']) {
      assert.equal(init.body[c], true, c);
    }
    await stopped;
    [frame] = await s.stack(1);
  });

  it('completes fields and methods after a dot, and debugger commands', async function () {
    let r = await s.dc.customRequest('completions', { frameId: frame.id, text: 'p.', column: 3 });
    const labels = r.body.targets.map((t) => t.label);
    for (const l of ['x', 'y', 'sum']) assert.ok(labels.includes(l), l);
    r = await s.dc.customRequest('completions', { frameId: frame.id, text: ':sch', column: 5 });
    assert.deepEqual(r.body.targets.map((t) => t.label), ['sched']);
  });

  it('sets p.x, arr[1] and d["k"] with setExpression, and shows hex', async function () {
    for (const [expression, value, want] of [['p.x', '5', '5'], ['arr[1]', '41', '41'], ['d["k"]', '7', '7']]) {
      const r = await s.dc.customRequest('setExpression', { expression, value, frameId: frame.id });
      assert.equal(r.body.value, want);
    }
    const r = await s.dc.evaluateRequest({ expression: 'big', frameId: frame.id, context: 'watch', format: { hex: true } });
    assert.equal(r.body.result, '0xff');
  });

  it('lists breakpoint locations and step-in targets, and steps into one', async function () {
    const loop = f.line('fail') - 2;
    const locs = await s.dc.customRequest('breakpointLocations', { source: { path: f.path }, line: loop });
    assert.equal(locs.body.breakpoints.length, 3);
    const r = await s.dc.customRequest('stepInTargets', { frameId: frame.id });
    assert.deepEqual(r.body.targets.map((t) => t.label), ['twice', 'inc']);
    const stop = await s.resume(() => s.dc.stepInRequest({ threadId: 1, targetId: r.body.targets[1].id }));
    assert.equal(stop.body.reason, 'step');
    const [top] = await s.stack(1);
    assert.equal(top.name, 'inc');
  });

  it('stops only on the exception classes a filter names', async function () {
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    await s.dc.setExceptionBreakpointsRequest({ filters: [], filterOptions: [{ filterId: 'all', condition: 'MyError' }] });
    const stop = await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(stop.body.reason, 'exception');
    const info = await s.dc.exceptionInfoRequest({ threadId: 1 });
    assert.equal(info.body.exceptionId, 'BadInput');
    await s.dc.setExceptionBreakpointsRequest({ filters: [] });
    const exited = await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(exited.body.exitCode, 0);
  });
});

describe('cancel', function () {
  const f = fixture('slow.n');
  let s;
  before(async function () {
    s = new Session();
    await s.start();
  });
  after(async function () {
    if (s) await s.stop();
  });

  it('cancels a long evaluation', async function () {
    await s.launchToLine(f.path, f.line('start'));
    const [top] = await s.stack(1);
    const evaluation = s.dc.evaluateRequest({ expression: 'slow(20)', frameId: top.id, context: 'repl' });
    // the evaluate request went out first (DebugClient numbers requests
    // in order): its seq is the one before cancel's
    const cancel = s.dc.customRequest('cancel', { requestId: s.dc.sequence - 1 });
    await assert.rejects(evaluation, /cancelled/);
    await cancel;
  });
});
