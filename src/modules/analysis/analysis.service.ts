import type { Database } from '../../db/types.js';
import { analysisError } from '../../errors/catalogue.js';
import type { AccountService } from '../account/account.service.js';
import { GHOST_MAX, IX, NCOLS, addCallInKey, keysOf } from './rollup/counters.js';
import { bucketFragment, cell, hitsDataJson, joinFragments, type Grid } from './wire/hits-json.js';
import { DayCache } from './day-cache/day-cache.js';
import { fragmentsByDay } from './day-cache/day-answers.js';
import { daySegments, type DaySegment } from './day-cache/day-segments.js';
import { GridCache, gridsByDay, type DayGrid } from './day-cache/day-grids.js';
import type { AnalysisQuery, RawRequest } from './query/request.js';
import { addPacked } from './query/analysis.repository.js';
import { dayAnswerKey, planHits, type HitsPlan } from './query/plan.js';
import { factsOfRow } from './rollup/rollup-store.js';
import { SLOT } from './rollup/rollup-batch.js';
import { offsetSeconds, wallLabel, wholeHourOffset } from '../../time/zone.js';

type Display = AnalysisQuery['display'];

export type AnalysisPath = 'daily' | 'hourly' | 'cube' | 'split' | 'raw' | 'days';

const HOUR = 3600;
const DAY = 86400;

/** Longer ranges are counted without kept days: cutting them into local days costs more than it saves. */
const MAX_KEPT_RANGE_DAYS = 400;

/** Up to this many hours are summed from kept hour grids (a partial day has at most 23 whole hours, 25 on a DST day). */
const MAX_KEPT_HOURS = 26;

/** Adds a grid's vectors into `grid` under one bucket label. */
function addGrid(grid: Grid, from: DayGrid, label: string): void {
  for (const [key, v] of from) {
    const into = cell(grid, key, label);
    for (let c = 0; c < v.length; c++) into[c]! += v[c]!;
  }
}

/** UTC bounds [from, to) of a part of the range, with its local wall-clock bounds for the daily roll-up. */
type Span = { from: number; to: number; wallFrom: number; wallTo: number };

/**
 * analysis/hits. Answers from the roll-ups when the filters touch only the
 * date, the direction and the breakdown's own dimension (the daily table for
 * local-day-aligned ranges, the hourly table for hour-aligned ones in
 * whole-hour zones); otherwise it scans the calls of the range (indexed by
 * queued time) and adds the very same counter vectors.
 */
export class AnalysisService {
  private readonly accounts: AccountService;
  private readonly days: DayCache;
  private readonly grids: GridCache | null;
  /** analysis_fine's first complete slot, read once per request. */
  private readonly fineFromOf = new WeakMap<HitsPlan, Promise<number>>();

  /** `cacheBytes`: memory for answers of whole past days (day-cache.ts); 0 computes every answer afresh. */
  constructor(
    private readonly db: Database,
    accounts: AccountService,
    cacheBytes = 0,
  ) {
    this.accounts = accounts;
    this.days = new DayCache(cacheBytes);
    this.grids = cacheBytes > 0 ? new GridCache(cacheBytes) : null;
  }

  /** The answer's `data` as JSON bytes, in pieces to send one after another (see hitsDataJson), and the path that computed it. */
  async hits(accountId: number, body: RawRequest): Promise<{ dataJson: Buffer[]; path: AnalysisPath }> {
    const p = planHits(this.db, accountId, await this.accounts.settings(accountId), body);
    const chosen = await this.choosePath(p);
    let path: AnalysisPath = chosen;
    const byDay = chosen !== 'cube' && chosen !== 'raw' ? await this.byDay(p, chosen) : undefined;
    if (byDay !== undefined) {
      if (byDay === null) throw analysisError(1586);
      return { dataJson: byDay, path: chosen === 'split' ? 'days' : path };
    }
    const grid: Grid = new Map();
    // Ranges that cut days (ending now, starting at any second): kept whole days and two partial ones.
    const wholeDays = chosen !== 'cube' ? await this.composable(p) : null;
    if (wholeDays) {
      path = 'days';
      await this.fromDays(p, grid, wholeDays);
    } else if (chosen === 'split') await this.fromSplit(p, grid, p.query.range!);
    else if (chosen === 'raw') await this.fromRaw(p, grid);
    else if (chosen === 'cube') await this.fromCube(p, grid);
    else await this.fromRollup(p, chosen, grid);
    const dataJson = hitsDataJson(p.query, grid);
    if (dataJson === null) throw analysisError(1586);
    return { dataJson, path };
  }

  /**
   * Date and hour buckets over a date range, put together per local day from
   * the answers of whole days kept in memory (day-cache.ts) and the rest
   * computed (hour buckets of a range that cuts days: its partial days by
   * fromSplit); undefined when the query is not of that kind (or the cache is
   * off), null when nothing matches.
   */
  private async byDay(p: HitsPlan, path: 'daily' | 'hourly' | 'split'): Promise<Buffer[] | null | undefined> {
    const q = p.query;
    const r = q.range;
    if (this.days.maxBytes === 0 || !r || !q.multi || (q.display !== 'date' && q.display !== 'hour')) return undefined;
    // A range that cuts days by date goes to the days path (composable): kept grids, not kept answers.
    if (path === 'split' && q.display !== 'hour') return undefined;
    if (r.to - r.from > MAX_KEPT_RANGE_DAYS * DAY) return undefined;
    let segments = daySegments(p.tz, r.from, r.to);
    if (!segments || segments.length === 0) return undefined;
    if (path === 'daily') {
      // Daily rows are whole local days by construction: the range's days, each whole.
      const first = r.wallFrom / DAY;
      const last = r.wallTo / DAY - 1;
      segments = segments.filter((s) => s.day >= first && s.day <= last).map((s) => ({ ...s, whole: true }));
      if (segments.length === 0) return undefined;
    } else if (path === 'hourly' && segments.some((s) => s.from % HOUR !== 0 || s.to % HOUR !== 0)) return undefined;
    if (!segments.some((s) => s.whole)) return undefined;
    const versions = await p.repo.versions(segments[0]!.utcDays[0], segments[segments.length - 1]!.utcDays[1]);
    const fragments = await fragmentsByDay(this.days, {
      // Hour buckets of a whole day are the same whichever way the range ends: kept once for both paths.
      key: dayAnswerKey(p, path === 'daily' ? 'daily' : 'hourly'),
      segments,
      versions,
      compute: async (from, to, firstDay, lastDay) => {
        const grid: Grid = new Map();
        // Bucketed (p.bucketed): kept days serve multi answers by date or hour only. A run that
        // starts or ends inside an hour (the partial days of a split range): hours, 5-minute slots, raw edges.
        if (path === 'split' && (from % HOUR !== 0 || to % HOUR !== 0)) await this.fromSplit(p, grid, { from, to });
        else await this.fromRollup(p, path === 'daily' ? 'daily' : 'hourly', grid, { from, to, wallFrom: firstDay * DAY, wallTo: (lastDay + 1) * DAY });
        return grid;
      },
      write: (grid) => bucketFragment(q, grid),
    });
    return joinFragments(fragments);
  }

  /**
   * The local days of the range when it is answered as whole days (kept
   * grids or the daily roll-up) plus its two partial days (fromSplit): the
   * roll-ups answer it (no filter but the breakdown's own, none on
   * direction, the daily roll-up keyed in the account's zone), it holds at
   * least one whole local day, and a bucketed answer is by date or month.
   * Null otherwise.
   */
  private async composable(p: HitsPlan): Promise<DaySegment[] | null> {
    const { query: q, tz } = p;
    const r = q.range;
    if (!r || p.ghost > GHOST_MAX || (p.bucketed && q.display === 'hour')) return null;
    if (Object.keys(q.filters).some((d) => d !== q.breakDown)) return null;
    if (r.to - r.from > MAX_KEPT_RANGE_DAYS * DAY || r.to - r.from < DAY) return null;
    const segments = daySegments(tz, r.from, r.to);
    if (!segments || !segments.some((s) => s.whole)) return null;
    if ((await p.repo.rollupZone()) !== tz) return null;
    return segments;
  }

  /** Whole local days from kept grids (or the daily roll-up), the partial days at both ends by fromSplit. */
  private async fromDays(p: HitsPlan, grid: Grid, segments: DaySegment[]): Promise<void> {
    const q = p.query;
    const whole = segments.filter((s) => s.whole);
    const versions = await p.repo.versions(whole[0]!.utcDays[0], whole[whole.length - 1]!.utcDays[1]);
    // The reads of the whole days and of the two partial days are independent: at once (PostgreSQL's
    // pool runs them side by side; SQLite's one connection in turn). Each adds to the grid after its read.
    await Promise.all([
      (async () => {
        const grids = await gridsByDay(this.grids, `days|${dayAnswerKey(p, 'daily')}`, whole, versions, (a, b) => this.bucketGrids(p, 'daily', a, b));
        for (let i = 0; i < whole.length; i++)
          addGrid(grid, grids[i]!, p.bucketed ? wallLabel(whole[i]!.day * DAY, q.display as Exclude<Display, 'total'>) : '');
      })(),
      ...segments.filter((s) => !s.whole).map((s) => this.fromSplit(p, grid, s)),
    ]);
  }

  /** Counter vectors per bucket first…last (local days of the daily roll-up, UTC hours of the hourly one), per key. */
  private async bucketGrids(p: HitsPlan, table: 'daily' | 'hourly', first: number, last: number): Promise<Map<number, DayGrid>> {
    const q = p.query;
    const rows = await p.repo.rollupSums(
      {
        table: `analysis_${table}`,
        dim: q.breakDown,
        from: first,
        to: last,
        keys: p.filters[q.breakDown] ?? { include: null, exclude: [] },
        // The daily rows have no direction (the days path takes no direction filter).
        directions: (table === 'hourly' && p.filters.direction) || { include: null, exclude: [] },
        byBucket: true,
      },
      `gh${p.ghost}`,
    );
    const byLabel: Grid = new Map();
    this.addRows(rows, byLabel, (b) => String(b));
    const out = new Map<number, DayGrid>();
    for (const [key, row] of byLabel) {
      for (const [bucket, v] of row) {
        let g = out.get(Number(bucket));
        if (!g) out.set(Number(bucket), (g = new Map()));
        g.set(key, v);
      }
    }
    return out;
  }

  /**
   * The UTC hours first…last: a few (the whole hours of a partial day) from
   * hour grids kept under the hours' change marks — ingest changes only the
   * current hour, so today's earlier hours stay kept — more from the hourly roll-up.
   */
  private async fromHours(p: HitsPlan, grid: Grid, first: number, last: number): Promise<void> {
    if (!this.grids || last - first >= MAX_KEPT_HOURS) {
      await this.fromRollup(p, 'hourly', grid, { from: first * HOUR, to: (last + 1) * HOUR, wallFrom: 0, wallTo: 0 });
      return;
    }
    const hours: DaySegment[] = [];
    for (let h = first; h <= last; h++) hours.push({ day: h, from: h * HOUR, to: (h + 1) * HOUR, whole: true, utcDays: [h, h] });
    const marks = await p.repo.hourVersions(first, last);
    const grids = await gridsByDay(this.grids, `hours|${dayAnswerKey(p, 'hourly')}`, hours, marks, (a, b) => this.bucketGrids(p, 'hourly', a, b));
    const q = p.query;
    for (let i = 0; i < hours.length; i++) {
      const at = hours[i]!.from;
      const label = p.bucketed ? wallLabel(at + offsetSeconds(p.tz, at), q.display as Exclude<Display, 'total'>) : '';
      addGrid(grid, grids[i]!, label);
    }
  }

  /**
   * [from, to): whole UTC hours from the hourly roll-up, whole 5-minute slots
   * of the partial hours from the fine one (where it is complete), the rest —
   * under 5 minutes at each end — from the raw calls.
   */
  private async fromSplit(p: HitsPlan, grid: Grid, r: { from: number; to: number }): Promise<void> {
    const hours = { from: Math.ceil(r.from / HOUR) * HOUR, to: Math.floor(r.to / HOUR) * HOUR };
    let fineFrom = this.fineFromOf.get(p);
    if (fineFrom === undefined) this.fineFromOf.set(p, (fineFrom = p.repo.fineFrom()));
    const from5 = await fineFrom;
    const slots = (from: number, to: number) => {
      const a = Math.max(Math.ceil(from / SLOT) * SLOT, Math.ceil(from5 / SLOT) * SLOT);
      const b = Math.floor(to / SLOT) * SLOT;
      return a < b ? { from: a, to: b } : null;
    };
    const edge = async (from: number, to: number) => {
      if (from >= to) return;
      const s = slots(from, to);
      if (!s) return this.fromRaw(p, grid, { from, to });
      await Promise.all([
        this.fromRollup(p, 'fine', grid, { ...s, wallFrom: 0, wallTo: 0 }),
        from < s.from ? this.fromRaw(p, grid, { from, to: s.from }) : undefined,
        s.to < to ? this.fromRaw(p, grid, { from: s.to, to }) : undefined,
      ]);
    };
    if (hours.from >= hours.to) return edge(r.from, r.to);
    await Promise.all([this.fromHours(p, grid, hours.from / HOUR, hours.to / HOUR - 1), edge(r.from, hours.from), edge(hours.to, r.to)]);
  }

  private async choosePath(p: HitsPlan): Promise<Exclude<AnalysisPath, 'days'>> {
    const { query: q, tz, bucketed } = p;
    if (p.ghost > GHOST_MAX) return 'raw';
    const otherFilters = Object.keys(q.filters).some((d) => d !== q.breakDown && d !== 'direction');
    const directionFilter = q.filters.direction !== undefined;
    const r = q.range;
    const hourBuckets = bucketed && q.display === 'hour';
    const dayAligned = !r || (r.wallFrom % DAY === 0 && r.wallTo % DAY === 0);
    const dailyUsable = !hourBuckets && dayAligned && (await p.repo.rollupZone()) === tz;
    // The daily per-dimension rows have no direction: a direction filter goes to the cube.
    if (dailyUsable && !otherFilters && !directionFilter) return 'daily';
    if (dailyUsable && this.cubeCells(q) !== null) return 'cube';
    if (otherFilters) return 'raw';
    const hourAligned = !r || (r.from % HOUR === 0 && r.to % HOUR === 0);
    // A UTC hour is one local hour only where the zone's offset is whole hours.
    const wholeHours = r ? wholeHourOffset(tz, r.from) && wholeHourOffset(tz, r.to - 1) : tz === 'UTC';
    // Totals need no local labels: any zone works when the range is whole UTC hours.
    if (hourAligned && (wholeHours || !bucketed)) return 'hourly';
    const wholeHoursInside = r !== null && Math.ceil(r.from / HOUR) < Math.floor(r.to / HOUR);
    if (wholeHoursInside && (wholeHours || !bucketed)) return 'split';
    return 'raw';
  }

  /**
   * Which cube cells answer the query: per-agent cells for the agent
   * breakdown (any filter) or for one named agent; per-call cells when no
   * agent filter applies. Several agents with another breakdown would count
   * a call once per agent: those go to the raw path.
   */
  private cubeCells(q: AnalysisQuery): 'agents' | 'calls' | null {
    if (q.breakDown === 'agent') return 'agents';
    const a = q.filters.agent;
    if (!a) return 'calls';
    return a.include && a.include.size === 1 && a.exclude.size === 0 ? 'agents' : null;
  }

  private async fromCube(p: HitsPlan, grid: Grid) {
    const q = p.query;
    const r = q.range;
    const rows = await p.repo.cubeSums(
      {
        from: r ? Math.floor(r.wallFrom / DAY) : null,
        to: r ? r.wallTo / DAY - 1 : null,
        cells: this.cubeCells(q)!,
        dim: q.breakDown,
        filters: p.filters,
        byBucket: p.bucketed,
      },
      `gh${p.ghost}`,
    );
    this.addRows(rows, grid, p.bucketed ? (b) => wallLabel(b * DAY, q.display as Exclude<Display, 'total'>) : null);
  }

  /** Adds roll-up rows (arrays: key, bucket when `label` is given, the packed counters, ring_sum, hold_sum). */
  private addRows(rows: unknown[][], grid: Grid, label: ((bucket: number) => string) | null): void {
    const labels = new Map<number, string>();
    const first = label ? 2 : 1;
    for (const row of rows) {
      let l = '';
      if (label) {
        const b = Number(row[1]);
        l = labels.get(b) ?? label(b);
        labels.set(b, l);
      }
      const v = cell(grid, String(row[0]), l);
      addPacked(String(row[first]), v);
      v[IX.ring_sum]! += Number(row[first + 1] ?? 0);
      v[IX.hold_sum]! += Number(row[first + 2] ?? 0);
    }
  }

  /** Roll-up rows of the query's range, or of `span` (UTC bounds for the hourly and fine tables, local-day wall bounds for the daily one). */
  private async fromRollup(p: HitsPlan, table: 'daily' | 'hourly' | 'fine', grid: Grid, span?: Span) {
    const { query: q, tz } = p;
    const r = span ?? q.range;
    const daily = table === 'daily';
    // Seconds per bucket of the UTC tables.
    const size = table === 'fine' ? SLOT : HOUR;
    const rows = await p.repo.rollupSums(
      {
        table: `analysis_${table}`,
        dim: q.breakDown,
        from: r ? (daily ? Math.floor(r.wallFrom / DAY) : r.from / size) : null,
        to: r ? (daily ? r.wallTo / DAY - 1 : r.to / size - 1) : null,
        keys: p.filters[q.breakDown] ?? { include: null, exclude: [] },
        directions: p.filters.direction ?? { include: null, exclude: [] },
        byBucket: p.bucketed,
      },
      `gh${p.ghost}`,
    );
    this.addRows(
      rows,
      grid,
      p.bucketed ? (b) => wallLabel(daily ? b * DAY : b * size + offsetSeconds(tz, b * size), q.display as Exclude<Display, 'total'>) : null,
    );
  }

  private async fromRaw(p: HitsPlan, grid: Grid, span?: { from: number; to: number }) {
    const { query: q, tz, ghost } = p;
    const range = span ?? q.range;
    const { calls, hits, retried } = await p.repo.rawCalls({ from: range?.from ?? null, to: range?.to ?? null, filters: p.filters });
    const byCall = new Map<string, typeof hits>();
    for (const h of hits) {
      const list = byCall.get(h.call_id);
      if (list) list.push(h);
      else byCall.set(h.call_id, [h]);
    }
    for (const row of calls) {
      const callHits = byCall.get(row.call_id);
      if (!callHits) continue;
      const c = factsOfRow(row, callHits);
      const label = p.bucketed ? wallLabel(c.queuedAt + offsetSeconds(tz, c.queuedAt), q.display as Exclude<Display, 'total'>) : '';
      for (const [key, keyHits] of keysOf(c, q.breakDown)) {
        const v = cell(grid, key, label);
        addCallInKey(v, c, keyHits, 1);
        if (keyHits.some((h) => h.answered) && c.talkSecs <= ghost) v[NCOLS]! += 1;
        if (retried.has(c.callId)) v[IX.fr_can]! += 1;
      }
    }
  }
}
