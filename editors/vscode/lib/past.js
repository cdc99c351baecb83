'use strict';
// Questions about the past (docs/past.md): the commands "NLang: Who
// Wrote This?", "Where Did This Value Come From?", "Query This Line
// (Logpoint After the Fact)", "Thread Timeline" and "Travel to Moment",
// and the view "Questions about the past" that shows the last answer.
// Each asks the server's custom request (nlang/lastWrites, nlang/origin,
// nlang/query, nlang/timeline); a row that names a moment travels there
// when clicked (nlang/travel: the program stops there, reason goto).

const REQUESTS = {
  lastWrites: 'nlang/lastWrites',
  origin: 'nlang/origin',
  query: 'nlang/query',
  timeline: 'nlang/timeline',
  travel: 'nlang/travel',
};

/** place renders "file:line in function". */
function place(source, line, fn) {
  const file = source && (source.name || source.path);
  if (!file) return fn || '';
  return fn ? `${file}:${line} in ${fn}` : `${file}:${line}`;
}

/** row makes a view row; a moment makes it travel there when clicked. */
function row(label, description, moment, children) {
  const r = { label, description, tooltip: moment ? `${label} — click to travel to this moment` : label };
  if (moment) r.moment = moment;
  if (children) r.children = children;
  return r;
}

/** writesTree turns an nlang/lastWrites body into rows, newest first. */
function writesTree(body) {
  const rows = (body.writes || []).map((w) =>
    w.argument
      ? row(`${body.name} = ${w.newValue}`, `the argument [${w.threadId}] ${w.threadName} passed · ${place(w.source, w.line, w.name)}`, w.moment)
      : row(`${body.name}: ${w.oldValue} → ${w.newValue}`, `[${w.threadId}] ${w.threadName} · ${place(w.source, w.line, w.name)}`, w.moment));
  if (rows.length === 0) rows.push(row(`${body.name}: no write before the present`));
  else if (body.complete) rows.push(row('(no earlier write)'));
  return [row(`Who wrote ${body.name}`, `${(body.writes || []).length} writes`, undefined, rows)];
}

/**
 * originTree turns an nlang/origin body into rows: a chain of steps is
 * a list read top down, and the inputs of a computation (the steps one
 * level deeper that follow it) are its children.
 */
function originTree(body, expr) {
  const top = [];
  const lists = [top]; // lists[L]: where a step of level L goes
  for (const st of body.steps || []) {
    const label = `${st.kind}${st.text ? ' ' + st.text : ''}${st.value ? ' = ' + st.value : ''}`;
    const who = st.threadId ? `[${st.threadId}] ${st.threadName}` : '';
    const r = row(label, [who, st.line ? place(st.source, st.line) : '', st.code || ''].filter(Boolean).join(' · '), st.moment);
    const level = Math.min(st.level, lists.length - 1);
    lists.length = level + 1;
    lists[level].push(r);
    r.children = [];
    lists[level + 1] = r.children;
  }
  const prune = (rs) => rs.forEach((r) => (r.children.length === 0 ? delete r.children : prune(r.children)));
  prune(top);
  return [row(`Where ${expr} came from`, `${(body.steps || []).length} steps`, undefined, top)];
}

/** queryTree turns an nlang/query body into rows, in order. */
function queryTree(body, expr) {
  const rows = (body.hits || []).map((h) => row(h.error && !h.value ? `<${h.error}>` : h.value, `[${h.threadId}] ${h.threadName} · ${h.name}`, h.moment));
  const shown = rows.length < body.total ? ` (the first ${rows.length})` : '';
  return [row(`${expr} at ${place(body.source, body.line)}`, `${body.total} executions${shown}`, undefined, rows)];
}

/** timelineTree turns an nlang/timeline body into rows, in order. */
function timelineTree(body) {
  const rows = (body.entries || []).map((e) => {
    switch (e.kind) {
      case 'spawned':
        return row('spawned', `by [${e.byThread}] ${e.byName} · ${place(e.source, e.line, e.name)}`, e.moment);
      case 'ran':
        return row('ran', `${e.quanta} ${e.quanta === 1 ? 'quantum' : 'quanta'}, ${e.reductions || 0} reductions${e.preempted ? ', preempted' : ''}`, e.moment);
      case 'parked':
        return row(`parked: ${e.reason}`, [e.on, place(e.source, e.line, e.name)].filter(Boolean).join(' · '), e.moment);
      case 'woken':
        return row('woken', e.byThread ? `by [${e.byThread}] ${e.byName}` : e.reason, e.moment);
      case 'stopped':
        return row('stopped by the debugger', `${e.reason} · ${place(e.source, e.line, e.name)}`, e.moment);
      default:
        return row(e.kind, e.reason || '', e.moment);
    }
  });
  const shown = rows.length < body.total ? ` (the last ${rows.length} of ${body.total})` : '';
  return [row(`Timeline of [${body.threadId}] ${body.name}`, `${body.total} entries${shown}`, undefined, rows)];
}

/** PastProvider is the view's TreeDataProvider: the last answer. */
class PastProvider {
  constructor(vscode) {
    this.vscode = vscode;
    this.rows = [];
    this.emitter = new vscode.EventEmitter();
    this.onDidChangeTreeData = this.emitter.event;
  }

  show(rows) {
    this.rows = rows;
    this.emitter.fire();
  }

  getChildren(element) {
    return element ? element.children || [] : this.rows;
  }

  getTreeItem(element) {
    const { TreeItem, TreeItemCollapsibleState } = this.vscode;
    const item = new TreeItem(element.label, element.children ? TreeItemCollapsibleState.Expanded : TreeItemCollapsibleState.None);
    item.description = element.description;
    item.tooltip = element.tooltip;
    if (element.moment) item.command = { command: 'nlang.past.travel', title: 'Travel to this moment', arguments: [element.moment] };
    return item;
  }
}

/** Past runs the commands; the view shows their answers. */
class Past {
  constructor(vscode, provider) {
    this.vscode = vscode;
    this.provider = provider;
  }

  /** session returns the active nlang debug session, or undefined (and says so). */
  session() {
    const s = this.vscode.debug.activeDebugSession;
    if (!s || s.type !== 'nlang') {
      this.vscode.window.showErrorMessage('NLang: start a debug session and stop it first.');
      return undefined;
    }
    return s;
  }

  /**
   * stoppedThread returns the thread selected in the Call Stack view, or
   * the one the last stop is about (nlang/threads marks it).
   */
  async stoppedThread(session) {
    const item = this.vscode.debug.activeStackItem;
    if (item && item.session === session && item.threadId) return item.threadId;
    const b = await session.customRequest('nlang/threads', {});
    const t = (b && b.threads || []).find((x) => x.stopped);
    return t ? t.id : 1;
  }

  /** frame returns the selected frame's id (or the top frame of the stopped thread). */
  async frame(session) {
    const item = this.vscode.debug.activeStackItem;
    if (item && item.session === session && item.frameId !== undefined) return { frameId: item.frameId };
    const threadId = await this.stoppedThread(session);
    const st = await session.customRequest('stackTrace', { threadId, startFrame: 0, levels: 1 });
    const f = st && st.stackFrames && st.stackFrames[0];
    return f ? { frameId: f.id } : { threadId };
  }

  /** selectedText returns the active editor's selection, for an input's default. */
  selectedText() {
    const ed = this.vscode.window.activeTextEditor;
    if (!ed || !ed.selection || ed.selection.isEmpty) return '';
    return ed.document.getText(ed.selection);
  }

  /**
   * ask runs a request and shows its answer (or the error) in the view,
   * which it opens: the view starts collapsed, out of the way of the
   * Virtual threads view, until there is an answer to show.
   */
  async ask(session, command, args, tree) {
    let body;
    try {
      body = await session.customRequest(command, args);
      this.provider.show(tree(body));
    } catch (err) {
      const msg = err && err.message ? err.message : String(err);
      this.provider.show([row(`(${msg})`)]);
      this.vscode.window.showErrorMessage(`NLang: ${msg}`);
    }
    this.reveal();
    return body;
  }

  /** reveal opens the view (the command VS Code makes for each view). */
  reveal() {
    Promise.resolve(this.vscode.commands.executeCommand('nlang.past.focus')).catch(() => {});
  }

  async lastWrites(expr) {
    const session = this.session();
    if (!session) return undefined;
    expr = expr || (await this.vscode.window.showInputBox({ prompt: 'Who wrote this: a local, EXPR.FIELD or EXPR[INDEX]', value: this.selectedText() }));
    if (!expr) return undefined;
    return this.ask(session, REQUESTS.lastWrites, { expression: expr, ...(await this.frame(session)), count: 10 }, writesTree);
  }

  async origin(expr) {
    const session = this.session();
    if (!session) return undefined;
    expr = expr || (await this.vscode.window.showInputBox({ prompt: 'Where did this value come from: a local, EXPR.FIELD or EXPR[INDEX]', value: this.selectedText() }));
    if (!expr) return undefined;
    return this.ask(session, REQUESTS.origin, { expression: expr, ...(await this.frame(session)) }, (b) => originTree(b, expr));
  }

  async query(text) {
    const session = this.session();
    if (!session) return undefined;
    const ed = this.vscode.window.activeTextEditor;
    if (!ed) {
      this.vscode.window.showErrorMessage('NLang: put the cursor on the line to query.');
      return undefined;
    }
    const line = ed.selection.active.line + 1;
    text = text || (await this.vscode.window.showInputBox({ prompt: `Show at every execution of line ${line} so far: EXPR [if COND]`, value: this.selectedText() }));
    if (!text) return undefined;
    const i = text.indexOf(' if ');
    const expression = (i >= 0 ? text.slice(0, i) : text).trim();
    const condition = i >= 0 ? text.slice(i + 4).trim() : undefined;
    const args = { source: { path: ed.document.uri.fsPath }, line, expression };
    if (condition) args.condition = condition;
    return this.ask(session, REQUESTS.query, args, (b) => queryTree(b, expression));
  }

  async timeline(threadId) {
    const session = this.session();
    if (!session) return undefined;
    if (threadId === undefined) {
      const dflt = await this.stoppedThread(session);
      const text = await this.vscode.window.showInputBox({ prompt: 'Timeline of thread', value: String(dflt) });
      if (!text) return undefined;
      threadId = Number(text);
      if (!Number.isInteger(threadId) || threadId < 1) {
        this.vscode.window.showErrorMessage(`NLang: ${text} is not a thread id.`);
        return undefined;
      }
    }
    return this.ask(session, REQUESTS.timeline, { threadId }, timelineTree);
  }

  async travel(moment) {
    const session = this.session();
    if (!session || !moment) return undefined;
    try {
      return await session.customRequest(REQUESTS.travel, { moment });
    } catch (err) {
      this.vscode.window.showErrorMessage(`NLang: ${err && err.message ? err.message : err}`);
      return undefined;
    }
  }
}

/** register adds the view and the commands. */
function register(vscode, context) {
  const provider = new PastProvider(vscode);
  const past = new Past(vscode, provider);
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider('nlang.past', provider),
    vscode.commands.registerCommand('nlang.past.lastWrites', (expr) => past.lastWrites(typeof expr === 'string' ? expr : undefined)),
    vscode.commands.registerCommand('nlang.past.origin', (expr) => past.origin(typeof expr === 'string' ? expr : undefined)),
    vscode.commands.registerCommand('nlang.past.query', (text) => past.query(typeof text === 'string' ? text : undefined)),
    vscode.commands.registerCommand('nlang.past.timeline', (id) => past.timeline(typeof id === 'number' ? id : undefined)),
    vscode.commands.registerCommand('nlang.past.travel', (moment) => past.travel(moment)),
  );
  return past;
}

module.exports = { writesTree, originTree, queryTree, timelineTree, PastProvider, Past, register, REQUESTS };
