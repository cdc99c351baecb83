'use strict';
// The "Virtual threads" view: what the scheduler holds when the program
// stops — the leaked threads (parked on what no thread that can run
// reaches), the run queue, the parked threads and what each waits on,
// the timers, deadlock cycles, the threads counted in groups (by
// function, location, state, wait reason, spawn site or whole stack),
// and the spawn tree — from the server's custom requests nlang/scheduler,
// nlang/leaks, nlang/threadGroups and nlang/threads (docs/dap.md). It
// refreshes on every stop and empties when the program runs on or the
// session ends. DAP has no nesting of threads: the tree lives here.

const REQUEST = 'nlang/scheduler';
const LEAKS = 'nlang/leaks';
const GROUPS = 'nlang/threadGroups';
const THREADS = 'nlang/threads';

/** The keys nlang/threadGroups groups by, with their labels. */
const GROUP_KEYS = [
  { key: 'function', label: 'function' },
  { key: 'location', label: 'location' },
  { key: 'state', label: 'state' },
  { key: 'waitReason', label: 'wait reason' },
  { key: 'spawnSite', label: 'spawn site' },
  { key: 'stack', label: 'stack (parallel stacks)' },
];

/** MAX_SIBLINGS: children of one parent spawned at one place shown before a count. */
const MAX_SIBLINGS = 3;

/** where renders a thread's position: "function (file:line)". */
function where(t) {
  const file = t.source && (t.source.name || t.source.path);
  if (!t.function) return '';
  return file ? `${t.function} (${file}:${t.line})` : t.function;
}

/** place renders {source, line} as "file:line". */
function place(p) {
  if (!p) return '';
  const file = p.source && (p.source.name || p.source.path);
  return `${file || '?'}:${p.line}`;
}

/** leakRow is a leaked thread's row. */
function leakRow(l) {
  const spawned = l.spawnedAt ? `spawned at ${place(l.spawnedAt)}` : '';
  return {
    label: `[${l.id}] ${l.name}`,
    description: [l.waitReason, spawned].filter(Boolean).join(' · '),
    tooltip: `${l.name} (thread ${l.id}) is leaked: parked on ${l.waitingOn}${l.objectMadeAt ? ` (made at ${place(l.objectMadeAt)})` : ''}, which no thread that can run reaches${l.spawnedAt ? `; spawned by thread ${l.parent} at ${place(l.spawnedAt)}` : ''}${where(l) ? `; at ${where(l)}` : ''}`,
    threadId: l.id,
    leaked: true,
  };
}

/**
 * schedulerTree turns an nlang/scheduler body (and, if given, an
 * nlang/leaks body) into the view's rows: a group per part, each with
 * its children. Plain data, tested alone.
 */
function schedulerTree(body, leaks) {
  const leaked = new Set(((leaks && leaks.threads) || []).map((l) => l.id));
  const thread = (t, detail) => ({
    label: `[${t.id}] ${t.name}`,
    description: [leaked.has(t.id) ? 'leaked' : '', detail, where(t)].filter(Boolean).join(' · '),
    tooltip: `${t.name} (thread ${t.id}): ${t.state}${t.waitReason ? `, waits for ${t.waitReason}` : ''}${where(t) ? ` at ${where(t)}` : ''}${leaked.has(t.id) ? ' (leaked)' : ''}`,
    threadId: t.id,
    leaked: leaked.has(t.id),
  });
  const groups = [];
  if (leaked.size > 0) {
    groups.push({ label: `Leaked (${leaked.size})`, leaked: true, children: leaks.threads.map(leakRow) });
  }
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

/**
 * groupsTree turns an nlang/threadGroups body into a row: the groups,
 * largest first, each with its count and, expanded, its shared stack
 * (by stack) and its first threads. Plain data, tested alone.
 */
function groupsTree(body, by, leaks) {
  const leaked = new Set(((leaks && leaks.threads) || []).map((l) => l.id));
  const label = (GROUP_KEYS.find((k) => k.key === by) || { label: by }).label;
  const gs = body.groups || [];
  return {
    label: `Groups by ${label} (${gs.length})`,
    collapsed: true,
    children: gs.map((g) => {
      const stack = (g.stack || []).map((f) => ({ label: `${f.function} (${place(f)})`, description: 'frame' }));
      const ids = g.threadIds || [];
      const rows = ids.map((id) => ({ label: `[${id}]`, description: leaked.has(id) ? 'leaked' : '', threadId: id, leaked: leaked.has(id) }));
      if (g.count > ids.length) rows.push({ label: `… ${g.count - ids.length} more` });
      const top = g.stack && g.stack.length > 0 ? `${g.stack[0].function} (${place(g.stack[0])})` : g.key || '(none)';
      return {
        label: top,
        description: `× ${g.count}`,
        tooltip: g.stack && g.stack.length > 0 ? g.stack.map((f) => `${f.function} (${place(f)})`).join('\n') : g.key,
        collapsed: true,
        children: [...stack, ...rows],
      };
    }),
  };
}

/**
 * spawnTree turns an nlang/threads body into the tree of who spawned
 * whom: each thread under its parent; more than MAX_SIBLINGS children of
 * one parent spawned at one place are shown as the first ones and a
 * count. A thread whose parent ended hangs under "[P] (ended)". Plain
 * data, tested alone.
 */
function spawnTree(body, leaks) {
  const leaked = new Set(((leaks && leaks.threads) || []).map((l) => l.id));
  const threads = body.threads || [];
  const byId = new Map(threads.map((t) => [t.id, t]));
  const kids = new Map();
  const roots = [];
  for (const t of threads) {
    const p = t.parent || 0;
    if (p === 0) {
      roots.push(t.id);
      continue;
    }
    if (!byId.has(p) && !kids.has(p)) roots.push(p);
    if (!kids.has(p)) kids.set(p, []);
    kids.get(p).push(t);
  }
  roots.sort((a, b) => a - b);
  const node = (id) => {
    const t = byId.get(id);
    const children = [];
    const shown = new Map();
    const hidden = new Map();
    for (const k of (kids.get(id) || []).sort((a, b) => a.id - b.id)) {
      const site = `${place(k.spawnedAt)} ${k.function || ''}`;
      if ((shown.get(site) || 0) >= MAX_SIBLINGS) {
        hidden.set(site, (hidden.get(site) || 0) + 1);
        continue;
      }
      shown.set(site, (shown.get(site) || 0) + 1);
      children.push(node(k.id));
    }
    for (const [site, n] of hidden) children.push({ label: `… ${n} more`, description: `spawned at ${site.trim()}` });
    if (!t) return { label: `[${id}] (ended)`, children };
    return {
      label: `[${t.id}] ${t.name}`,
      description: [leaked.has(t.id) ? 'leaked' : '', t.waitReason || t.state, where(t), t.spawnedAt ? `spawned at ${place(t.spawnedAt)}` : ''].filter(Boolean).join(' · '),
      threadId: t.id,
      leaked: leaked.has(t.id),
      children: children.length > 0 ? children : undefined,
    };
  };
  return roots.map(node);
}

/** VirtualThreadsProvider is the view's TreeDataProvider. */
class VirtualThreadsProvider {
  constructor(vscode) {
    this.vscode = vscode;
    this.groups = [];
    this.groupBy = 'function';
    this.session = undefined;
    this.leaks = undefined;
    this.emitter = new vscode.EventEmitter();
    this.onDidChangeTreeData = this.emitter.event;
  }

  /** refresh asks session for the scheduler's state, the leaks and the groups, and redraws. */
  async refresh(session) {
    if (!session || session.type !== 'nlang') return this.clear();
    this.session = session;
    try {
      const optional = (cmd, args) => session.customRequest(cmd, args).catch(() => undefined);
      const [body, leaks, groups] = await Promise.all([
        session.customRequest(REQUEST),
        optional(LEAKS),
        optional(GROUPS, { by: this.groupBy }),
      ]);
      this.leaks = leaks;
      this.groups = schedulerTree(body, leaks);
      if (groups) this.groups.push(groupsTree(groups, this.groupBy, leaks));
      this.groups.push({ label: 'Spawn tree', collapsed: true, lazy: THREADS });
    } catch (err) {
      this.groups = [{ label: `(${err && err.message ? err.message : err})`, children: [] }];
    }
    this.emitter.fire();
  }

  /** setGroupBy changes the key of the groups and refreshes. */
  async setGroupBy(key) {
    this.groupBy = key;
    if (this.session) await this.refresh(this.session);
  }

  /** clear empties the view (the program runs, or the session ended). */
  clear() {
    this.groups = [];
    this.session = undefined;
    this.emitter.fire();
  }

  async getChildren(element) {
    if (!element) return this.groups;
    if (element.lazy === THREADS && !element.children) {
      try {
        element.children = spawnTree(await this.session.customRequest(THREADS, {}), this.leaks);
      } catch (err) {
        element.children = [{ label: `(${err && err.message ? err.message : err})` }];
      }
    }
    return element.children || [];
  }

  getTreeItem(element) {
    const { TreeItem, TreeItemCollapsibleState, ThemeIcon } = this.vscode;
    let state = TreeItemCollapsibleState.None;
    if (element.children || element.lazy) {
      state = element.collapsed ? TreeItemCollapsibleState.Collapsed : TreeItemCollapsibleState.Expanded;
    }
    const item = new TreeItem(element.label, state);
    item.description = element.description;
    item.tooltip = element.tooltip;
    if (element.leaked && ThemeIcon) item.iconPath = new ThemeIcon('warning');
    return item;
  }
}

/** register adds the view and its group-by command, and refreshes it from the stops a tracker sees. */
function register(vscode, context) {
  const provider = new VirtualThreadsProvider(vscode);
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider('nlang.virtualThreads', provider),
    vscode.commands.registerCommand('nlang.threads.groupBy', async (key) => {
      if (!key) {
        const pick = await vscode.window.showQuickPick(
          GROUP_KEYS.map((k) => ({ label: k.label, key: k.key })),
          { placeHolder: 'Group the virtual threads by' },
        );
        if (!pick) return;
        key = pick.key;
      }
      await provider.setGroupBy(key);
    }),
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

module.exports = { schedulerTree, groupsTree, spawnTree, VirtualThreadsProvider, register, REQUEST, LEAKS, GROUPS, THREADS, GROUP_KEYS };
