import { ApiError, INVALID_SESSION, authed, call, loadSession, saveSession, type Authed, type Session } from './api.js';
import { byId, h } from './dom.js';
import { STATE_LABEL, agentsFrom, num, queueFrom, type AgentView } from './model.js';
import { openStream, type ConnState, type StreamHandle } from './stream.js';
import { installLayout } from './layout.js';
import { takeoverDialog } from './takeover.js';
import { forgetPlan, loadToday, renderToday } from './today.js';
import { renderAgents, renderQueue, tick, toast } from './view.js';

/**
 * The stream's named events (docs/events.md §3). `ready` means "re-read a
 * snapshot"; `reset` (the server cannot resume from the browser's
 * Last-Event-ID: a restored database, a change log that no longer reaches
 * back) means "everything known may be stale": the board forgets what it
 * learnt from messages and reloads the groups and a snapshot at once.
 * `agent` and `call` carry an entity's whole new state, and a group of them
 * triggers one snapshot read (debounced), which also brings the day
 * counters and queue figures they changed.
 */
const STREAM_EVENTS = ['ready', 'agent', 'call', 'call.takeover', 'reset'] as const;
const GROUP_KEY = 'callcenter.wallboard.group';

let board: { stop(): void } | null = null;

function showLogin(message = ''): void {
  board?.stop();
  board = null;
  byId('board-view').hidden = true;
  byId('login-view').hidden = false;
  byId('login-error').textContent = message;
  byId<HTMLInputElement>('login-username').focus();
}

async function onLogin(ev: SubmitEvent): Promise<void> {
  ev.preventDefault();
  const form = ev.currentTarget as HTMLFormElement;
  const username = byId<HTMLInputElement>('login-username').value.trim();
  const password = byId<HTMLInputElement>('login-password').value;
  const button = form.querySelector('button')!;
  button.disabled = true;
  byId('login-error').textContent = '';
  try {
    const res = await call<{ ssid: string; userId: string }>('auth/login', { username, password });
    const session: Session = { ssid: res.ssid, userId: String(res.userId), username };
    saveSession(session);
    byId<HTMLInputElement>('login-password').value = '';
    startBoard(session);
  } catch (err) {
    byId('login-error').textContent = err instanceof ApiError && err.code === INVALID_SESSION ? 'Wrong username or password.' : (err as Error).message;
  } finally {
    button.disabled = false;
  }
}

function startBoard(session: Session): void {
  forgetPlan();
  byId('login-view').hidden = true;
  byId('board-view').hidden = false;
  const api: Authed = authed(session);
  const select = byId<HTMLSelectElement>('group-select');
  const groupNames = new Map<string, string>();
  /** Groups that exist (group/list); groupNames also holds ids seen only in queue figures. */
  const listedGroups = new Set<string>();
  let agents: AgentView[] = [];
  /** Server-side start of each agent's current state, from `agent` messages (Unix seconds). */
  const stateSince = new Map<string, { state: string; since: number }>();
  let stream: StreamHandle | null = null;
  let stopped = false;
  let inFlight: AbortController | null = null;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const ticker = setInterval(tick, 1000);

  const expired = () => {
    saveSession(null);
    showLogin('Your session ended. Please sign in again.');
  };

  const loadGroups = async () => {
    try {
      const res = await api<{ data: Array<{ groupId: number; name: string }> }>('group/list');
      for (const g of res.data) {
        groupNames.set(String(g.groupId), g.name);
        listedGroups.add(String(g.groupId));
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === INVALID_SESSION) throw err;
      // Without agent.view the selector still offers the groups seen in the queue figures.
    }
    fillSelect();
  };

  const fillSelect = () => {
    const current = select.value || sessionStorage.getItem(GROUP_KEY) || '';
    const ids = [...groupNames.keys()].sort((a, b) => Number(a) - Number(b));
    select.replaceChildren(h('option', { value: '' }, 'All groups'), ...ids.map((id) => h('option', { value: id }, `${groupNames.get(id)} (${id})`)));
    select.value = ids.includes(current) ? current : '';
  };

  /** Reads Agent/live and queue/count once; called on (re)connect, on a stream event and on a group change. */
  const refresh = async () => {
    inFlight?.abort();
    const ctl = new AbortController();
    inFlight = ctl;
    const groupId = select.value;
    try {
      // Agent/live without groupid answers the account's default group, so "All groups" asks each group and merges.
      const liveOf = (g?: string) => api('Agent/live', { ...(g ? { groupid: g } : {}), status: 'all', A: 1 }, ctl.signal);
      const scopes = groupId ? [groupId] : listedGroups.size ? [...listedGroups] : [undefined];
      // Queue figures are optional (an agent may hold agent.live without queue.view): their failure leaves the agents shown.
      const queueP = api('queue/count', {}, ctl.signal).catch((err: unknown) => err as Error);
      const todayP = loadToday(api, ctl.signal).catch((err: unknown) => err as Error);
      const [queue, today, ...lives] = await Promise.all([queueP, todayP, ...scopes.map(liveOf)]);
      if (ctl.signal.aborted || stopped) return;
      const merged = new Map<string, AgentView>();
      /** Agents logged in now per group (Agent/live's lA), beside the agents the plan says the half hour needs. */
      const loggedIn = new Map<string, number>();
      lives.forEach((live, i) => {
        const { agents: seen, counters } = agentsFrom(live);
        for (const a of seen) merged.set(a.id, a);
        const lA = num(counters.lA);
        if (scopes[i] !== undefined && lA !== null) loggedIn.set(scopes[i], lA);
      });
      agents = [...merged.values()].map((a) => {
        const s = stateSince.get(a.id);
        return a.stateSecs === null && s && s.state === a.state ? { ...a, stateSecs: Math.max(0, Date.now() / 1000 - s.since) } : a;
      });
      renderAgents(agents, true, openTakeover);
      // Today's figures are optional too (analysis.view); a failure other than a missing permission leaves the panel as it was.
      if (!(today instanceof Error)) renderToday(today, groupId, groupNames, loggedIn);
      if (queue instanceof Error) {
        if (queue instanceof ApiError && queue.code === INVALID_SESSION) throw queue;
        if (queue.name === 'AbortError') return;
        byId('queue-scope').textContent = `— unavailable (${queue.message})`;
        return;
      }
      const q = queueFrom(queue);
      let added = false;
      for (const g of q.groups)
        if (!groupNames.has(g.groupId)) {
          groupNames.set(g.groupId, `Group ${g.groupId}`);
          added = true;
        }
      if (added) fillSelect();
      renderQueue(q, groupId, groupNames);
    } catch (err) {
      if ((err as Error).name === 'AbortError' || stopped) return;
      if (err instanceof ApiError && err.code === INVALID_SESSION) return expired();
      toast(`Could not refresh: ${(err as Error).message}`, true);
    }
  };

  /**
   * Bursts of events (a busy queue) collapse into one snapshot read: the
   * first 150 ms after an event, then at most one per second however busy
   * the stream is. Agent states are applied from the messages at once.
   */
  let lastRead = 0;
  const scheduleRefresh = () => {
    if (pending) return;
    const wait = Math.max(150, lastRead + 1000 - Date.now());
    pending = setTimeout(() => {
      pending = undefined;
      lastRead = Date.now();
      void refresh();
    }, wait);
  };

  const setConn = (state: ConnState) => {
    const conn = byId('conn');
    conn.dataset.state = state;
    conn.textContent = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline — retrying' }[state];
  };

  const takeover = takeoverDialog({ api, agents: () => agents, onExpired: () => expired(), onDone: () => scheduleRefresh() });
  const openTakeover = (a: AgentView) => takeover.open(a);

  /** After a `reset`: nothing learnt before it is trusted (group list, state start times); read it all again, now. */
  const reload = async () => {
    forgetPlan();
    stateSince.clear();
    groupNames.clear();
    listedGroups.clear();
    if (pending) clearTimeout(pending);
    pending = undefined;
    try {
      await loadGroups();
    } catch {
      return expired();
    }
    if (stopped) return;
    lastRead = Date.now();
    await refresh();
  };

  const onEvent = (type: string, data: unknown) => {
    if (type === 'reset') {
      void reload();
      return;
    }
    const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
    if (type === 'agent' && d.agentId !== undefined) {
      const id = String(d.agentId);
      if (typeof d.since === 'number') stateSince.set(id, { state: String(d.state), since: d.since });
      const i = agents.findIndex((a) => a.id === id);
      const state = d.state as AgentView['state'];
      if (i >= 0 && state in STATE_LABEL) {
        const stateSecs = typeof d.since === 'number' ? Math.max(0, Date.now() / 1000 - d.since) : null;
        const prev = agents[i]!;
        const call = state === 'oncall' || state === 'ringing' ? prev.call : null;
        agents[i] = { ...prev, state, stateSecs, call, breakReason: typeof d.breakReason === 'string' ? d.breakReason : '' };
        renderAgents(agents, true, openTakeover);
      }
    }
    if (type === 'call.takeover') {
      const from = agents.find((a) => a.id === String(d.from))?.name ?? `agent ${String(d.from)}`;
      const to = agents.find((a) => a.id === String(d.to))?.name ?? `agent ${String(d.to)}`;
      toast(`Call ${String(d.caller ?? d.callId ?? '')} taken over: ${from} → ${to}`);
    }
    scheduleRefresh();
  };

  const onGroup = () => {
    sessionStorage.setItem(GROUP_KEY, select.value);
    void refresh();
  };
  const onKey = (ev: KeyboardEvent) => {
    const t = ev.target as HTMLElement;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || t.closest('input, select, dialog, textarea')) return;
    if (ev.key === 'g') {
      ev.preventDefault();
      select.focus();
    } else if (ev.key === 'a') {
      ev.preventDefault();
      (document.querySelector('.agent') as HTMLElement | null)?.focus();
    } else if (ev.key === 'r') {
      ev.preventDefault();
      void refresh();
    }
  };
  const onLogout = async () => {
    try {
      await api('auth/logout', {});
    } catch {
      // the session may already be gone; signing out locally is what matters
    }
    saveSession(null);
    showLogin('Signed out.');
  };
  const logoutButton = byId('logout');
  select.addEventListener('change', onGroup);
  document.addEventListener('keydown', onKey);
  logoutButton.addEventListener('click', onLogout);

  board = {
    stop() {
      stopped = true;
      stream?.close();
      inFlight?.abort();
      clearInterval(ticker);
      if (pending) clearTimeout(pending);
      takeover.dispose();
      select.removeEventListener('change', onGroup);
      document.removeEventListener('keydown', onKey);
      logoutButton.removeEventListener('click', onLogout);
    },
  };

  void (async () => {
    try {
      await loadGroups();
    } catch {
      return expired();
    }
    if (stopped) return;
    await refresh();
    stream = openStream(`/api/v2/stream?ssid=${encodeURIComponent(session.ssid)}`, STREAM_EVENTS, {
      onOpen: () => void refresh(),
      onEvent,
      onState: setConn,
      // The server refused the stream: find out whether the session is still good before retrying.
      onRefused: async () => {
        try {
          await api('queue/count', {});
          return !stopped;
        } catch (err) {
          if (err instanceof ApiError && err.code === INVALID_SESSION) {
            expired();
            return false;
          }
          return !stopped;
        }
      },
    });
  })();
}

installLayout();
byId<HTMLFormElement>('login-form').addEventListener('submit', (ev) => void onLogin(ev));
const existing = loadSession();
if (existing) startBoard(existing);
else showLogin();
