'use strict';
// The NLang extension in the real VS Code workbench (code-server in
// headless Chromium), as a user meets it: a .n file opens with colours and
// the language in the status bar; in a fresh folder (no launch.json) a
// breakpoint in a spawned thread, F5, the debugger picked, the Call Stack
// lists the virtual threads by name, Variables shows the locals, the
// Virtual threads view shows the run queue and main parked on its channel,
// a step, Step Back, the Disassembly view, a continue to the other thread, and the output in the Debug Console;
// NLang: Run File runs a file past its breakpoint to the end; the view
// marks the threads a server leaks and counts threads in groups; saving an
// edit while paused reloads the code (edit and continue); an attach
// configuration connects to `nlangdbg run --listen` and detaches; a
// nonStop launch pauses a worker at its breakpoint while the ticker keeps
// printing, its Call Stack entry "Running".
// Needs NLANG_VSIX, NLANGDBG (absolute paths) and E2E_OUT (screenshots,
// and dap.log: every DAP message of the sessions VS Code starts; a failed
// step prints its end). E2E_TIMES=1 prints how long each step took.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { Workbench } = require('../lib/workbench');

for (const v of ['NLANG_VSIX', 'NLANGDBG', 'E2E_OUT']) {
  if (!process.env[v] || !path.isAbsolute(process.env[v])) throw new Error(`set ${v} to an absolute path`);
}
const out = process.env.E2E_OUT;
fs.mkdirSync(out, { recursive: true });

// A fresh folder holding the fixture program, with no .vscode in it.
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-ws-'));
const program = path.join(folder, 'workers.n');
fs.copyFileSync(path.join(__dirname, '..', 'workspace', 'workers.n'), program);
const lines = fs.readFileSync(program, 'utf8').split('\n');
const bpLine = lines.findIndex((l) => l.includes('// @bp done')) + 1;
// For the leaks: a server that drops some replies, stopped at @bp check.
const leaky = path.join(folder, 'leaky.n');
fs.copyFileSync(path.join(__dirname, '..', 'workspace', 'leaky.n'), leaky);
const leakyLines = fs.readFileSync(leaky, 'utf8').split('\n');
const leakyLine = (tag) => leakyLines.findIndex((l) => l.includes(`// @bp ${tag}`)) + 1;
// For Run File: a breakpoint here must not stop the run.
fs.writeFileSync(path.join(folder, 'hello.n'), 'import io;\nint main() {\n    int n = 3;\n    io.print("hello ${n} from Run File");\n    return 0;\n}\n');

// The debug adapter VS Code runs logs every DAP message to dap.log in
// E2E_OUT: a failed step prints the end of it.
const dapLog = path.join(out, 'dap.log');
fs.writeFileSync(dapLog, '');
const logged = path.join(out, 'nlangdbg-logged');
fs.writeFileSync(
  logged,
  `#!/bin/sh\nif [ "$1" = dap ]; then shift; exec '${process.env.NLANGDBG}' dap --log-output dap "$@" 2>>'${dapLog}'; fi\nexec '${process.env.NLANGDBG}' "$@"\n`,
  { mode: 0o755 },
);
/** dapMark returns where the DAP log ends now, for waitForDap. */
function dapMark() {
  return fs.statSync(dapLog).size;
}

/** waitForDap waits until a line of the DAP log past mark matches re. */
async function waitForDap(re, mark, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const fd = fs.openSync(dapLog, 'r');
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.max(0, size - mark));
    fs.readSync(fd, buf, 0, buf.length, mark);
    fs.closeSync(fd);
    if (buf.toString('utf8').split('\n').some((l) => re.test(l))) return;
    if (Date.now() > end) throw new Error(`the adapter never received a message matching ${re}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const wb = new Workbench({ vsix: process.env.NLANG_VSIX, nlangdbg: logged, folder, out });

test.before(() => wb.start(), { timeout: 120000 });
test.after(async () => {
  await wb.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

/**
 * step runs fn; when it fails, it keeps a screenshot of the page and adds
 * to the error what the Call Stack showed and the last DAP messages.
 */
async function step(name, fn) {
  const start = Date.now();
  try {
    await fn();
    if (process.env.E2E_TIMES) console.log(`step ${name}: ${Date.now() - start} ms`);
  } catch (e) {
    await wb.screenshot(`failed-${name}`).catch(() => {});
    const stack = await wb.page
      .evaluate(() => (document.querySelector('.debug-call-stack') || {}).innerText || '(no Call Stack)')
      .catch((err) => `(unread: ${err.message})`);
    const tail = fs.readFileSync(dapLog, 'utf8').split('\n').slice(-60).join('\n');
    e.message += `\n-- the Call Stack showed:\n${stack}\n-- the last DAP messages (${dapLog}):\n${tail}`;
    throw e;
  }
}

test('a .n file opens with colours and the status bar shows NLang', { timeout: 60000 }, async () => {
  await step('open', () => wb.openFile('workers.n'));
  await step('language', () => wb.waitForText('[id="status.editor.mode"]', /^NLang$/));
  // The colour of the first token with the given text on a line holding needle.
  // The colour of each token's text (tokens of one colour share a span).
  const spans = await wb.page.evaluate(() =>
    [...document.querySelectorAll('.editor-instance .view-line span > span')].map((s) => [s.textContent, getComputedStyle(s).color]),
  );
  const colourOf = (pred) => (spans.find(([t]) => pred(t.trim())) || [])[1];
  const colours = Object.fromEntries(spans);
  const keyword = colourOf((t) => t === 'import');
  const type = colourOf((t) => t === 'void');
  const comment = colourOf((t) => t.startsWith('//'));
  const str = colourOf((t) => t === '"alpha"');
  const interp = colourOf((t) => t === 'who');
  const plain = colourOf((t) => t === ';');
  for (const [name, c] of Object.entries({ keyword, type, comment, str, interp, plain })) {
    assert.ok(c, `no token for ${name} among ${JSON.stringify(colours)}`);
  }
  assert.notEqual(keyword, plain, 'import is coloured as a keyword');
  assert.notEqual(comment, plain, 'comments are coloured');
  assert.notEqual(str, plain, 'strings are coloured');
  assert.notEqual(interp, str, '${who} stands out of its string');
  assert.ok(new Set(Object.values(colours)).size >= 5, `only ${new Set(Object.values(colours)).size} colours`);
  await wb.screenshot('1-colours');
});

test('F5 in a fresh folder: a breakpoint in a spawned thread, threads by name, locals, the Virtual threads view, step, Step Back, the Disassembly view, continue, output', { timeout: 120000 }, async () => {
  const page = wb.page;
  await step('breakpoint', async () => {
    await wb.gotoLine(bpLine);
    await page.keyboard.press('F9');
    await page.waitForSelector('.editor-instance .codicon-debug-breakpoint');
  });

  await step('f5', async () => {
    await page.keyboard.press('F5');
    // With no launch.json VS Code takes the only debugger for the
    // language, or asks which one to use: then pick NLang.
    if ((await wb.debuggingOrPicker()) === 'picker') {
      await wb.screenshot('2-select-debugger');
      await page.keyboard.type('NLang');
      await page.keyboard.press('Enter');
    }
  });

  await step('stopped', async () => {
    await wb.waitForText('.debug-call-stack', /alpha[^\n]*\n?\s*breakpoint/i, 60000);
    const threads = await wb.text('.debug-call-stack');
    for (const name of ['main', 'alpha', 'beta']) assert.match(threads, new RegExp(`\\[\\d+\\] ${name}`), `thread ${name} in the Call Stack:\n${threads}`);
    await wb.expandUntil('.debug-call-stack', /alpha/, new RegExp(`workers\\.n\\s*${bpLine}:`));
    await wb.expandUntil('.debug-variables', /Locals|Arguments/, /total\s*=\s*55[\s\S]*who\s*=\s*"alpha"/);
    const vars = await wb.text('.debug-variables');
    assert.match(vars, /\bn\s*=\s*10/, vars);
  });
  await wb.screenshot('2-breakpoint');

  await step('virtual-threads', async () => {
    // The extension's view in the Run and Debug side bar, filled from
    // nlang/scheduler at the stop: main waits in results.recv().
    await wb.command('Focus on Virtual threads View');
    await wb.waitForText(wb.viewPane('Virtual threads'), /Run queue \(\d+\)[\s\S]*Parked \(1\)\s*\[1\] main\s*chan recv · main \(workers\.n:\d+\)/);
    const view = await wb.text(wb.viewPane('Virtual threads'));
    const queue = /Run queue \((\d+)\)([\s\S]*)Parked/.exec(view);
    assert.ok(Number(queue[1]) >= 1, `the run queue lists a thread:\n${view}`);
    assert.match(queue[2], /\[2\] alpha\s*next, stopped[\s\S]*\[3\] beta\s*runnable/, `the run queue lists the workers:\n${view}`);
  });
  await wb.screenshot('2-virtual-threads');

  await step('step', async () => {
    await page.keyboard.press('F10');
    await wb.waitForText('.debug-call-stack', new RegExp(`workers\\.n\\s*${bpLine + 1}:`));
  });

  await step('step-back', async () => {
    // The session records (one carrier): Step Back in the toolbar goes
    // back to the breakpoint's line.
    await wb.clickToolbar('Step Back');
    await wb.waitForText('.debug-call-stack', new RegExp(`workers\\.n\\s*${bpLine}:`));
    await wb.waitForText('.debug-call-stack', /alpha[^\n]*\n?\s*step back/i);
    // The view refills at this stop too.
    await wb.waitForText(wb.viewPane('Virtual threads'), /Parked \(1\)\s*\[1\] main\s*chan recv/);
  });
  await wb.screenshot('2-step-back');

  await step('disassembly', async () => {
    await wb.command('Open Disassembly View');
    // Rows of bytecode under their source lines: the breakpoint's line,
    // then its instructions (an address, an opcode, its operands).
    await wb.waitForText('.disassembly-view', new RegExp(`${bpLine}:\\s*io\\.print[^\\n]*\\n\\s*0x[0-9a-f]+\\s+loadk\\s+r\\d+, k\\d+`));
    assert.match(await wb.text('.disassembly-view'), /0x[0-9a-f]+\s+calln\s+r\d+, r\d+\s*; io\.print/);
  });
  await wb.screenshot('2-disassembly');

  await step('continue', async () => {
    await page.keyboard.press('F5');
    await wb.waitForText('.debug-call-stack', /beta[^\n]*\n?\s*breakpoint/i);
    await wb.expandUntil('.debug-variables', /Locals|Arguments/, /total\s*=\s*210[\s\S]*who\s*=\s*"beta"/);
    await page.keyboard.press('F5');
    await wb.waitForText('.repl', /total 265/, 30000);
  });
  const repl = await wb.text('.repl');
  assert.match(repl, /alpha done: 55/);
  assert.match(repl, /beta done: 210/);
  await wb.screenshot('2-debug-console');
});

test('NLang: Run File runs the file to its end, past its breakpoint, output in the Debug Console', { timeout: 60000 }, async () => {
  const page = wb.page;
  await step('open-hello', () => wb.openFile('hello.n'));
  await step('breakpoint-hello', async () => {
    await wb.gotoLine(4);
    await page.keyboard.press('F9');
    await page.waitForFunction(() => document.querySelectorAll('.editor-instance .codicon-debug-breakpoint').length === 1);
  });
  await step('run-file', async () => {
    await wb.command('NLang: Run File');
    await wb.waitForText('.repl', /hello 3 from Run File/);
    // The session ends by itself: no stop held it.
    await page.waitForFunction(() => {
      const bar = document.querySelector('.debug-toolbar');
      return !bar || bar.offsetParent === null;
    }, { timeout: 20000, polling: 100 });
  });
  await wb.screenshot('3-run-file');
});

test('the Virtual threads view marks the leaked threads, where they were spawned, and counts the threads in groups', { timeout: 90000 }, async () => {
  const page = wb.page;
  await step('open-leaky', () => wb.openFile('leaky.n'));
  await step('breakpoint-leaky', async () => {
    await wb.gotoLine(leakyLine('check'));
    await page.keyboard.press('F9');
    await page.waitForFunction(() => document.querySelectorAll('.editor-instance .codicon-debug-breakpoint').length === 1);
  });
  await step('f5-leaky', async () => {
    await page.keyboard.press('F5');
    if ((await wb.debuggingOrPicker()) === 'picker') {
      await page.keyboard.type('NLang');
      await page.keyboard.press('Enter');
    }
    await wb.waitForText('.debug-call-stack', /main[^\n]*\n?\s*breakpoint/i, 60000);
  });
  await step('leaks', async () => {
    // nlang/leaks at the stop: the three handlers whose reply channel
    // main dropped, first in the view, with their spawn line
    await wb.command('Focus on Virtual threads View');
    const spawned = `spawned at leaky\\.n:${leakyLine('spawnHandler')}`;
    await wb.waitForText(wb.viewPane('Virtual threads'),
      new RegExp(`Leaked \\(3\\)\\s*\\[6\\] thread-6\\s*chan send · ${spawned}\\s*\\[9\\] thread-9\\s*chan send · ${spawned}\\s*\\[12\\] thread-12`));
  });
  await wb.screenshot('4-leaks');
  const others = ['Variables', 'Watch', 'Breakpoints'];
  await step('groups', async () => {
    // nlang/threadGroups by function: expanded, the three handlers count
    // as one group (the other views folded, for the room)
    await wb.setPanes(others, false);
    await wb.expandUntil(wb.viewPane('Virtual threads'), /^Groups by function/, /handle\s*× 3/);
  });
  await wb.screenshot('4-groups');
  await wb.setPanes(others, true);
  await step('continue-leaky', async () => {
    await page.keyboard.press('F5');
    await wb.waitForText('.repl', /served[\s\S]*69/, 30000);
    await page.waitForFunction(() => {
      const bar = document.querySelector('.debug-toolbar');
      return !bar || bar.offsetParent === null;
    }, { timeout: 20000, polling: 100 });
  });
});

// Edit and continue: a breakpoint in f, F5, an edit of the line it is
// on, saved: the extension reloads the code (nlang/reload); the frame
// inside f is shown as old code and finishes on it, the next calls run
// the new code.
const reloadProg = `import io;
int f(int x) {
    int y = x * 2;
    y = y + 1;
    return y;
}
int main() {
    for (int i = 0; i < 3; i += 1) {
        io.print("r " + f(i));
    }
    return 0;
}
`;
fs.writeFileSync(path.join(folder, 'reload.n'), reloadProg);

test('edit and continue: saving while paused applies the change', { timeout: 90000 }, async () => {
  const page = wb.page;
  await step('open-reload', () => wb.openFile('reload.n'));
  await step('breakpoint-reload', async () => {
    await wb.gotoLine(4);
    await page.keyboard.press('F9');
    await page.waitForFunction(() => document.querySelectorAll('.editor-instance .codicon-debug-breakpoint').length === 1);
  });
  await step('f5-reload', async () => {
    await page.keyboard.press('F5');
    if ((await wb.debuggingOrPicker()) === 'picker') {
      await page.keyboard.type('NLang');
      await page.keyboard.press('Enter');
    }
    // one thread: the Call Stack lists its frames
    await wb.waitForText('.debug-call-stack', /\bf\s*reload\.n\s*4:\d+\s*main/, 60000);
  });
  await step('edit-save', async () => {
    // replace the line's text, then save: the extension reloads
    await wb.gotoLine(4);
    await page.keyboard.press('End');
    await page.keyboard.down('Shift');
    await page.keyboard.press('Home');
    await page.keyboard.up('Shift');
    await page.keyboard.type('y = y + 100;');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyS');
    await page.keyboard.up('Control');
    await wb.waitForText('.notifications-toasts', /NLang: reload 1: changed f\. 1 frame finishes on the old code/);
    await wb.waitForText('.debug-call-stack', /f \[old code\][\s\S]*4:\d+[\s\S]*main/);
  });
  await wb.screenshot('5-reload');
  await step('continue-reload', async () => {
    // The breakpoint off from the Breakpoints view (the focus is the old
    // frame's text's, which VS Code reveals again as it refreshes the
    // stop), then F5 once the removal reached the adapter.
    const mark = dapMark();
    await wb.removeBreakpoint(/^\s*reload\.n\s/);
    await waitForDap(/"command":"setBreakpoints".*"name":"reload\.n".*"lines":\[\]/, mark);
    await page.keyboard.press('F5');
    await wb.waitForText('.repl', /r 1[\s\S]*r 102[\s\S]*r 104/, 30000);
  });
  await wb.screenshot('5-reload-output');
});

const spin = `import io;
import thread;
void ticker(int n) {
    int i = 0;
    while (true) {
        i += 1;
        thread.sleep(10);
    }
}
int main() {
    Thread t = thread.spawn(ticker, 0);
    t.setName("ticker");
    t.join();
    return 0;
}
`;

test('F5 on an attach configuration (launch.json) to a program under nlangdbg run --listen: its threads, then detach leaves it running', { timeout: 60000 }, async (t) => {
  const page = wb.page;
  // A second folder, opened after its launch.json is written (VS Code
  // reads launch.json when the folder opens).
  const folder2 = fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-ws-attach-'));
  t.after(() => fs.rmSync(folder2, { recursive: true, force: true }));
  const prog = path.join(folder2, 'spin.n');
  fs.writeFileSync(prog, spin);
  const run = spawn(process.env.NLANGDBG, ['run', '--listen', '127.0.0.1:0', prog], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => run.kill('SIGKILL'));
  const port = await new Promise((resolve, reject) => {
    let err = '';
    run.stderr.on('data', (d) => {
      err += d;
      const m = /DAP server listening at: 127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    run.on('exit', (code) => reject(new Error(`nlangdbg run exited (${code}): ${err}`)));
  });
  fs.mkdirSync(path.join(folder2, '.vscode'));
  fs.writeFileSync(
    path.join(folder2, '.vscode', 'launch.json'),
    JSON.stringify({ version: '0.2.0', configurations: [{ type: 'nlang', request: 'attach', name: 'NLang: Attach', host: '127.0.0.1', port }] }),
  );
  await step('open-folder', () => wb.openFolder(folder2));
  await step('attach', async () => {
    await wb.openFile('spin.n');
    // F5 starts the launch.json's (only) configuration.
    await page.keyboard.press('F5');
    // Paused threads: an attach pauses the program (a launch of spin.n,
    // which has no breakpoint, would not stop).
    await wb.waitForText('.debug-call-stack', /\[1\] main · main · join ticker[\s\S]*paused[\s\S]*\[2\] ticker · ticker/i);
  });
  await wb.screenshot('5-attach');
  await step('detach', async () => {
    await page.keyboard.down('Shift');
    await page.keyboard.press('F5');
    await page.keyboard.up('Shift');
    await page.waitForFunction(() => {
      const bar = document.querySelector('.debug-toolbar');
      return !bar || bar.offsetParent === null;
    }, { timeout: 20000, polling: 100 });
  });
  // Detached, the program goes on running.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(run.exitCode, null, 'the program still runs after the detach');
});

test('non-stop (launch.json "nonStop": true): a worker paused at its breakpoint while the ticker keeps printing and shows Running', { timeout: 90000 }, async (t) => {
  const page = wb.page;
  const folder3 = fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-ws-nonstop-'));
  t.after(() => fs.rmSync(folder3, { recursive: true, force: true }));
  const prog = path.join(folder3, 'nonstop.n');
  fs.copyFileSync(path.join(__dirname, '..', 'workspace', 'nonstop.n'), prog);
  const workLine = fs.readFileSync(prog, 'utf8').split('\n').findIndex((l) => l.includes('// @bp work')) + 1;
  fs.mkdirSync(path.join(folder3, '.vscode'));
  fs.writeFileSync(
    path.join(folder3, '.vscode', 'launch.json'),
    JSON.stringify({ version: '0.2.0', configurations: [{ type: 'nlang', request: 'launch', name: 'NLang: non-stop', program: '${workspaceFolder}/nonstop.n', nonStop: true }] }),
  );
  await step('open-nonstop', async () => {
    await wb.openFolder(folder3);
    await wb.openFile('nonstop.n');
    await wb.gotoLine(workLine);
    await page.keyboard.press('F9');
    await page.waitForSelector('.editor-instance .codicon-debug-breakpoint');
  });
  await step('nonstop-stopped', async () => {
    await page.keyboard.press('F5');
    // the worker paused on its breakpoint; the ticker and main running
    await wb.waitForText('.debug-call-stack', /\[3\] thread-3[^\n]*\n?\s*breakpoint/i, 60000);
    await wb.waitForText('.debug-call-stack', /\[2\] ticker[^\n]*\n?\s*running/i);
    await wb.expandUntil('.debug-call-stack', /thread-3/, new RegExp(`nonstop\\.n\\s*${workLine}:`));
    await wb.expandUntil('.debug-variables', /Locals|Arguments/, /acc\s*=\s*40/);
  });
  await step('nonstop-ticks', async () => {
    // the ticker's output keeps arriving while the worker is paused
    const ticks = async () => Math.max(0, ...[...(await wb.text('.repl')).matchAll(/tick (\d+)/g)].map((m) => Number(m[1])));
    const before = await ticks();
    await page.waitForFunction((n) => {
      const m = [...(document.querySelector('.repl')?.textContent || '').matchAll(/tick (\d+)/g)];
      return m.length > 0 && Math.max(...m.map((x) => Number(x[1]))) > n + 5;
    }, { timeout: 20000, polling: 100 }, before);
    // (the pointer off the Call Stack: a hovered row shows its buttons,
    // not its state)
    await page.mouse.move(700, 300);
    await wb.waitForText('.debug-call-stack', /\[3\] thread-3[^\n]*\n?\s*breakpoint/i, 10000);
    assert.match(await wb.text('.debug-call-stack'), new RegExp(`work\\s*nonstop\\.n\\s*${workLine}:`), 'the worker is still paused, its frame shown');
    // what the extension asks for at the stop (the Virtual threads view)
    // is answered while the others run: no error toast
    assert.doesNotMatch(await wb.text('.notifications-toasts'), /pause it first|is running/, 'a request failed at the stop');
  });
  await wb.screenshot('6-nonstop');
  await step('nonstop-continue', async () => {
    // Continue (the worker's): it goes on alone, and the program ends
    await page.keyboard.press('F5');
    await wb.waitForText('.repl', /result 41[\s\S]*ticker done/, 30000);
  });
});
