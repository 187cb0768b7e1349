import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { AppError, agentError, fail } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import type { GroupService } from '../group/group.service.js';
import type { CacheUse } from '../../cache/tokened-cache.js';
import { DayAnswers, MAX_ROWS, tooManyRows } from './answers/report-day-answers.js';
import type { ChunkPool } from '../../http/chunk-pool.js';
import { round2 } from './figures.js';
import { QUARTER, intervalsOf, type IntervalName } from './intervals.js';
import { ReportRepository } from './report.repository.js';
import { utcDayOf } from './rollup/marks.js';
import { businessHours, instantRange, quarterRange, shortAbandonOf, thresholds } from './report.request.js';
import { agentRow, agentSums, queueRow, queueSums, type AgentParams, type QuarterRange, type QueueParams } from './report.sums.js';

/** Calls offered and answered and the answered calls' handle time (talk + hold + wrap-up, seconds). */
export interface QueueVolume {
  offered: number;
  answered: number;
  handle: number;
}

/** Intervals that never cross a local midnight: answered day by day (answers/). */
const DAY_INTERVALS = new Set<IntervalName>(['15m', 'hour', 'day']);

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

export interface ReportServiceDeps {
  db: Queryable;
  accounts: AccountService;
  groups: GroupService;
  /** The budget of answers of whole days kept in memory (REPORT_CACHE_MB; 0: none, every report reads its range at once). */
  cacheBytes: number;
  /** The buffers large answers are written in (built once, in the composition root). */
  chunks: ChunkPool;
}

/**
 * The manager reports (PRODUCT.md §11, docs/reports.md): queue and agent
 * figures from the roll-ups kept at ingest (rollup/), the callback worklist
 * from the finished calls.
 */
export class ReportService {
  private readonly db: Queryable;
  private readonly days: DayAnswers;
  /** staffing/plan's totals over weeks by account, range and group, with the marks they were read under (a few hundred bytes each). */
  private readonly totalsKept = new Map<string, { marks: string; totals: Map<number, QueueVolume> }>();

  constructor(private readonly deps: ReportServiceDeps) {
    this.db = deps.db;
    this.days = new DayAnswers(deps.cacheBytes, deps.chunks);
  }

  /** What this node keeps of past days' report rows (GET /metrics, `callcenter_cache_bytes`). */
  cacheUse(): Record<string, CacheUse> {
    return { report_days: this.days.cacheUse() };
  }

  private repo(accountId: number) {
    return new ReportRepository(tenant(this.db, accountId));
  }

  /** report/queue's parameters, checked in the order of their errors, and its range. */
  private async queueParams(accountId: number, q: QueueReportInput): Promise<{ p: QueueParams; range: QuarterRange }> {
    const { timezone: tz } = await this.deps.accounts.settings(accountId);
    const range = quarterRange(q.from, q.to, tz);
    const bh = businessHours(q.businessHours);
    const sl = thresholds(q.slThresholds);
    const sa = shortAbandonOf(q.shortAbandon);
    const groupId = q.groupId ?? null;
    if (groupId !== null && !(await this.deps.groups.exists(accountId, groupId))) throw new AppError(1006, `Group id does not exist: ${groupId}`);
    const keys = groupId !== null ? [groupId] : await this.repo(accountId).groupIds();
    return { p: { tz, interval: q.interval, bh, sl, sa, groupId, keys }, range };
  }

  /** report/queue rows over the whole range in one read (CSV, and intervals longer than a day). */
  async queue(accountId: number, q: QueueReportInput) {
    const { p, range } = await this.queueParams(accountId, q);
    return this.queueRows(accountId, p, range);
  }

  private async queueRows(accountId: number, p: QueueParams, range: QuarterRange) {
    const { intervals, sums } = await queueSums(this.repo(accountId), p, range);
    const sorted = [...sums.keys()].sort((a, b) => a - b);
    if (sorted.length * intervals.length > MAX_ROWS) throw tooManyRows();
    return sorted.flatMap((g) => intervals.map((iv, i) => queueRow(g, iv, sums.get(g)![i]!, p.sl)));
  }

  /** report/queue as JSON: by 15 minutes, hour or day put together from local days (answers/), else in one read. */
  async queueAnswer(accountId: number, q: QueueReportInput) {
    const { p, range } = await this.queueParams(accountId, q);
    if (!DAY_INTERVALS.has(p.interval) || !this.days.enabled) return { rows: await this.queueRows(accountId, p, range) };
    return { encoded: await this.days.queue(this.repo(accountId), p, range) };
  }

  private async agentParams(accountId: number, q: AgentReportInput): Promise<{ p: AgentParams; range: QuarterRange }> {
    const { timezone: tz } = await this.deps.accounts.settings(accountId);
    const range = quarterRange(q.from, q.to, tz);
    const bh = businessHours(q.businessHours);
    const repo = this.repo(accountId);
    if (q.groupId !== undefined && !(await this.deps.groups.exists(accountId, q.groupId))) throw new AppError(1006, `Group id does not exist: ${q.groupId}`);
    if (q.agentId !== undefined && !(await repo.agentExists(q.agentId))) throw agentError(1509, `agent ${q.agentId}`);
    let agents = await repo.agentIds(q.groupId ?? null);
    if (q.agentId !== undefined) agents = agents.filter((a) => a === q.agentId);
    // One agent or a group's agents: the database reads only theirs.
    const filtered = q.agentId !== undefined || q.groupId !== undefined;
    return { p: { tz, interval: q.interval, bh, agents, filtered }, range };
  }

  /** report/agent rows over the whole range in one read. */
  async agent(accountId: number, q: AgentReportInput) {
    const { p, range } = await this.agentParams(accountId, q);
    return this.agentRows(accountId, p, range);
  }

  private async agentRows(accountId: number, p: AgentParams, range: QuarterRange) {
    const { intervals } = intervalsOf(range.start, range.end, p.interval, p.tz);
    if (p.agents.length * intervals.length > MAX_ROWS) throw tooManyRows();
    const { sums, reasons } = await agentSums(this.repo(accountId), p, range);
    return p.agents.flatMap((a) => intervals.map((iv, i) => agentRow(a, iv, sums.get(a)![i]!, reasons)));
  }

  /** report/agent as JSON, as queueAnswer. */
  async agentAnswer(accountId: number, q: AgentReportInput) {
    const { p, range } = await this.agentParams(accountId, q);
    if (!DAY_INTERVALS.has(p.interval) || !this.days.enabled) return { rows: await this.agentRows(accountId, p, range) };
    return { encoded: await this.days.agent(this.repo(accountId), p, range) };
  }

  /** The groups a report has rows for: the one asked for, else the account's (report/queue's keys). */
  async reportGroups(accountId: number, groupId: number | null): Promise<number[]> {
    return groupId !== null ? [groupId] : this.repo(accountId).groupIds();
  }

  /**
   * What staffing/plan forecasts from (PRODUCT.md §14): per group, per UTC
   * quarter hour of the range (index from range.start), the calls offered
   * and answered and their handle time (talk + hold + wrap-up): the
   * report_queue columns report/queue's `offered` and `aht` are made of,
   * read lean (three sums, not report/queue's every figure).
   */
  async queueVolumes(accountId: number, range: QuarterRange, groupId: number | null): Promise<Map<number, QueueVolume[]>> {
    const n = Math.round((range.end - range.start) / QUARTER);
    const out = new Map<number, QueueVolume[]>();
    for (const [g, bucket, offered, answered, handle] of await this.repo(accountId).queueVolumeRows(range.start, range.end, groupId)) {
      let list = out.get(Number(g));
      if (!list) out.set(Number(g), (list = Array.from({ length: n }, () => ({ offered: 0, answered: 0, handle: 0 }))));
      const v = list[(Number(bucket) - range.start) / QUARTER]!;
      v.offered += Number(offered);
      v.answered += Number(answered);
      v.handle += Number(handle);
    }
    return out;
  }

  /**
   * The same summed per group over the whole range: a read of every row of
   * weeks, kept per node while the change marks of its UTC days stay the same
   * (as the kept days of answers/), so a plan asked again reads one mark
   * row per day instead.
   */
  async queueVolumeTotals(accountId: number, range: QuarterRange, groupId: number | null): Promise<Map<number, QueueVolume>> {
    const repo = this.repo(accountId);
    const marks = [...(await repo.marks(utcDayOf(range.start), utcDayOf(range.end - 1)))].sort((a, b) => a[0] - b[0]).join(';');
    const key = `${accountId}|${range.start}|${range.end}|${groupId}`;
    const kept = this.totalsKept.get(key);
    if (kept && kept.marks === marks) return kept.totals;
    const rows = await repo.queueVolumeTotals(range.start, range.end, groupId);
    const totals = new Map(
      rows.map(([g, offered, answered, handle]) => [Number(g), { offered: Number(offered), answered: Number(answered), handle: Number(handle) }]),
    );
    if (this.totalsKept.size >= 256) this.totalsKept.clear();
    this.totalsKept.set(key, { marks, totals });
    return totals;
  }

  /**
   * report/agent's login time per UTC quarter hour of the range (index from
   * range.start), summed over the agents mapped to each group (those
   * report/agent's groupId selects): staffing/plan's agents logged in. An
   * agent in two groups counts in both. Read lean: the login column only.
   */
  async groupLoginByQuarter(accountId: number, range: QuarterRange, groups: readonly number[]): Promise<Map<number, number[]>> {
    const repo = this.repo(accountId);
    const n = Math.round((range.end - range.start) / QUARTER);
    const out = new Map(groups.map((g) => [g, new Array<number>(n).fill(0)]));
    const groupsOf = new Map<number, number[]>();
    for (const [g, a] of await repo.groupMembers()) {
      if (!out.has(Number(g))) continue;
      const list = groupsOf.get(Number(a));
      if (list) list.push(Number(g));
      else groupsOf.set(Number(a), [Number(g)]);
    }
    for (const [a, bucket, login] of await repo.agentLoginRows(range.start, range.end)) {
      const i = (Number(bucket) - range.start) / QUARTER;
      for (const g of groupsOf.get(Number(a)) ?? []) out.get(g)![i]! += Number(login);
    }
    return out;
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
