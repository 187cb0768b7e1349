import type { RecentCallRow } from '../calls/call-record.js';
import { isAvailable, type AgentLive, type CallLive } from '../events/live.types.js';
import { round2 } from '../live/live.format.js';

/**
 * Queue statistics over the trailing window and the live state (PRODUCT §7):
 * add / drop / con count calls QUEUED within the window (drop: of those, ended
 * abandoned; con: of those, answered); pen / process / ass count live calls
 * now waiting unoffered / ringing / connected, whenever they were queued.
 */
export interface Counters {
  add: number;
  drop: number;
  con: number;
  pen: number;
  process: number;
  ass: number;
}

interface Item {
  queuedAt: number;
  inWindow: boolean;
  answered: boolean;
  dropped: boolean;
  live: 'pen' | 'process' | 'ass' | null;
  wait: number | null;
  agent: number | null;
  groupId: number | null;
  did: string | null;
  campaignId: string | null;
  st: string;
}

const LIVE_KIND = { queued: 'pen', ringing: 'process', connected: 'ass' } as const;
const SLOT = 30;

export interface QueueInput {
  accountId: number;
  now: number;
  window: number;
  live: CallLive[];
  recent: RecentCallRow[];
  /** Ring seconds of offers of finished calls that rang within the window. */
  endedRingSecs: number[];
  agents: AgentLive[];
}

function zero(): Counters {
  return { add: 0, drop: 0, con: 0, pen: 0, process: 0, ass: 0 };
}

function count(c: Counters, i: Item): void {
  if (i.inWindow) {
    c.add++;
    if (i.dropped) c.drop++;
    if (i.answered) c.con++;
  }
  if (i.live) c[i.live]++;
}

function byKey<K extends string | number>(items: Item[], keyOf: (i: Item) => K | null) {
  const m = new Map<K, Counters>();
  for (const i of items) {
    const k = keyOf(i);
    if (k === null) continue;
    let c = m.get(k);
    if (!c) m.set(k, (c = zero()));
    count(c, i);
  }
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([key, c]) => ({ key, ...c }));
}

export function liveCallView(c: CallLive, now: number) {
  const wait = Math.max(0, (c.answeredAt ?? now) - c.queuedAt);
  return {
    callId: c.callId,
    state: c.state,
    caller: c.caller ?? '',
    did: c.did ?? '',
    groupId: c.groupId,
    campaignId: c.campaignId ?? '',
    direction: c.direction,
    agentId: c.agentId,
    ringingAgentId: c.ringAgent,
    onHold: c.onHold,
    queuedAt: c.queuedAt,
    answeredAt: c.answeredAt,
    wait: round2(wait),
  };
}

export function queueStats(input: QueueInput) {
  const { now, window } = input;
  const since = now - window;
  const items: Item[] = [];
  for (const c of input.live) {
    const lastHit = c.hits[c.hits.length - 1];
    items.push({
      queuedAt: c.queuedAt,
      inWindow: c.queuedAt >= since,
      answered: c.answeredAt !== null,
      dropped: false,
      live: LIVE_KIND[c.state],
      wait: c.answeredAt !== null ? c.answeredAt - c.queuedAt : null,
      agent: c.agentId ?? c.ringAgent ?? lastHit?.[0] ?? null,
      groupId: c.groupId,
      did: c.did,
      campaignId: c.campaignId,
      st: `${c.direction}_${c.state}`,
    });
  }
  for (const r of input.recent) {
    const answered = r.answered_at !== null;
    items.push({
      queuedAt: Number(r.queued_at),
      inWindow: true,
      answered,
      dropped: r.outcome === 'abandoned',
      live: null,
      wait: answered ? Number(r.wait_secs) : null,
      agent: r.answered_by !== null ? Number(r.answered_by) : r.last_agent !== null ? Number(r.last_agent) : null,
      groupId: r.group_id === null ? null : Number(r.group_id),
      did: r.did,
      campaignId: r.campaign_id,
      st: `${r.direction}_${r.outcome}`,
    });
  }
  const total = zero();
  for (const i of items) count(total, i);

  const slots = Math.ceil(window / SLOT);
  const qDura = Array.from({ length: slots }, (_, s) => ({ time: Math.floor(since + s * SLOT), total: 0, drop: 0, con: 0 }));
  for (const i of items) {
    if (!i.inWindow) continue;
    const s = Math.min(slots - 1, Math.max(0, Math.floor((i.queuedAt - since) / SLOT)));
    qDura[s]!.total++;
    if (i.dropped) qDura[s]!.drop++;
    if (i.answered) qDura[s]!.con++;
  }

  const waits = items.filter((i) => i.inWindow && i.wait !== null).map((i) => i.wait!);
  const rings = [...input.endedRingSecs];
  for (const c of input.live) for (const h of c.hits) if (h[2] !== null && h[1] >= since) rings.push(h[2]);
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : round2(xs.reduce((a, b) => a + b, 0) / xs.length));
  const waiting = input.live.filter((c) => c.state !== 'connected');
  const idle = input.agents.filter((a) => isAvailable(a) && a.ringCall === null).length;

  return {
    totals: total,
    count: input.live.length,
    avC: mean(waits),
    avR: mean(rings),
    stA: idle,
    st1: waiting.length === 0 ? 0 : Math.round(Math.max(...waiting.map((c) => now - c.queuedAt))),
    qDura,
    chart: { time: qDura.map((q) => q.time), total: qDura.map((q) => q.total), drop: qDura.map((q) => q.drop), con: qDura.map((q) => q.con) },
    ag: byKey(items, (i) => i.agent),
    st: byKey(items, (i) => i.st),
    grp: byKey(items, (i) => i.groupId),
    user: byKey(items, () => input.accountId),
    did: byKey(items, (i) => i.did),
  };
}
