'use strict';
// The "Virtual threads" view: what the scheduler holds when the program
// stops — the run queue, the parked threads and what each waits on, the
// timers, and deadlock cycles — from the server's custom request
// `nlang/scheduler` (docs/dap.md). It refreshes on every stop and empties
// when the program runs on or the session ends.

const REQUEST = 'nlang/scheduler';

/** where renders a thread's position: "function (file:line)". */
function where(t) {
  const file = t.source && (t.source.name || t.source.path);
  if (!t.function) return '';
  return file ? `${t.function} (${file}:${t.line})` : t.function;
}

/**
 * schedulerTree turns an nlang/scheduler body into the view's rows: a
 * group per part, each with its children. Plain data, tested alone.
 */
function schedulerTree(body) {
  const thread = (t, detail) => ({
    label: `[${t.id}] ${t.name}`,
    description: [detail, where(t)].filter(Boolean).join(' · '),
    tooltip: `${t.name} (thread ${t.id}): ${t.state}${t.waitReason ? `, waits for ${t.waitReason}` : ''}${where(t) ? ` at ${where(t)}` : ''}`,
    threadId: t.id,
  });
  const groups = [];
  const runQueue = body.runQueue || [];
  groups.push({ label: `Run queue (${runQueue.length})`, children: runQueue.map((t, i) => thread(t, i === 0 ? `next, ${t.state}` : t.state)) });
  const parked = body.parked || [];
  groups.push({ label: `Parked (${parked.length})`, children: parked.map((t) => thread(t, t.waitReason || t.state)) });
  if ((body.frozen || []).length > 0) {
    groups.push({ label: `Frozen (${body.frozen.length})`, children: body.frozen.map((t) => thread(t, 'frozen')) });
  }
  const timers = body.timers || [];
  groups.push({
    label: `Timers (${timers.length})`,
    children: timers.map((tm) => ({ label: `[${tm.threadId}] ${tm.name}`, description: `wakes in ${Math.round(tm.inMs)} ms`, threadId: tm.threadId })),
  });
  const graph = body.waitGraph || {};
  const cycles = graph.cycles || [];
  if (cycles.length > 0 || body.deadlock) {
    const names = new Map([...runQueue, ...parked].map((t) => [t.id, `[${t.id}] ${t.name}`]));
    groups.push({
      label: body.deadlock ? 'Deadlock' : `Deadlock cycles (${cycles.length})`,
      children: cycles.map((c) => ({ label: [...c, c[0]].map((id) => names.get(id) || `[${id}]`).join(' → '), description: 'waits for' })),
    });
  }
  return groups;
}

/** VirtualThreadsProvider is the view's TreeDataProvider. */
class VirtualThreadsProvider {
  constructor(vscode) {
    this.vscode = vscode;
    this.groups = [];
    this.emitter = new vscode.EventEmitter();
    this.onDidChangeTreeData = this.emitter.event;
  }

  /** refresh asks session for the scheduler's state and redraws. */
  async refresh(session) {
    if (!session || session.type !== 'nlang') return this.clear();
    try {
      this.groups = schedulerTree(await session.customRequest(REQUEST));
    } catch (err) {
      this.groups = [{ label: `(${err && err.message ? err.message : err})`, children: [] }];
    }
    this.emitter.fire();
  }

  /** clear empties the view (the program runs, or the session ended). */
  clear() {
    this.groups = [];
    this.emitter.fire();
  }

  getChildren(element) {
    return element ? element.children || [] : this.groups;
  }

  getTreeItem(element) {
    const { TreeItem, TreeItemCollapsibleState } = this.vscode;
    const item = new TreeItem(element.label, element.children ? TreeItemCollapsibleState.Expanded : TreeItemCollapsibleState.None);
    item.description = element.description;
    item.tooltip = element.tooltip;
    return item;
  }
}

/** register adds the view and refreshes it from the stops a tracker sees. */
function register(vscode, context) {
  const provider = new VirtualThreadsProvider(vscode);
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider('nlang.virtualThreads', provider),
    vscode.debug.registerDebugAdapterTrackerFactory('nlang', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m) => {
          if (m && m.type === 'event' && m.event === 'stopped') provider.refresh(session);
          if (m && m.type === 'event' && (m.event === 'continued' || m.event === 'terminated')) provider.clear();
        },
        onWillStopSession: () => provider.clear(),
      }),
    }),
  );
  return provider;
}

module.exports = { schedulerTree, VirtualThreadsProvider, register, REQUEST };
