/**
 * The answers of Agent/live and queue/count turned into what the board shows.
 * Reads them defensively: a missing figure shows as "—", never as an error.
 */
export type AgentState = 'available' | 'ringing' | 'oncall' | 'wrapup' | 'break' | 'offline';

export const STATE_LABEL: Record<AgentState, string> = {
  available: 'Available',
  ringing: 'Ringing',
  oncall: 'On call',
  wrapup: 'Wrap-up',
  break: 'On break',
  offline: 'Logged out',
};

export interface AgentView {
  id: string;
  name: string;
  state: AgentState;
  /** Seconds in the state as the server reported it at `readAt`, when it did. */
  stateSecs: number | null;
  call: { callId: string; caller: string; secs: number | null } | null;
  breakReason: string;
  callsToday: number | null;
  talkSecsToday: number | null;
}

export interface QueueCounters {
  waiting: number | null;
  ringing: number | null;
  connected: number | null;
  queued: number | null;
  answered: number | null;
  abandoned: number | null;
}

export interface GroupRow extends QueueCounters {
  groupId: string;
}

export interface Slot {
  time: number;
  queued: number;
  connected: number;
  abandoned: number;
}

export interface LiveCall {
  callId: string;
  groupId: string;
  state: string;
  caller: string;
  /** Seconds waited so far (or until answered), as the server computed it. */
  wait: number;
}

export interface QueueView {
  window: number;
  calls: LiveCall[];
  avgAnswerWait: number | null;
  totals: QueueCounters;
  groups: GroupRow[];
  oldestWaitSecs: number | null;
  serviceLevel: number | null;
  available: number | null;
  slots: Slot[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

export function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** Durations come as seconds or as the spec's [h, m, s] (elements possibly strings). */
export function seconds(v: unknown): number | null {
  if (Array.isArray(v)) {
    const [hh, mm, ss] = v.map((x) => num(x) ?? 0);
    return (hh ?? 0) * 3600 + (mm ?? 0) * 60 + (ss ?? 0);
  }
  return num(v);
}

function first(o: Obj, ...keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null && o[k] !== '') return o[k];
  return undefined;
}

function agentState(a: Obj, loggedIn: boolean, br: Obj, call: Obj): AgentState {
  // Agent/live with A: 1 names the state in `ex.state` (the only way to tell wrap-up from available).
  const explicit = str(first(obj(a.ex), 'state') ?? first(a, 'state', 'st'))
    .toLowerCase()
    .replace(/[^a-z]/g, '');
  const known: Record<string, AgentState> = {
    available: 'available',
    idle: 'available',
    ready: 'available',
    ringing: 'ringing',
    oncall: 'oncall',
    talking: 'oncall',
    connected: 'oncall',
    busy: 'oncall',
    hold: 'oncall',
    onhold: 'oncall',
    wrapup: 'wrapup',
    acw: 'wrapup',
    break: 'break',
    onbreak: 'break',
    offline: 'offline',
    loggedout: 'offline',
  };
  if (known[explicit]) return known[explicit];
  if (!loggedIn) return 'offline';
  if (str(br.reason)) return 'break';
  if (Object.keys(call).length) {
    const cs = str(first(call, 'state', 'status')).toLowerCase();
    return cs.startsWith('ring') ? 'ringing' : 'oncall';
  }
  if (num(first(a, 'wrapup', 'inWrapup', 'acw')) === 1 || a.wrapup === true) return 'wrapup';
  return 'available';
}

/** How long the agent has been in its state, from the durations Agent/live reports for it. */
function stateSeconds(a: Obj, state: AgentState, br: Obj, call: Obj): number | null {
  const explicit = seconds(first(a, 'stateDuration', 'sD'));
  if (explicit !== null) return explicit;
  if (state === 'break') return seconds(br.duration);
  if (state === 'oncall' || state === 'ringing') return seconds(call.duration);
  if (state === 'wrapup') return seconds(obj(obj(a.ex).wrapup).duration);
  if (state === 'available') {
    const since = num(a.avD);
    return since ? Math.max(0, Date.now() / 1000 - since) : null;
  }
  return null;
}

export function agentsFrom(answer: Obj): { agents: AgentView[]; counters: Obj } {
  const message = obj(answer.message ?? answer.data);
  const pr = Array.isArray(message.pr) ? (message.pr as unknown[]) : [];
  const agents = pr.map((raw): AgentView => {
    const a = obj(raw);
    const login = a.l;
    const loggedIn = login !== undefined && login !== 'No' && login !== '' && login !== null && login !== false;
    const br = obj(a.br);
    const call = obj(a.liC);
    const state = agentState(a, loggedIn, br, call);
    const stateSecs = stateSeconds(a, state, br, call);
    return {
      id: str(first(a, 'I', 'agentId', 'id')),
      name: str(first(a, 'nm', 'name')) || `Agent ${str(a.I)}`,
      state,
      stateSecs,
      call: Object.keys(call).length
        ? {
            callId: str(first(call, 'callId', 'id')),
            caller: str(first(call, 'caller', 'from', 'callernumber', 'number')),
            secs: seconds(first(call, 'duration', 'dur')),
          }
        : null,
      breakReason: str(br.reason),
      callsToday: num(a.tC),
      talkSecsToday: seconds(a.tt),
    };
  });
  return { agents, counters: message };
}

function counters(o: Obj): QueueCounters {
  return { waiting: num(o.pen), ringing: num(o.process), connected: num(o.ass), queued: num(o.add), answered: num(o.con), abandoned: num(o.drop) };
}

export function queueFrom(answer: Obj): QueueView {
  const data = obj(answer.data);
  const summary = obj(data.summary);
  const groups = (Array.isArray(data.grp) ? (data.grp as unknown[]) : []).map((g) => ({ groupId: str(obj(g).key), ...counters(obj(g)) }));
  const slots = (Array.isArray(data.qDura) ? (data.qDura as unknown[]) : []).map((s) => {
    const o = obj(s);
    return { time: num(o.time) ?? 0, queued: num(o.total) ?? 0, connected: num(o.con) ?? 0, abandoned: num(o.drop) ?? 0 };
  });
  // Account totals: queue/list's summary, else queue/count's data.user (one row: the account), else the sum of the groups.
  const user = Array.isArray(data.user) && data.user.length === 1 ? obj(data.user[0]) : {};
  const source = Object.keys(summary).length ? summary : Object.keys(user).length ? user : data;
  let totals = counters(source);
  if (totals.waiting === null && groups.length) {
    const sum = (k: keyof QueueCounters) => groups.reduce((n, g) => n + (g[k] ?? 0), 0);
    totals = {
      waiting: sum('waiting'),
      ringing: sum('ringing'),
      connected: sum('connected'),
      queued: sum('queued'),
      answered: sum('answered'),
      abandoned: sum('abandoned'),
    };
  }
  const sl = num(first(data, 'serviceLevel', 'sl', 'SL'));
  const calls = (Array.isArray(data.calls) ? (data.calls as unknown[]) : []).map((c) => {
    const o = obj(c);
    return { callId: str(o.callId), groupId: str(o.groupId), state: str(o.state), caller: str(o.caller), wait: num(o.wait) ?? 0 };
  });
  return {
    window: num(first(answer, 'window') ?? data.window) ?? 300,
    calls,
    avgAnswerWait: num(data.avC),
    totals,
    groups,
    oldestWaitSecs: num(data.st1),
    serviceLevel: sl,
    available: num(data.stA),
    slots,
  };
}
