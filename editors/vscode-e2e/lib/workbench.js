'use strict';
// Starts code-server (the real VS Code workbench, served to a browser) with
// the NLang .vsix installed, and Debian's Chromium driven by puppeteer-core.
// Nothing leaves the machine: the extension gallery points at a closed
// loopback port and Chromium resolves no name but 127.0.0.1. code-server
// runs in its own process group, which stop() kills whole.

const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const root = path.join(__dirname, '..');
const codeServer = path.join(root, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CLOSED = 'http://127.0.0.1:9'; // discard port: nothing listens there

/** env returns what code-server and its extension host run with. */
function env(home) {
  return {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: `${CLOSED}/gallery`, itemUrl: `${CLOSED}/item`, resourceUrlTemplate: `${CLOSED}/r` }),
  };
}

/** A running code-server and browser page on one workspace folder. */
class Workbench {
  /**
   * @param {object} o
   * @param {string} o.vsix the extension package to install
   * @param {string} o.nlangdbg the binary (set as nlang.debugger.path)
   * @param {string} o.folder the workspace folder to open
   * @param {string} o.out where logs go
   */
  constructor(o) {
    Object.assign(this, o);
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'nlang-cs-'));
    this.userData = path.join(this.home, 'user-data');
    this.extensions = path.join(this.home, 'extensions');
    this.log = path.join(o.out, 'code-server.log');
  }

  args(...more) {
    return [codeServer, '--user-data-dir', this.userData, '--extensions-dir', this.extensions, ...more];
  }

  /** start installs the .vsix, starts code-server and opens the folder in Chromium. */
  async start() {
    // code-server is a remote window: nlang.debugger.path (a machine
    // setting) is read from the remote's Machine settings.
    fs.mkdirSync(path.join(this.userData, 'Machine'), { recursive: true });
    fs.writeFileSync(path.join(this.userData, 'Machine', 'settings.json'), JSON.stringify({ 'nlang.debugger.path': this.nlangdbg }));
    fs.mkdirSync(path.join(this.userData, 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(this.userData, 'User', 'settings.json'),
      JSON.stringify(
        {
          'workbench.startupEditor': 'none',
          'workbench.colorTheme': 'Default Dark Modern',
          'workbench.tips.enabled': false,
          'workbench.enableExperiments': false,
          'workbench.secondarySideBar.defaultVisibility': 'hidden',
          'security.workspace.trust.enabled': false,
          'telemetry.telemetryLevel': 'off',
          'update.mode': 'none',
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
          'chat.disableAIFeatures': true,
          'git.enabled': false,
          'debug.internalConsoleOptions': 'openOnSessionStart',
          'debug.openDebug': 'openOnSessionStart',
          'editor.fontSize': 14,
          'window.zoomLevel': 0,
        },
        null,
        2,
      ),
    );
    execFileSync(process.execPath, this.args('--install-extension', this.vsix), { env: env(this.home), stdio: 'pipe', timeout: 60000 });

    const logFd = fs.openSync(this.log, 'w');
    this.proc = spawn(
      process.execPath,
      this.args('--auth', 'none', '--bind-addr', '127.0.0.1:0', '--disable-telemetry', '--disable-update-check',
        '--disable-workspace-trust', '--disable-getting-started-override', this.folder),
      { env: env(this.home), detached: true, stdio: ['ignore', 'pipe', logFd] },
    );
    // If this process dies before stop(), code-server's group goes with it.
    const pgid = this.proc.pid;
    this.killGroup = () => {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {}
    };
    process.once('exit', this.killGroup);
    for (const sig of ['SIGTERM', 'SIGINT']) {
      process.once(sig, () => {
        this.killGroup();
        process.exit(1);
      });
    }
    this.url = await new Promise((resolve, reject) => {
      let buf = '';
      const t = setTimeout(() => reject(new Error(`code-server did not start in 60 s:\n${buf}`)), 60000);
      this.proc.stdout.on('data', (d) => {
        buf += d;
        fs.appendFileSync(this.log, d);
        const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(buf);
        if (m) {
          clearTimeout(t);
          resolve(m[1]);
        }
      });
      this.proc.on('exit', (code) => reject(new Error(`code-server exited (${code}):\n${buf}`)));
    });

    this.browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
        '--window-size=1440,900',
      ],
      defaultViewport: { width: 1440, height: 900 },
    });
    this.page = await this.browser.newPage();
    this.page.setDefaultTimeout(30000);
    await this.openFolder(this.folder);
  }

  /** openFolder loads the workbench on folder and waits for its Explorer. */
  async openFolder(folder) {
    await this.page.goto(`${this.url}/?folder=${encodeURIComponent(folder)}`, { waitUntil: 'domcontentloaded' });
    await this.page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 60000 });
    await this.page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
  }

  /** stop closes the browser and kills code-server's process group. */
  async stop() {
    if (this.browser) await this.browser.close().catch(() => {});
    if (this.proc && this.proc.exitCode === null) {
      try {
        process.kill(-this.proc.pid, 'SIGTERM');
      } catch {}
      const gone = await new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), 5000);
        this.proc.once('exit', () => {
          clearTimeout(t);
          resolve(true);
        });
      });
      if (!gone) {
        try {
          process.kill(-this.proc.pid, 'SIGKILL');
        } catch {}
      }
    }
    if (this.killGroup) process.removeListener('exit', this.killGroup);
    fs.rmSync(this.home, { recursive: true, force: true });
  }

  /** screenshot saves the page as out/name.png. */
  async screenshot(name) {
    const file = path.join(this.out, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** text returns the innerText of the first element matching selector ('' if none). */
  text(selector) {
    return this.page.evaluate((s) => (document.querySelector(s) ? document.querySelector(s).innerText : ''), selector);
  }

  /** waitForText waits until the element matching selector shows text matching re. */
  async waitForText(selector, re, timeout = 30000) {
    try {
      await this.page.waitForFunction(
        (s, src, flags) => {
          const e = document.querySelector(s);
          return !!e && new RegExp(src, flags).test(e.innerText);
        },
        { timeout, polling: 100 },
        selector,
        re.source,
        re.flags,
      );
    } catch (e) {
      throw new Error(`${selector} never showed ${re}; it shows: ${JSON.stringify(await this.text(selector))}`);
    }
  }

  /**
   * expandUntil opens collapsed tree rows under container whose text
   * matches rowRe, one at a time (the tree re-renders as children load,
   * and may render a row collapsed again on the next stop), until the
   * container's text matches want.
   */
  async expandUntil(container, rowRe, want, timeout = 30000) {
    const end = Date.now() + timeout;
    while (Date.now() < end) {
      if (want.test(await this.text(container))) return;
      for (const r of await this.page.$$(`${container} .monaco-list-row[aria-expanded="false"]`)) {
        const t = await r.evaluate((e) => (e.isConnected ? e.innerText : '')).catch(() => '');
        if (rowRe.test(t)) {
          const twistie = await r.$('.monaco-tl-twistie').catch(() => null);
          await (twistie || r).click().catch(() => {});
          break;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${container} never showed ${want}; it shows: ${JSON.stringify(await this.text(container))}`);
  }

  /**
   * debuggingOrPicker waits, after F5, until a debug session runs or VS
   * Code shows a quick pick offering NLang; it resolves to which.
   */
  async debuggingOrPicker(timeout = 30000) {
    const h = await this.page.waitForFunction(
      () => {
        const bar = document.querySelector('.debug-toolbar');
        if (bar && bar.offsetParent !== null) return 'started';
        const q = document.querySelector('.quick-input-widget');
        if (q && q.style.display !== 'none' && /NLang/.test(q.innerText)) return 'picker';
        return false;
      },
      { timeout, polling: 100 },
    );
    return h.jsonValue();
  }

  /**
   * setPanes collapses (expanded false) or expands the side bar's views
   * titled titles, by their headers: a crowded side bar leaves a view too
   * little room to render the rows a test looks for.
   */
  async setPanes(titles, expanded) {
    for (const title of titles) {
      const h = await this.page.$(`.pane-header[aria-label^="${title}"][aria-expanded="${!expanded}"]`);
      if (h) {
        await h.click();
        await this.page.waitForSelector(`.pane-header[aria-label^="${title}"][aria-expanded="${expanded}"]`, { timeout: 5000 }).catch(() => {});
      }
    }
  }

  /** viewPane returns a selector for the side bar's view titled title (header and body). */
  viewPane(title) {
    return `.pane:has(> .pane-header[aria-label^="${title}"])`;
  }

  /**
   * clickToolbar clicks the debug toolbar's button labelled label once it
   * shows (the toolbar redraws its buttons as the session's state changes).
   */
  async clickToolbar(label, timeout = 30000) {
    const sel = `.debug-toolbar .action-item a[aria-label^="${label}"]:not(.disabled)`;
    const end = Date.now() + timeout;
    for (;;) {
      const b = await this.page.waitForSelector(sel, { visible: true, timeout: Math.max(end - Date.now(), 1) });
      try {
        await b.click();
        return;
      } catch (e) {
        if (Date.now() > end) throw e;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * removeBreakpoint removes the breakpoint of the Breakpoints view's row
   * whose text matches rowRe with the row's own Remove button (shown on
   * hover). Unlike F9 it needs no editor to have the focus (VS Code gives
   * it back to the top frame's editor whenever it reveals that frame).
   */
  async removeBreakpoint(rowRe, timeout = 20000) {
    await this.setPanes(['Breakpoints'], true);
    const pane = this.viewPane('Breakpoints');
    const end = Date.now() + timeout;
    while (Date.now() < end) {
      for (const r of await this.page.$$(`${pane} .monaco-list-row`)) {
        const t = await r.evaluate((e) => (e.isConnected ? e.innerText : '')).catch(() => '');
        if (!rowRe.test(t)) continue;
        try {
          await r.hover();
          const x = await r.waitForSelector('.action-label[aria-label^="Remove Breakpoint"]', { visible: true, timeout: 2000 });
          await x.click();
          return;
        } catch {
          // (the row was rendered again under the pointer: once more)
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`no Breakpoints row ${rowRe} to remove; the view shows: ${JSON.stringify(await this.text(pane))}`);
  }

  /** command runs a command through the Command Palette (F1). */
  async command(title) {
    // F1 opens the command palette; the title is typed only once its
    // input has the focus (a widget still closing looks visible, and the
    // keys would go to the editor under it)
    const focused = () =>
      this.page
        .waitForFunction(
          () => {
            const i = document.querySelector('.quick-input-widget input');
            return !!i && i.offsetParent !== null && document.activeElement === i;
          },
          { timeout: 5000, polling: 50 },
        )
        .then(() => true, () => false);
    let open = false;
    for (let i = 0; i < 3 && !open; i++) {
      await this.page.keyboard.press('F1');
      open = await focused();
    }
    if (!open) throw new Error(`the command palette did not open for ${title}`);
    await this.page.keyboard.type(title);
    await this.waitForText('.quick-input-list', new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'));
    await this.page.keyboard.press('Enter');
  }

  /** openFile opens a workspace file with Quick Open. */
  async openFile(name) {
    await this.command('Go to File');
    await this.page.waitForSelector('.quick-input-widget input', { visible: true });
    await this.page.keyboard.type(name);
    await this.waitForText('.quick-input-list', new RegExp(name.replace('.', '\\.')));
    await this.page.keyboard.press('Enter');
    await this.waitForText('.tabs-container', new RegExp(name.replace('.', '\\s*\\.')));
    await this.page.waitForSelector('.editor-instance .monaco-editor .view-line');
  }

  /** gotoLine moves the cursor of the active editor to line (1-based). */
  async gotoLine(line) {
    // (an editor just switched to may still be re-rendering: its lines
    // are replaced under the click)
    for (let i = 0; ; i++) {
      try {
        await this.page.click('.editor-instance .monaco-editor .view-lines');
        break;
      } catch (e) {
        if (i >= 10) throw e;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    await this.command('Go to Line/Column');
    await this.page.keyboard.type(String(line));
    await this.page.keyboard.press('Enter');
  }
}

module.exports = { Workbench };
