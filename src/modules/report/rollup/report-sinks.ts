import type { Param, Queryable } from '../../../db/types.js';
import { tenant } from '../../../db/tenant.js';
import { probeRows } from '../../../db/in-list.js';
import type { CallRecordSink } from '../../calls/call-record-sink.js';
import type { CallRecord } from '../../calls/call-record.js';
import type { AgentSpan, AgentTimeSink } from '../../events/agent-time.js';
import { localDay } from '../../../time/zone.js';
import { gatheredRollup, rollupTable, writeRollup } from '../../../db/rollup-write.js';
import { REPORT_MARKS } from './marks.js';
import { QUARTER, QUEUE_SUMS, ix, quarterOf, queueDelta, queueZeros } from './queue-rollup.js';

export const AGENT_SUMS = ['login', 'available', 'ringing', 'talk', 'hold', 'wrap', 'brk', 'offered', 'answered', 'missed'] as const;
const AIX = new Map<string, number>(AGENT_SUMS.map((c, i) => [c, i]));
const KIND_COL: Record<AgentSpan['kind'], string> = {
  available: 'available',
  ringing: 'ringing',
  talk: 'talk',
  hold: 'hold',
  wrap: 'wrap',
  break: 'brk',
};

const QUEUE_TABLE = rollupTable('report_queue', { key: ['bucket', 'group_id'], sum: QUEUE_SUMS, max: ['max_wait'] }, REPORT_MARKS);
const AGENT_TABLE = rollupTable('report_agent', { key: ['bucket', 'agent_id'], sum: AGENT_SUMS, max: [] }, REPORT_MARKS);
const BREAKS_TABLE = rollupTable('report_agent_breaks', { key: ['bucket', 'agent_id', 'reason'], sum: ['secs'], max: [] }, REPORT_MARKS);
const AGENT_DAY_TABLE = rollupTable('report_agent_day', { key: ['day_start', 'agent_id', 'tz'], sum: AGENT_SUMS, max: [] }, REPORT_MARKS);
const BREAKS_DAY_TABLE = rollupTable('report_agent_breaks_day', { key: ['day_start', 'agent_id', 'reason', 'tz'], sum: ['secs'], max: [] }, REPORT_MARKS);

interface AgentRow {
  agent: number;
  bucket: number;
  v: number[];
}

const AGENT_ZEROS: readonly number[] = new Array<number>(AGENT_SUMS.length).fill(0);

/** Deltas of one batch, summed in memory per roll-up row, written once each. */
export class Batch {
  /** The account's zone now: agent figures are also kept per local day of it (report_agent_day). */
  constructor(readonly tz: string) {}

  readonly queue = new Map<string, { group: number; bucket: number; v: number[]; maxWait: number | null }>();
  /** report_agent's rows in the order first added; `agentAt` finds them by quarter hour, then agent. */
  readonly agent: AgentRow[] = [];
  private readonly agentAt = new Map<number, Map<number, AgentRow>>();
  readonly breaks = new Map<string, { agent: number; bucket: number; reason: string; secs: number }>();

  queueRow(group: number, bucket: number) {
    const k = `${group}|${bucket}`;
    let row = this.queue.get(k);
    if (!row) this.queue.set(k, (row = { group, bucket, v: queueZeros(), maxWait: null }));
    return row;
  }

  /** report_agent_day's rows, as `agent` (by local day start, then agent). */
  readonly agentDay: AgentRow[] = [];
  private readonly agentDayAt = new Map<number, Map<number, AgentRow>>();
  readonly breaksDay = new Map<string, { agent: number; bucket: number; reason: string; secs: number }>();
  /** The start of the local day of each quarter hour added to (localDay's own memo is keyed by a string of zone and slot). */
  private readonly dayStarts = new Map<number, number>();

  /*
   * Numbers as keys, not a string of agent and bucket: a batch adds to these rows ~1,000 times
   * (every span and hit, twice), each a string built and hashed before (agentIn, ~0.37 ms a
   * 500-event batch in a CPU profile of bench/ingest-statements.ts).
   */
  private static agentIn(rows: AgentRow[], at: Map<number, Map<number, AgentRow>>, agent: number, bucket: number): AgentRow {
    let ofBucket = at.get(bucket);
    if (!ofBucket) at.set(bucket, (ofBucket = new Map()));
    let row = ofBucket.get(agent);
    if (!row) {
      // A plain array: a Float64Array costs ~0.45 µs to make against ~0.05 µs (queue-rollup.ts, queueZeros).
      ofBucket.set(agent, (row = { agent, bucket, v: AGENT_ZEROS.slice() }));
      rows.push(row);
    }
    return row;
  }

  private dayStart(at: number): number {
    const slot = Math.floor(at / QUARTER);
    let start = this.dayStarts.get(slot);
    if (start === undefined) this.dayStarts.set(slot, (start = localDay(at, this.tz).start));
    return start;
  }

  private static breakIn(map: Batch['breaks'], agent: number, bucket: number, reason: string, secs: number) {
    const k = `${agent}|${bucket}|${reason}`;
    const row = map.get(k);
    if (row) row.secs += secs;
    else map.set(k, { agent, bucket, reason, secs });
  }

  /** Adds to agent column `col` at time `at`: its quarter hour and its local day. */
  addAgent(agent: number, at: number, col: number, v: number) {
    Batch.agentIn(this.agent, this.agentAt, agent, quarterOf(at)).v[col]! += v;
    Batch.agentIn(this.agentDay, this.agentDayAt, agent, this.dayStart(at)).v[col]! += v;
  }

  addBreak(agent: number, at: number, reason: string, secs: number) {
    Batch.breakIn(this.breaks, agent, quarterOf(at), reason, secs);
    Batch.breakIn(this.breaksDay, agent, this.dayStart(at), reason, secs);
  }

  async flush(tx: Queryable, accountId: number): Promise<void> {
    // Every row written is under a quarter hour of queue or agent rows (a local day row's time is in one too).
    const times: number[] = [];
    for (const r of this.queue.values()) times.push(r.bucket);
    for (const r of this.agent) times.push(r.bucket);
    for (const r of this.breaks.values()) times.push(r.bucket);
    // Deltas added to each table's rows; `max` columns keep the larger value (a maximum is never taken
    // back: the only corrections of finished calls, late misses, leave waits unchanged). The marks of
    // the days in the same call.
    const nonZero = (v: number[]) => v.some((x) => x !== 0);
    await writeRollup(tenant(tx, accountId), {
      writes: [
        {
          table: QUEUE_TABLE,
          rows: [...this.queue.values()].filter((r) => nonZero(r.v) || r.maxWait !== null).map((r) => [r.bucket, r.group, ...r.v, r.maxWait] as Param[]),
        },
        { table: AGENT_TABLE, rows: this.agent.filter((r) => nonZero(r.v)).map((r) => [r.bucket, r.agent, ...r.v] as Param[]) },
        { table: BREAKS_TABLE, rows: [...this.breaks.values()].filter((r) => r.secs !== 0).map((r) => [r.bucket, r.agent, r.reason, r.secs]) },
        {
          table: AGENT_DAY_TABLE,
          rows: this.agentDay.filter((r) => nonZero(r.v)).map((r) => [r.bucket, r.agent, this.tz, ...r.v] as Param[]),
        },
        {
          table: BREAKS_DAY_TABLE,
          rows: [...this.breaksDay.values()].filter((r) => r.secs !== 0).map((r) => [r.bucket, r.agent, r.reason, this.tz, r.secs]),
        },
      ],
      times,
    });
  }
}

/** Adds finished calls (times `sign`) to a batch: the group's quarter hour of queuing, each hit's agent quarter hour of ringing. */
export function addCalls(batch: Batch, records: readonly CallRecord[], sign: 1 | -1): void {
  for (const r of records) {
    if (r.groupId !== null) {
      const row = batch.queueRow(r.groupId, quarterOf(r.queuedAt));
      const d = queueDelta(r, sign);
      for (let i = 0; i < d.length; i++) row.v[i]! += d[i]!;
      if (sign === 1) row.maxWait = Math.max(row.maxWait ?? 0, r.waitSecs);
    }
    for (const h of r.hits) {
      batch.addAgent(h.agentId, h.ringAt, AIX.get('offered')!, sign);
      batch.addAgent(h.agentId, h.ringAt, AIX.get(h.answered ? 'answered' : 'missed')!, sign);
    }
  }
}

/** Splits agent spans exactly at quarter-hour edges into a batch; answers the wrap-up seconds per call. */
export function addSpans(batch: Batch, spans: readonly AgentSpan[]): Map<string, number> {
  const wrapByCall = new Map<string, number>();
  for (const s of spans) {
    const col = AIX.get(KIND_COL[s.kind])!;
    for (let from = s.from; from < s.to;) {
      const to = Math.min(s.to, quarterOf(from) + QUARTER);
      const secs = to - from;
      batch.addAgent(s.agentId, from, AIX.get('login')!, secs);
      batch.addAgent(s.agentId, from, col, secs);
      if (s.kind === 'break') batch.addBreak(s.agentId, from, s.reason ?? '', secs);
      from = to;
    }
    if (s.kind === 'wrap' && s.callId !== null) wrapByCall.set(s.callId, (wrapByCall.get(s.callId) ?? 0) + (s.to - s.from));
  }
  return wrapByCall;
}

/** The report roll-ups as the call history's sink: finished calls in (sign 1) and out (sign -1, late corrections). */
export class ReportCallSink implements CallRecordSink {
  async apply(tx: Queryable, accountId: number, records: readonly CallRecord[], sign: 1 | -1): Promise<void> {
    if (records.length === 0) return;
    await inBatch(tx, accountId, (batch) => addCalls(batch, records, sign));
  }
}

/** The report roll-ups as the events module's agent-time sink: the state spans a batch closed. */
export class ReportAgentTimeSink implements AgentTimeSink {
  async apply(tx: Queryable, accountId: number, spans: readonly AgentSpan[]): Promise<void> {
    if (spans.length === 0) return;
    await inBatch(tx, accountId, async (batch) => {
      const wraps = addSpans(batch, spans);
      if (wraps.size > 0) await addWraps(tx, accountId, batch, wraps);
    });
  }
}

/**
 * Adds to the account's report batch of the transaction's roll-up gathering
 * (`gatherRollups`, src/db/rollup-write.ts: the ingest's, written once before
 * its commit, so the finished calls and the agent spans write their shared
 * report_agent and report_agent_day rows once), or, with no gathering open,
 * to a batch of its own written at once (the plain path).
 */
async function inBatch(tx: Queryable, accountId: number, add: (batch: Batch) => void | Promise<void>): Promise<void> {
  const gathered = gatheredRollup(tx, `report:${accountId}`, async () => {
    const batch = new Batch(await zoneOf(tx, accountId));
    return { batch, flush: () => batch.flush(tx, accountId) };
  });
  if (gathered) return add((await gathered).batch);
  const batch = new Batch(await zoneOf(tx, accountId));
  await add(batch);
  await batch.flush(tx, accountId);
}

/** The account's zone (the accounts table, account/): one key lookup per batch. */
async function zoneOf(tx: Queryable, accountId: number): Promise<string> {
  return (await tx.get<{ timezone: string }>('SELECT timezone FROM accounts WHERE id = $1', [accountId]))?.timezone ?? 'UTC';
}

/** Wrap-up time counts to the queue figures of the call it belongs to (its group and quarter hour of queuing). */
async function addWraps(tx: Queryable, accountId: number, batch: Batch, wraps: Map<string, number>): Promise<void> {
  const t = tenant(tx, accountId);
  const ids = [...wraps.keys()];
  // One index probe per call (probeRows): this read runs after the ingest's reads, under the planner's
  // default plans (events.service.ts), where an IN list may hash-join every call of the account.
  const a = probeRows(t, 'calls', 'c', 'call_id', 2, ids);
  const b = probeRows(t, 'live_calls', 'l', 'call_id', 3, ids);
  // live_calls (events module): a call taken over is still live while its first agent wraps up; one read of both.
  const rows = await t.all<{ call_id: string; group_id: number | null; queued_at: number }>(
    `SELECT c.call_id, c.group_id, c.queued_at FROM ${a.sql}
     UNION ALL SELECT l.call_id, l.group_id, l.queued_at FROM ${b.sql}`,
    [a.param, b.param],
  );
  const seen = new Set<string>();
  for (const r of rows) {
    if (r.group_id === null || seen.has(r.call_id)) continue;
    seen.add(r.call_id);
    batch.queueRow(Number(r.group_id), quarterOf(Number(r.queued_at))).v[ix('wrap_sum')]! += wraps.get(r.call_id)!;
  }
}
