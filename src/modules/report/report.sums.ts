import { localDay } from '../../time/zone.js';
import { AgentSums, QueueSums } from './figures.js';
import {
  QUARTER,
  inBusinessHours,
  intervalOfGroup,
  intervalsOf,
  segmentsOf,
  type BusinessHours,
  type Interval,
  type IntervalName,
  type Segment,
} from './intervals.js';
import type { QueueRollupRow, ReportRepository } from './report.repository.js';
import { QUEUE_SUMS } from './rollup/queue-rollup.js';
import { isStoredSa, isStoredSl } from './thresholds.js';

/** A report's parameters once parsed and checked (report.service.ts). */
export interface QueueParams {
  tz: string;
  interval: IntervalName;
  bh: BusinessHours | null;
  sl: number[];
  sa: number;
  groupId: number | null;
  /** The groups every report has rows for (the account's groups, or the one asked for); groups with rows in the range come too. */
  keys: number[];
}

export interface AgentParams {
  tz: string;
  interval: IntervalName;
  bh: BusinessHours | null;
  /** The agents of the report, in order. */
  agents: number[];
  /** True when the report names an agent or a group: the database reads only those agents' rows. */
  filtered: boolean;
}

/** A range of whole quarter hours [start, end). */
export interface QuarterRange {
  start: number;
  end: number;
}

export interface QueueSumsAnswer {
  intervals: Interval[];
  /** Per group (p.keys and the groups with rows in the range), per interval. */
  sums: Map<number, QueueSums[]>;
}

export interface AgentSumsAnswer {
  intervals: Interval[];
  /** Per agent of the report, per interval. */
  sums: Map<number, AgentSums[]>;
  /** The break reasons with time in the range, sorted. */
  reasons: string[];
}

/** The quarter hours of the range kept by the business hours, as flags by bucket index. */
function keptBuckets(start: number, count: number, bh: BusinessHours | null, tz: string): Uint8Array {
  const keep = new Uint8Array(count).fill(1);
  if (bh) for (let i = 0; i < count; i++) keep[i] = inBusinessHours(bh, tz, start + i * QUARTER) ? 1 : 0;
  return keep;
}

/** The whole local days inside [start, end): from the first local midnight to the last (null when no whole day). */
function wholeDays(start: number, end: number, tz: string): { start: number; end: number } | null {
  let first: number | null = null;
  let last: number | null = null;
  for (let b = start; b <= end; b += QUARTER) {
    if (localDay(b, tz).start !== b) continue;
    first ??= b;
    last = b;
  }
  return first !== null && last !== null && first < last ? { start: first, end: last } : null;
}

/** The parts of a segment inside the given spans. */
function clip(seg: Segment, ...spans: Array<[number, number]>): Segment[] {
  return spans.map(([a, b]) => ({ ...seg, start: Math.max(seg.start, a), end: Math.min(seg.end, b) })).filter((s) => s.start < s.end);
}

/**
 * The sums behind report/queue over a range: roll-up rows summed per
 * interval by the database (per quarter hour by the service when business
 * hours filter them), plus the finished calls' waits for a threshold the
 * roll-up does not keep.
 */
export async function queueSums(repo: ReportRepository, p: QueueParams, range: QuarterRange): Promise<QueueSumsAnswer> {
  const { intervals, bucketIndex } = intervalsOf(range.start, range.end, p.interval, p.tz);
  const keep = keptBuckets(range.start, bucketIndex.length, p.bh, p.tz);
  // Rows of [interval index, roll-up sums].
  const rows: Array<[number, QueueRollupRow]> = [];
  if (p.bh) {
    for (const r of await repo.queueRows(range.start, range.end, p.groupId)) {
      const i = (Number(r.bucket) - range.start) / QUARTER;
      if (keep[i]) rows.push([bucketIndex[i]!, r]);
    }
  } else {
    const cols = QUEUE_SUMS.filter((c) => !/^(sl|sa|saw)_/.test(c) || p.sl.some((t) => c === `sl_${t}`) || c === `sa_${p.sa}` || c === `saw_${p.sa}`);
    for (const seg of segmentsOf(range.start, range.end, p.interval, p.tz, bucketIndex)) {
      for (const r of await repo.queueSums(seg, p.groupId, cols)) rows.push([intervalOfGroup(seg, Number(r.k), range.start, bucketIndex), r]);
    }
  }
  const sums = new Map<number, QueueSums[]>();
  const of = (g: number) => {
    let s = sums.get(g);
    if (!s) sums.set(g, (s = intervals.map(() => new QueueSums())));
    return s;
  };
  for (const g of p.keys) of(g);
  for (const [i, r] of rows) of(Number(r.group_id))[i]!.addRollup(r, p.sl, p.sa);
  if (p.sl.some((t) => !isStoredSl(t)) || !isStoredSa(p.sa)) {
    for (const c of await repo.callWaits(range.start, range.end, p.groupId)) {
      const i = Math.floor((Number(c.queued_at) - range.start) / QUARTER);
      if (!keep[i]) continue;
      sums.get(Number(c.group_id))?.[bucketIndex[i]!]!.addCall(c, p.sl, p.sa);
    }
  }
  return { intervals, sums };
}

/**
 * The sums behind report/agent over a range: whole local days from the
 * daily roll-up (intervals of a day or longer), the quarter hours around
 * them (or all of them) from report_agent; with business hours, the kept
 * quarter hours summed by the service.
 */
export async function agentSums(repo: ReportRepository, p: AgentParams, range: QuarterRange): Promise<AgentSumsAnswer> {
  const { tz } = p;
  const { intervals, bucketIndex } = intervalsOf(range.start, range.end, p.interval, tz);
  const keep = keptBuckets(range.start, bucketIndex.length, p.bh, tz);
  const sums = new Map<number, AgentSums[]>(p.agents.map((a) => [a, intervals.map(() => new AgentSums())]));
  const reasons = new Set<string>();
  const addBreak = (agentId: number, i: number, reason: string, secs: number) => {
    const s = sums.get(agentId)?.[i];
    if (!s) return;
    reasons.add(reason);
    s.breaks.set(reason, (s.breaks.get(reason) ?? 0) + secs);
  };
  if (p.bh) {
    const at = (bucket: number) => (bucket - range.start) / QUARTER;
    for (const r of await repo.agentRows(range.start, range.end)) {
      const i = at(Number(r.bucket));
      if (keep[i]) sums.get(Number(r.agent_id))?.[bucketIndex[i]!]!.addRollup(r);
    }
    for (const r of await repo.breakRows(range.start, range.end)) {
      const i = at(Number(r.bucket));
      if (keep[i]) addBreak(Number(r.agent_id), bucketIndex[i]!, r.reason, Number(r.secs));
    }
  } else {
    const only = p.filtered ? p.agents : null;
    const days = p.interval === '15m' || p.interval === 'hour' ? null : wholeDays(range.start, range.end, tz);
    const useDays = days !== null && !(await repo.otherZoneDays(tz, days.start, days.end));
    const at = (t: number) => bucketIndex[(t - range.start) / QUARTER]!;
    if (useDays) {
      for (const r of await repo.agentDays(tz, days.start, days.end)) sums.get(Number(r.agent_id))?.[at(Number(r.day_start))]!.addRollup(r);
      for (const r of await repo.breakDays(tz, days.start, days.end)) addBreak(Number(r.agent_id), at(Number(r.day_start)), r.reason, Number(r.secs));
    }
    for (const whole of segmentsOf(range.start, range.end, p.interval, tz, bucketIndex)) {
      const parts = useDays ? clip(whole, [range.start, days.start], [days.end, range.end]) : [whole];
      for (const seg of parts) {
        const of = (k: unknown) => intervalOfGroup(seg, Number(k), range.start, bucketIndex);
        for (const r of await repo.agentSums(seg, only)) sums.get(Number(r.agent_id))?.[of(r.k)]!.addRollup(r);
        for (const r of await repo.breakSums(seg)) addBreak(Number(r.agent_id), of(r.k), r.reason, Number(r.secs));
      }
    }
  }
  return { intervals, sums, reasons: [...reasons].sort() };
}

/** One report/queue row. */
export function queueRow(groupId: number, iv: Interval, s: QueueSums, sl: readonly number[]) {
  return { groupId, start: iv.start, end: iv.end, ...s.figures(sl) };
}

/** One report/agent row. */
export function agentRow(agentId: number, iv: Interval, s: AgentSums, reasons: readonly string[]) {
  return { agentId, start: iv.start, end: iv.end, ...s.figures(reasons) };
}
