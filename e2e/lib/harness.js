// Helpers for driving `nlangdbg dap` over stdio with DebugClient.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const FIXTURES = path.resolve(__dirname, '..', 'fixtures');

// adapterPath returns the nlangdbg binary that .ci/run built and passed
// in NLANGDBG (an absolute path); the tests build nothing themselves.
function adapterPath() {
  const bin = process.env.NLANGDBG;
  if (!bin) {
    throw new Error('set NLANGDBG to the nlangdbg binary (go build -o /abs/nlangdbg ./cmd/nlangdbg)');
  }
  if (!path.isAbsolute(bin)) {
    throw new Error(`NLANGDBG must be an absolute path, got ${bin}`);
  }
  fs.accessSync(bin, fs.constants.X_OK);
  return bin;
}

// fixture loads fixtures/NAME and finds its `// @bp TAG` markers.
function fixture(name) {
  const file = path.join(FIXTURES, name);
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const tags = new Map();
  lines.forEach((text, i) => {
    const m = /\/\/ @bp (\w+)/.exec(text);
    if (m) tags.set(m[1], i + 1);
  });
  return {
    path: file,
    line(tag) {
      const n = tags.get(tag);
      if (n === undefined) throw new Error(`${name} has no "// @bp ${tag}" marker`);
      return n;
    },
  };
}

// Session wraps one DebugClient (one adapter process) and records, in
// arrival order, every event a test may look back at.
class Session {
  constructor() {
    // DebugClient(runtime, executable, debugType) spawns `runtime
    // executable`: the native binary is the runtime, `dap` its argument.
    this.dc = new DebugClient(adapterPath(), 'dap', 'nlang', { stdio: 'pipe' }, !!process.env.E2E_STDERR);
    this.dc.defaultTimeout = 10000;
    this.log = []; // {event, body} for output, stopped, thread, exited, terminated
    this.waiters = new Set();
    for (const name of ['output', 'stopped', 'thread', 'exited', 'terminated', 'continued']) {
      this.dc.on(name, (e) => {
        this.log.push({ event: name, body: e.body || {} });
        for (const w of [...this.waiters]) w();
      });
    }
  }

  start() {
    return this.dc.start();
  }

  // stop disconnects (which ends a launched program) and kills the adapter.
  stop() {
    return this.dc.stop();
  }

  // launch initializes, launches, runs configure (breakpoints) once the
  // initialized event is in, then sends configurationDone. It returns the
  // initialize response.
  async launch(args, configure = async () => {}) {
    const initialized = this.dc.waitForEvent('initialized');
    const init = await this.dc.initializeRequest();
    await this.dc.launchRequest(args);
    await initialized;
    await configure(this.dc);
    await this.dc.configurationDoneRequest();
    return init;
  }

  // launchToLine launches program with one breakpoint, at line, and
  // returns the stopped event of its first hit.
  async launchToLine(program, line) {
    const stopped = this.dc.waitForEvent('stopped');
    await this.launch({ program }, async (dc) => {
      await dc.setBreakpointsRequest({ source: { path: program }, breakpoints: [{ line }] });
    });
    return stopped;
  }

  // output is the text of the output events of one category so far.
  output(category) {
    return this.log.filter((e) => e.event === 'output' && e.body.category === category)
      .map((e) => e.body.output).join('');
  }

  // until resolves once pred() holds, checking after every recorded event.
  until(pred, what, timeout = this.dc.defaultTimeout) {
    return new Promise((resolve, reject) => {
      const check = () => {
        let v;
        try {
          v = pred();
        } catch (err) {
          done();
          reject(err);
          return;
        }
        if (v) {
          done();
          resolve(v);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeout} ms waiting for ${what}; events so far:\n` +
          this.log.map((e) => `  ${e.event} ${JSON.stringify(e.body)}`).join('\n')));
      }, timeout);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  // untilOutput waits until the category's text contains text.
  untilOutput(category, text) {
    return this.until(() => this.output(category).includes(text), `${category} output ${JSON.stringify(text)}`);
  }

  // resume sends a request that resumes the program and returns the next
  // stopped event. The waiter is armed before the request goes out:
  // DebugClient drops events that arrive while nobody listens.
  async resume(send) {
    const stopped = this.dc.waitForEvent('stopped');
    await send();
    return stopped;
  }

  // resumeToExit sends a request after which the program ends, and
  // returns the exited event (terminated must follow it).
  async resumeToExit(send) {
    const exited = this.dc.waitForEvent('exited');
    const terminated = this.dc.waitForEvent('terminated');
    await send();
    const e = await exited;
    await terminated;
    return e;
  }

  async stack(threadId) {
    const r = await this.dc.stackTraceRequest({ threadId });
    return r.body.stackFrames;
  }

  // scopes returns a frame's scopes by name.
  async scopes(frameId) {
    const r = await this.dc.scopesRequest({ frameId });
    return Object.fromEntries(r.body.scopes.map((s) => [s.name, s]));
  }

  // vars returns a container's variables by name.
  async vars(variablesReference) {
    const r = await this.dc.variablesRequest({ variablesReference });
    return Object.fromEntries(r.body.variables.map((v) => [v.name, v]));
  }

  async evaluate(expression, frameId, context = 'watch') {
    const r = await this.dc.evaluateRequest({ expression, frameId, context });
    return r.body;
  }

  // programOutput is the program's stdout and stderr events in order.
  programOutput() {
    return this.log.filter((e) => e.event === 'output' && (e.body.category === 'stdout' || e.body.category === 'stderr'))
      .map((e) => [e.body.category, e.body.output]);
  }
}

module.exports = { Session, fixture };
