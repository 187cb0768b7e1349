import type { CallHit, CallRecord } from '../modules/calls/call-record.js';

/**
 * Realistic synthetic call history for `callcenter seed --calls` and the
 * analysis benchmark: a daily rhythm (busy 08:00–20:00 UTC), DIDs routed to
 * groups, agents serving a few groups, campaigns, missed offers that another
 * agent answers, calls missed by everybody, abandons before any offer,
 * retries of unanswered calls (most answered), ghost calls and holds.
 * Deterministic for a given seed.
 */
export interface Topology {
  groups: number[];
  dids: string[];
  /** Agents per group (index of `groups`). */
  agentsByGroup: number[][];
  campaigns: string[];
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Relative call volume per UTC hour of the day.
const HOURLY = [1, 1, 1, 1, 1, 2, 4, 8, 12, 14, 15, 15, 14, 14, 15, 15, 14, 12, 10, 8, 6, 4, 2, 1];
const HOURLY_SUM = HOURLY.reduce((a, b) => a + b, 0);

export interface GenerateOptions {
  accountId: number;
  total: number;
  /** First day (UTC midnight, Unix seconds) and number of days. */
  startDay: number;
  days: number;
  topology: Topology;
  runId: string;
  seed?: number;
}

/**
 * Yields `total` finished calls in queued-time order, retries included: a
 * retry (1–31 minutes after its original ended) waits until the calls
 * before it have been yielded. Consumers rely on the order: the agent state
 * history (agent-history.ts) cuts an offer that starts before the agent's
 * previous activity ended, so a retry yielded early made the calls between
 * lose their talk time.
 */
export function* generateHistory(o: GenerateOptions): Generator<CallRecord> {
  const rnd = mulberry32(o.seed ?? 12345);
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)]!;
  const skew = (n: number) => Math.floor(Math.pow(rnd(), 1.6) * n); // a few busy groups/DIDs
  let made = 0;
  let n = 0;
  // Retries not yielded yet, in queued-time order.
  const pending: CallRecord[] = [];
  const due = function* (until: number): Generator<CallRecord> {
    while (pending.length > 0 && pending[0]!.queuedAt <= until) yield pending.shift()!;
  };
  for (let day = 0; day < o.days && made < o.total; day++) {
    // What is left spread over the days left (retries take from the same budget).
    const perDay = Math.round((o.total - made) / (o.days - day));
    const times: number[] = [];
    for (let i = 0; i < perDay; i++) {
      let r = rnd() * HOURLY_SUM;
      let hour = 0;
      while (r >= HOURLY[hour]!) r -= HOURLY[hour++]!;
      times.push(o.startDay + day * 86400 + hour * 3600 + Math.floor(rnd() * 3600));
    }
    times.sort((a, b) => a - b);
    for (let i = 0; i < times.length && made < o.total; i++) {
      const didIx = skew(o.topology.dids.length);
      const groupIx = didIx % o.topology.groups.length;
      const original = oneCall(o, rnd, pick, `${o.runId}-${n++}`, times[i]!, groupIx, didIx, null);
      yield* due(original.queuedAt);
      yield original;
      made++;
      // About 40 % of the calls nobody answered are retried (a callback or the caller again).
      if (made < o.total && original.answeredAt === null && original.hits.length > 0 && rnd() < 0.4) {
        const at = original.endedAt + 60 + Math.floor(rnd() * 1800);
        const retry = oneCall(o, rnd, pick, `${o.runId}-${n++}`, at, groupIx, didIx, original);
        let k = pending.length;
        while (k > 0 && pending[k - 1]!.queuedAt > retry.queuedAt) k--;
        pending.splice(k, 0, retry);
        made++;
      }
    }
  }
  yield* due(Infinity);
}

function oneCall(
  o: GenerateOptions,
  rnd: () => number,
  pick: <T>(l: T[]) => T,
  callId: string,
  queuedAt: number,
  groupIx: number,
  didIx: number,
  retryOf: CallRecord | null,
): CallRecord {
  const agents = o.topology.agentsByGroup[groupIx]!;
  const roll = rnd();
  // Outcome mix: answered at once, missed then answered, missed by all, abandoned before an offer.
  const retry = retryOf !== null;
  const kind = retry
    ? roll < 0.6
      ? 'first'
      : roll < 0.75
        ? 'second'
        : 'missed'
    : roll < 0.7
      ? 'first'
      : roll < 0.83
        ? 'second'
        : roll < 0.94
          ? 'missed'
          : 'queue';
  const offers = kind === 'first' ? 1 : kind === 'second' ? 2 + (rnd() < 0.2 ? 1 : 0) : kind === 'missed' ? 1 + Math.floor(rnd() * 3) : 0;
  const hits: CallHit[] = [];
  let t = queuedAt + 1 + Math.floor(rnd() * 20);
  const used = new Set<number>();
  for (let seq = 0; seq < offers; seq++) {
    let agent = pick(agents);
    if (used.has(agent) && agents.length > offers) agent = agents[(agents.indexOf(agent) + 1) % agents.length]!;
    used.add(agent);
    const answered = kind !== 'missed' && seq === offers - 1;
    const ringSecs = answered ? 2 + Math.floor(rnd() * 12) : 15 + Math.floor(rnd() * 10);
    hits.push({ seq, agentId: agent, ringAt: t, ringSecs, answered });
    t += ringSecs;
  }
  const answeredHit = hits.find((h) => h.answered) ?? null;
  const ghost = answeredHit !== null && rnd() < 0.04;
  const talkSecs = answeredHit ? (ghost ? Math.floor(rnd() * 4) : 20 + Math.floor(-Math.log(1 - rnd()) * 180)) : 0;
  const holdSecs = answeredHit && !ghost && rnd() < 0.2 ? 5 + Math.floor(rnd() * 115) : 0;
  const answeredAt = answeredHit ? answeredHit.ringAt + answeredHit.ringSecs : null;
  const endedAt = answeredAt !== null ? answeredAt + talkSecs + holdSecs : kind === 'queue' ? t + 10 + Math.floor(rnd() * 90) : t;
  const campaign = rnd() < 0.7 ? o.topology.campaigns[didIx % o.topology.campaigns.length]! : null;
  return {
    accountId: o.accountId,
    callId,
    queuedAt,
    endedAt,
    groupId: o.topology.groups[groupIx]!,
    did: o.topology.dids[didIx]!,
    campaignId: retry ? retryOf.campaignId : campaign,
    direction: retry ? 'outbound' : rnd() < 0.92 ? 'inbound' : 'outbound',
    caller: retry ? retryOf.caller : `91${9_000_000_000 + Math.floor(rnd() * 999_999_999)}`,
    retryOf: retry ? retryOf.callId : null,
    answeredBy: answeredHit?.agentId ?? null,
    answeredAt,
    talkSecs,
    holdSecs,
    waitSecs: (answeredAt ?? endedAt) - queuedAt,
    outcome: answeredAt !== null ? 'completed' : kind === 'queue' ? 'abandoned' : 'failed',
    hits,
  };
}
