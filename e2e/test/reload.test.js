// End-to-end tests of edit and continue (nlang/reload, nlang/whatIf):
// the real binary over stdio, driven by DebugClient.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Session, fixture } = require('../lib/harness');

// copy puts a fixture in a temporary folder (the tests edit it) and
// returns it with its markers.
function copy(name) {
  const f = fixture(name);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-reload-'));
  const file = path.join(dir, name);
  fs.copyFileSync(f.path, file);
  return {
    path: file,
    line: f.line,
    edit(from, to) {
      const src = fs.readFileSync(file, 'utf8');
      assert.ok(src.includes(from), `no ${JSON.stringify(from)} in ${name}`);
      fs.writeFileSync(file, src.replace(from, to));
    },
  };
}

// reload sends nlang/reload and waits for the stopped event the session
// sends again (the program did not move, its frames did).
async function reload(s, args = {}) {
  const stopped = s.dc.waitForEvent('stopped');
  const r = await s.dc.customRequest('nlang/reload', args);
  const stop = await stopped;
  assert.equal(stop.body.nlang.reload, r.body.reload);
  return r.body;
}

describe('edit and continue (nlang/reload)', function () {
  let s;
  afterEach(async function () {
    if (s) await s.stop();
    s = undefined;
  });

  it('runs the edited function from the next call; a frame inside it finishes on the old code', async function () {
    const f = copy('reload.n');
    s = new Session();
    await s.start();
    await s.launchToLine(f.path, f.line('f2')); // f(0)
    await s.resume(() => s.dc.continueRequest({ threadId: 1 })); // f(1): y = 2
    f.edit('y = y + 1; // @bp f2', 'y = y + 100; // @bp f2');
    const b = await reload(s);
    assert.deepEqual(b.changed, ['f']);
    assert.deepEqual(b.frames.map((x) => [x.function, x.how]), [['f', 'old']]);
    const [top, caller] = await s.stack(1);
    assert.equal(top.name, 'f [old code]');
    assert.ok(top.source.sourceReference > 0);
    const text = await s.dc.sourceRequest({ sourceReference: top.source.sourceReference });
    assert.match(text.body.content, /y = y \+ 1;/);
    assert.equal(caller.name, 'main');
    // the breakpoint stops at its line, in the new code
    await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    const [again] = await s.stack(1);
    assert.deepEqual([again.name, again.line], ['f', f.line('f2')]);
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(s.output('stdout'), 'r 1\nr 3\nr 104\nr 106\ntotal 214\n');
  });

  it('restarts a frame running old code on the new code', async function () {
    const f = copy('reload.n');
    s = new Session();
    await s.start();
    await s.launchToLine(f.path, f.line('f2'));
    f.edit('y = y + 1; // @bp f2', 'y = y + 100; // @bp f2');
    await reload(s);
    const [top] = await s.stack(1);
    assert.equal(top.name, 'f [old code]');
    const stop = await s.resume(() => s.dc.customRequest('restartFrame', { frameId: top.id }));
    assert.equal(stop.body.reason, 'restart');
    const [again] = await s.stack(1);
    assert.deepEqual([again.name, again.line, again.source.path], ['f', f.line('f'), f.path]);
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(s.output('stdout'), 'r 100\nr 102\nr 104\nr 106\ntotal 412\n');
  });

  it('refuses a file that does not compile and a change the program cannot take; nothing changes', async function () {
    const f = copy('reload.n');
    s = new Session();
    await s.start();
    await s.launchToLine(f.path, f.line('add'));
    f.edit('y = y + 1;', 'y = y + ;');
    await assert.rejects(s.dc.customRequest('nlang/reload', {}), /reload\.n:11:13: expected expression/);
    f.edit('y = y + ;', 'y = y + 1;');
    f.edit('public int total;', 'public string total;');
    await assert.rejects(s.dc.customRequest('nlang/reload', {}), /reload\.n:4:19: cannot reload: field total of Acc changed its type from int to string/);
    f.edit('public string total;', 'public int total;');
    const [top] = await s.stack(1);
    assert.equal(top.name, 'Acc.add');
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(s.output('stdout'), 'r 1\nr 3\nr 5\nr 7\ntotal 16\n');
  });

  it('gives existing objects a new field with its initialiser, for a new function to use', async function () {
    const f = copy('reload.n');
    s = new Session();
    await s.start();
    await s.launchToLine(f.path, f.line('add'));
    f.edit('    public int total;\n', '    public int total;\n    public int calls = 1000;\n');
    f.edit('total = total + v; // @bp add', 'total = total + v; count(this); // @bp add');
    f.edit('int f(int x) {', 'void count(Acc a) {\n    a.calls = a.calls + 1;\n}\nint f(int x) {');
    const b = await reload(s);
    assert.deepEqual([b.added, b.fields, b.objects], [['count'], ['Acc.calls'], 1]);
    const [top] = await s.stack(1);
    assert.equal((await s.evaluate('calls', top.id)).result, '1000');
    // add was stopped at its entry: it runs the new code from there (main,
    // whose new Acc() now runs the initialiser, finishes on its old code)
    assert.deepEqual(b.frames.map((x) => [x.function, x.how]), [['main', 'old'], ['Acc.add', 'new']]);
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [{ line: f.line('add') + 1 }] });
    await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    const [next] = await s.stack(1);
    assert.equal((await s.evaluate('calls', next.id)).result, '1001');
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(s.output('stdout'), 'r 1\nr 3\nr 5\nr 7\ntotal 16\n');
  });

  it('reloads with three threads inside the edited function', async function () {
    const f = copy('reload3.n');
    s = new Session();
    await s.start();
    await s.launchToLine(f.path, f.line('inside'));
    f.edit('y = y + 1; // @bp f2', 'y = y + 100; // @bp f2');
    const b = await reload(s);
    const inF = b.frames.filter((x) => x.function === 'f' && x.how === 'old').map((x) => x.threadId).sort();
    assert.deepEqual(inF, [2, 3, 4]);
    for (const id of [2, 3, 4]) {
      const frames = await s.stack(id);
      assert.ok(frames.some((x) => x.name === 'f [old code]'), `thread ${id}: ${frames.map((x) => x.name)}`);
    }
    await s.dc.setBreakpointsRequest({ source: { path: f.path }, breakpoints: [] });
    await s.resumeToExit(() => s.dc.continueRequest({ threadId: 1 }));
    assert.equal(s.output('stdout'), 'sum 15 120\n');
  });

  it('says what the edit would have changed (nlang/whatIf)', async function () {
    const f = copy('reload.n');
    s = new Session();
    await s.start();
    await s.launchToLine(f.path, f.line('print'));
    await s.resume(() => s.dc.continueRequest({ threadId: 1 }));
    f.edit('y = y + 1;', 'y = y + 1 + x % 2;');
    const w = (await s.dc.customRequest('nlang/whatIf', { file: f.path, line: f.line('print'), expression: 'r' })).body;
    assert.equal(w.diverged, true);
    assert.deepEqual([w.what, w.hit, w.recorded, w.new, w.function], ['value', 2, 'r = 3 (thread 1)', 'r = 4 (thread 1)', 'main']);
  });
});
