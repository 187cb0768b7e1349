/**
 * The reads of one part of an answer, each adding its counter vectors to a
 * grid: roll-up rows (fine, hourly, daily), cube cells, or the raw calls.
 * Every way of answering a request (path.ts) is made of these.
 */
import { IX, keysOf } from '../rollup/counters.js';
import { factsOfRow } from '../rollup/rollup-store.js';
import { SLOT } from '../rollup/rollup-batch.js';
import { cell, type Grid } from '../wire/hits-json.js';
import type { DayGrid } from '../day-cache/day-grids.js';
import { addPacked } from '../query/analysis.repository.js';
import type { HitsPlan } from '../query/plan.js';
import type { AnalysisQuery } from '../query/request.js';
import { offsetSeconds } from '../../../time/zone.js';
import { countSharedCallsOnce, sharedAgents } from './shared-calls.js';
import { addCounted, callLabel, hitsByCall, labelOf } from './call-counts.js';

export { labelOf } from './call-counts.js';

export const HOUR = 3600;
export const DAY = 86400;

/** UTC bounds [from, to) of a part of the range, with its local wall-clock bounds for the daily roll-up. */
export type Span = { from: number; to: number; wallFrom: number; wallTo: number };

/** Adds roll-up rows (arrays: key, bucket when `label` is given, the packed counters, ring_sum, hold_sum). */
export function addRows(rows: unknown[][], grid: Grid, label: ((bucket: number) => string) | null): void {
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

/** Adds a grid's vectors into `grid` under one bucket label. */
export function addGrid(grid: Grid, from: DayGrid, label: string): void {
  for (const [key, v] of from) {
    const into = cell(grid, key, label);
    for (let c = 0; c < v.length; c++) into[c]! += v[c]!;
  }
}

/** Roll-up rows of the query's range, or of `span` (UTC bounds for the hourly and fine tables, local-day wall bounds for the daily one). */
export async function fromRollup(p: HitsPlan, table: 'daily' | 'hourly' | 'fine', grid: Grid, span?: Span): Promise<void> {
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
  addRows(rows, grid, p.bucketed ? (b) => labelOf(q, daily ? b * DAY : b * size + offsetSeconds(tz, b * size)) : null);
}

/** Counter vectors per bucket first…last (local days of the daily roll-up, UTC hours of the hourly one), per key. */
export async function bucketGrids(p: HitsPlan, table: 'daily' | 'hourly', first: number, last: number): Promise<Map<number, DayGrid>> {
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
  addRows(rows, byLabel, (b) => String(b));
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
 * Which cube cells answer the query: per-agent cells for the agent
 * breakdown (any filter) or for named agents; per-call cells when no agent
 * filter applies. Several named agents with another breakdown count a
 * shared call once per agent: fromCube corrects that (shared-calls.ts).
 * Excluded agents go to the raw path.
 */
export function cubeCells(q: AnalysisQuery): 'agents' | 'calls' | null {
  if (q.breakDown === 'agent') return 'agents';
  const a = q.filters.agent;
  if (!a) return 'calls';
  return a.include && a.include.size >= 1 && a.exclude.size === 0 ? 'agents' : null;
}

/** Cube cells of the query's local days (the cube path: filters on other dimensions, a direction). */
export async function fromCube(p: HitsPlan, grid: Grid): Promise<void> {
  const q = p.query;
  const r = q.range;
  const rows = await p.repo.cubeSums(
    {
      from: r ? Math.floor(r.wallFrom / DAY) : null,
      to: r ? r.wallTo / DAY - 1 : null,
      cells: cubeCells(q)!,
      dim: q.breakDown,
      filters: p.filters,
      byBucket: p.bucketed,
    },
    `gh${p.ghost}`,
  );
  addRows(rows, grid, p.bucketed ? (b) => labelOf(q, b * DAY) : null);
  const shared = sharedAgents(p);
  if (shared) await countSharedCallsOnce(p, grid, shared);
}

/** The raw calls of the query's range, or of `span`, counted one by one into the same vectors. */
export async function fromRaw(p: HitsPlan, grid: Grid, span?: { from: number; to: number }): Promise<void> {
  const range = span ?? p.query.range;
  const { calls, hits, retried } = await p.repo.rawCalls({ from: range?.from ?? null, to: range?.to ?? null, filters: p.filters });
  const byCall = hitsByCall(hits);
  for (const row of calls) {
    const callHits = byCall.get(row.call_id);
    if (!callHits) continue;
    const c = factsOfRow(row, callHits);
    const label = callLabel(p, c.queuedAt);
    for (const [key, keyHits] of keysOf(c, p.query.breakDown)) addCounted(cell(grid, key, label), c, keyHits, 1, p.ghost, retried);
  }
}
