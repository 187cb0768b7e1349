import { createHash } from 'node:crypto';
import type { Queryable } from '../../../db/types.js';
import type { Dim } from '../rollup/counters.js';
import { AnalysisRepository, type ValueFilter } from './analysis.repository.js';
import { HourGridRepository } from './hour-grids.repository.js';
import { parseRequest, type AnalysisQuery, type RawRequest } from './request.js';

export type FilterDim = Dim | 'direction';

/**
 * One analysis/hits request, worked out once: the account settings it is
 * answered under, the parsed request, its filters as the reads take them and
 * the account's reads. Every way of answering it (answer/) takes
 * the plan.
 */
export interface HitsPlan {
  accountId: number;
  /** The account's time zone: bucket labels, local days, whether the daily roll-up is keyed in it. */
  tz: string;
  /** The account's ghost threshold in seconds (GH_UC: answered calls that talked at most this long). */
  ghost: number;
  /** What was asked: breakdown, display, multi, fields, range, filters. */
  query: AnalysisQuery;
  /** Answered per bucket: multi, with a display other than total. */
  bucketed: boolean;
  /** The query's filters, normalised for the reads (ids without leading zeros), for each dimension filtered. */
  filters: Partial<Record<FilterDim, ValueFilter>>;
  repo: AnalysisRepository;
  /** When the request is answered (Unix seconds): the current UTC day is summed, never stored (answer/stored-hours.ts). */
  now: number;
  /** The stored hour grids (answer/stored-hours.ts). */
  hourGrids: HourGridRepository;
}

function normalise(dim: FilterDim, values: Iterable<string>): string[] {
  const numeric = dim === 'agent' || dim === 'group';
  return [...values].map((v) => (numeric && /^\s*\d+\s*$/.test(v) ? String(Number(v)) : v));
}

/** Parses the request (1001 for every malformed part) under the account's settings. */
export function planHits(
  db: Queryable,
  accountId: number,
  settings: { timezone: string; ghostThresholdSecs: number },
  body: RawRequest,
  nowMs: number,
): HitsPlan {
  const tz = settings.timezone;
  const query = parseRequest(body, tz);
  const filters: HitsPlan['filters'] = {};
  for (const [dim, f] of Object.entries(query.filters) as [FilterDim, NonNullable<AnalysisQuery['filters'][FilterDim]>][]) {
    filters[dim] = { include: f.include ? normalise(dim, f.include) : null, exclude: normalise(dim, f.exclude) };
  }
  return {
    accountId,
    tz,
    ghost: settings.ghostThresholdSecs,
    query,
    bucketed: query.multi && query.display !== 'total',
    filters,
    repo: new AnalysisRepository(db, accountId),
    now: Math.floor(nowMs / 1000),
    hourGrids: new HourGridRepository(db, accountId),
  };
}

function filterKey(f: ValueFilter | undefined): string {
  const set = (values: string[]) => [...new Set(values)].sort();
  return f ? JSON.stringify([f.include && set(f.include), set(f.exclude)]) : '-';
}

/**
 * What the node keeps analysis data under (day-cache/, answer/stored-hours.ts):
 * - `day-answer`: a local day's answer fragment of the daily or hourly path (by date or hour);
 * - `day-grid`: a local day's counter vectors per key (whole days of a range that cuts days);
 * - `hour-grid`: a UTC hour's counter vectors per key (the whole hours of a partial day);
 * - `hour-cells`: a UTC day's hour cells of every key (stored hour grids).
 */
export type KeptKind = 'day-answer' | 'day-grid' | 'hour-grid' | 'hour-cells';

/**
 * The one builder of analysis cache keys: a key per day (or hour) of what is
 * kept, from everything besides the day and its data that the kept value
 * depends on (the account, the kind and roll-up path, breakdown, display,
 * zone, ghost threshold, fields and the filters the roll-up applies). Hour
 * cells hold every key of every direction in UTC days: only the account,
 * breakdown and ghost threshold. Hashed: a breakdown filter may list
 * thousands of keys, and the key is repeated per kept day. The freshness of
 * a kept value is not in its key but in its token (the change marks of its
 * days: db/rollup-write.ts sets them with every roll-up row).
 */
export function keptKeys(p: HitsPlan, kind: KeptKind, path: 'daily' | 'hourly' = 'daily'): (day: number) => string {
  const q = p.query;
  const parts: Array<string | number> =
    kind === 'hour-cells'
      ? [p.accountId, kind, q.breakDown, p.ghost]
      : [
          p.accountId,
          kind,
          path,
          q.breakDown,
          q.display,
          p.tz,
          p.ghost,
          q.fields.map((f) => `${f.name}=${f.code}`).join(','),
          filterKey(p.filters[q.breakDown]),
          filterKey(p.filters.direction),
        ];
  const prefix = createHash('sha256').update(parts.join('|')).digest('base64');
  return (day) => `${prefix}|${day}`;
}
