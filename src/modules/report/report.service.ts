import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { AppError, agentError, fail } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import type { GroupService } from '../group/group.service.js';
import { AgentSums, QueueSums, round2 } from './figures.js';
import { localDay } from '../../time/zone.js';
import { QUARTER, inBusinessHours, intervalOfGroup, intervalsOf, segmentsOf, type BusinessHours, type IntervalName, type Segment } from './intervals.js';
import { ReportRepository, type QueueRollupRow } from './report.repository.js';
import { businessHours, instantRange, quarterRange, shortAbandonOf, thresholds } from './report.request.js';
import { QUEUE_SUMS } from './rollup/queue-rollup.js';
import { isStoredSa, isStoredSl } from './thresholds.js';

export interface QueueReportInput {
  from: number | string;
  to: number | string;
  groupId?: number;
  interval: IntervalName;
  businessHours?: { start: string; end: string; weekDays?: string[] };
  slThresholds?: number[];
  shortAbandon?: number;
}

export interface AgentReportInput {
  from: number | string;
  to: number | string;
  agentId?: number;
  groupId?: number;
  interval: IntervalName;
  businessHours?: { start: string; end: string; weekDays?: string[] };
}

export interface AbandonedInput {
  from: number | string;
  to: number | string;
  groupId?: number;
  did?: string;
  callbackWithinHours?: number;
  shortAbandon?: number;
  cursor?: string;
  limit?: number;
}

/** Most rows one report answers (keys × intervals). */
const MAX_ROWS = 200_000;

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

const cursorOf = (queuedAt: number, callId: string) => Buffer.from(JSON.stringify([queuedAt, callId])).toString('base64url');

function parseCursor(c: string | undefined): { queuedAt: number; callId: string } | null {
  if (c === undefined || c === '') return null;
  try {
    const [queuedAt, callId] = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof queuedAt === 'number' && typeof callId === 'string') return { queuedAt, callId };
  } catch {
    // answered below
  }
  throw fail(1001, 'cursor is not one this operation gave');
}

/**
 * The manager reports (PRODUCT.md §11, docs/reports.md): queue and agent
 * figures from the roll-ups kept at ingest (rollup/), the callback worklist
 * from the finished calls.
 */
export class ReportService {
  constructor(
    private readonly db: Queryable,
    private readonly deps: { accounts: AccountService; groups: GroupService },
  ) {}

  private repo(accountId: number) {
    return new ReportRepository(tenant(this.db, accountId));
  }

  async queue(accountId: number, q: QueueReportInput) {
    const { timezone: tz } = await this.deps.accounts.settings(accountId);
    const range = quarterRange(q.from, q.to, tz);
    const bh = businessHours(q.businessHours);
    const sl = thresholds(q.slThresholds);
    const sa = shortAbandonOf(q.shortAbandon);
    const groupId = q.groupId ?? null;
    if (groupId !== null && !(await this.deps.groups.exists(accountId, groupId))) throw new AppError(1006, `Group id does not exist: ${groupId}`);
    const { intervals, bucketIndex } = intervalsOf(range.start, range.end, q.interval, tz);
    const keep = keptBuckets(range.start, bucketIndex.length, bh, tz);
    const repo = this.repo(accountId);
    // Rows of [interval index, roll-up sums]: summed per interval by the database, or per quarter hour when business hours filter them.
    const rows: Array<[number, QueueRollupRow]> = [];
    if (bh) {
      for (const r of await repo.queueRows(range.start, range.end, groupId)) {
        const i = (Number(r.bucket) - range.start) / QUARTER;
        if (keep[i]) rows.push([bucketIndex[i]!, r]);
      }
    } else {
      const cols = QUEUE_SUMS.filter((c) => !/^(sl|sa|saw)_/.test(c) || sl.some((t) => c === `sl_${t}`) || c === `sa_${sa}` || c === `saw_${sa}`);
      for (const seg of segmentsOf(range.start, range.end, q.interval, tz, bucketIndex)) {
        for (const r of await repo.queueSums(seg, groupId, cols)) rows.push([intervalOfGroup(seg, Number(r.k), range.start, bucketIndex), r]);
      }
    }
    const keys = new Set<number>(groupId !== null ? [groupId] : (await this.deps.groups.list(accountId)).map((g) => g.groupId));
    for (const [, r] of rows) keys.add(Number(r.group_id));
    const sorted = [...keys].sort((a, b) => a - b);
    if (sorted.length * intervals.length > MAX_ROWS) throw fail(1001, 'the report would have too many rows: use a longer interval or a shorter range');
    const sums = new Map<number, QueueSums[]>(sorted.map((g) => [g, intervals.map(() => new QueueSums())]));
    for (const [i, r] of rows) sums.get(Number(r.group_id))![i]!.addRollup(r, sl, sa);
    if (sl.some((t) => !isStoredSl(t)) || !isStoredSa(sa)) {
      for (const c of await repo.callWaits(range.start, range.end, groupId)) {
        const i = Math.floor((Number(c.queued_at) - range.start) / QUARTER);
        if (!keep[i]) continue;
        sums.get(Number(c.group_id))?.[bucketIndex[i]!]!.addCall(c, sl, sa);
      }
    }
    return sorted.flatMap((g) => intervals.map((iv, i) => ({ groupId: g, start: iv.start, end: iv.end, ...sums.get(g)![i]!.figures(sl) })));
  }

  async agent(accountId: number, q: AgentReportInput) {
    const { timezone: tz } = await this.deps.accounts.settings(accountId);
    const range = quarterRange(q.from, q.to, tz);
    const bh = businessHours(q.businessHours);
    const repo = this.repo(accountId);
    if (q.groupId !== undefined && !(await this.deps.groups.exists(accountId, q.groupId))) throw new AppError(1006, `Group id does not exist: ${q.groupId}`);
    if (q.agentId !== undefined && !(await repo.agentExists(q.agentId))) throw agentError(1509, `agent ${q.agentId}`);
    let agents = await repo.agentIds(q.groupId ?? null);
    if (q.agentId !== undefined) agents = agents.filter((a) => a === q.agentId);
    const { intervals, bucketIndex } = intervalsOf(range.start, range.end, q.interval, tz);
    if (agents.length * intervals.length > MAX_ROWS) throw fail(1001, 'the report would have too many rows: use a longer interval or a shorter range');
    const keep = keptBuckets(range.start, bucketIndex.length, bh, tz);
    const sums = new Map<number, AgentSums[]>(agents.map((a) => [a, intervals.map(() => new AgentSums())]));
    const reasons = new Set<string>();
    const addBreak = (agentId: number, i: number, reason: string, secs: number) => {
      const s = sums.get(agentId)?.[i];
      if (!s) return;
      reasons.add(reason);
      s.breaks.set(reason, (s.breaks.get(reason) ?? 0) + secs);
    };
    if (bh) {
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
      // Whole local days from the daily roll-up (intervals of a day or longer), the quarter hours around them from report_agent.
      // One agent or a group's agents: the database reads only theirs.
      const only = q.agentId !== undefined || q.groupId !== undefined ? agents : null;
      const days = q.interval === '15m' || q.interval === 'hour' ? null : wholeDays(range.start, range.end, tz);
      const useDays = days !== null && !(await repo.otherZoneDays(tz, days.start, days.end));
      const at = (t: number) => bucketIndex[(t - range.start) / QUARTER]!;
      if (useDays) {
        for (const r of await repo.agentDays(tz, days.start, days.end)) sums.get(Number(r.agent_id))?.[at(Number(r.day_start))]!.addRollup(r);
        for (const r of await repo.breakDays(tz, days.start, days.end)) addBreak(Number(r.agent_id), at(Number(r.day_start)), r.reason, Number(r.secs));
      }
      for (const whole of segmentsOf(range.start, range.end, q.interval, tz, bucketIndex)) {
        const parts = useDays ? clip(whole, [range.start, days.start], [days.end, range.end]) : [whole];
        for (const seg of parts) {
          const of = (k: unknown) => intervalOfGroup(seg, Number(k), range.start, bucketIndex);
          for (const r of await repo.agentSums(seg, only)) sums.get(Number(r.agent_id))?.[of(r.k)]!.addRollup(r);
          for (const r of await repo.breakSums(seg)) addBreak(Number(r.agent_id), of(r.k), r.reason, Number(r.secs));
        }
      }
    }
    const reasonList = [...reasons].sort();
    return agents.flatMap((a) => intervals.map((iv, i) => ({ agentId: a, start: iv.start, end: iv.end, ...sums.get(a)![i]!.figures(reasonList) })));
  }

  async abandoned(accountId: number, q: AbandonedInput) {
    const { timezone: tz } = await this.deps.accounts.settings(accountId);
    const range = instantRange(q.from, q.to, tz);
    const hours = q.callbackWithinHours ?? 24;
    if (!(hours > 0 && hours <= 24 * 31)) throw fail(1001, 'callbackWithinHours must be more than 0 and at most 744');
    const limit = q.limit ?? 100;
    if (q.groupId !== undefined && !(await this.deps.groups.exists(accountId, q.groupId))) throw new AppError(1006, `Group id does not exist: ${q.groupId}`);
    const repo = this.repo(accountId);
    const rows = await repo.abandoned({
      from: range.from,
      to: range.to,
      shortAbandon: shortAbandonOf(q.shortAbandon),
      groupId: q.groupId ?? null,
      did: q.did ?? null,
      after: parseCursor(q.cursor),
      limit,
    });
    const page = rows.slice(0, limit);
    const data = [];
    for (const r of page) {
      const endedAt = Number(r.ended_at);
      const next = r.caller ? await repo.firstCallOf(r.caller, endedAt, endedAt + hours * 3600) : undefined;
      data.push({
        callId: r.call_id,
        caller: r.caller,
        groupId: r.group_id === null ? null : Number(r.group_id),
        did: r.did,
        queuedAt: Number(r.queued_at),
        waited: round2(Number(r.wait_secs))!,
        calledBack: next ? { callId: next.call_id, at: Number(next.queued_at), answered: next.answered_at !== null } : null,
      });
    }
    const last = page[page.length - 1];
    return { data, nextCursor: rows.length > limit && last ? cursorOf(Number(last.queued_at), last.call_id) : null };
  }
}
