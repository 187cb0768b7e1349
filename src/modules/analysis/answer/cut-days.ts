/**
 * Ranges that cut days (ending now, starting at any second), put together
 * from parts: whole local days from kept day grids (or the daily roll-up),
 * whole UTC hours of the partial days from kept hour grids (or the hourly
 * roll-up), whole 5-minute slots of the partial hours from the fine
 * roll-up, and under 5 minutes of raw calls at each end.
 */
import { gridsByDay, type GridCache } from '../day-cache/day-grids.js';
import type { DaySegment } from '../day-cache/day-segments.js';
import { keptKeys, type HitsPlan } from '../query/plan.js';
import { SLOT } from '../rollup/rollup-batch.js';
import type { Grid } from '../wire/hits-json.js';
import { offsetSeconds } from '../../../time/zone.js';
import { DAY, HOUR, addGrid, bucketGrids, fromRaw, fromRollup, labelOf } from './grid-reads.js';

/** Up to this many hours are summed from kept hour grids (a partial day has at most 23 whole hours, 25 on a DST day). */
const MAX_KEPT_HOURS = 26;

/** analysis_fine's first complete slot, read once per request (a request has one plan). */
const fineFromOf = new WeakMap<HitsPlan, Promise<number>>();

/** Whole local days from kept grids (or the daily roll-up), the partial days at both ends by fromSplit. */
export async function fromDays(grids: GridCache | null, p: HitsPlan, grid: Grid, segments: DaySegment[]): Promise<void> {
  const q = p.query;
  const whole = segments.filter((s) => s.whole);
  const versions = await p.repo.versions(whole[0]!.utcDays[0], whole[whole.length - 1]!.utcDays[1]);
  // The reads of the whole days and of the two partial days are independent: at once (PostgreSQL's
  // pool runs them side by side; SQLite's one connection in turn). Each adds to the grid after its read.
  await Promise.all([
    (async () => {
      const kept = await gridsByDay(grids, keptKeys(p, 'day-grid'), whole, versions, (a, b) => bucketGrids(p, 'daily', a, b));
      for (let i = 0; i < whole.length; i++) addGrid(grid, kept[i]!, p.bucketed ? labelOf(q, whole[i]!.day * DAY) : '');
    })(),
    ...segments.filter((s) => !s.whole).map((s) => fromSplit(grids, p, grid, s)),
  ]);
}

/**
 * The UTC hours first…last: a few (the whole hours of a partial day) from
 * hour grids kept under the hours' change marks — ingest changes only the
 * current hour, so today's earlier hours stay kept — more from the hourly roll-up.
 */
async function fromHours(grids: GridCache | null, p: HitsPlan, grid: Grid, first: number, last: number): Promise<void> {
  if (!grids || last - first >= MAX_KEPT_HOURS) {
    await fromRollup(p, 'hourly', grid, { from: first * HOUR, to: (last + 1) * HOUR, wallFrom: 0, wallTo: 0 });
    return;
  }
  const hours: DaySegment[] = [];
  for (let h = first; h <= last; h++) hours.push({ day: h, from: h * HOUR, to: (h + 1) * HOUR, whole: true, utcDays: [h, h] });
  const marks = await p.repo.hourVersions(first, last);
  const kept = await gridsByDay(grids, keptKeys(p, 'hour-grid', 'hourly'), hours, marks, (a, b) => bucketGrids(p, 'hourly', a, b));
  for (let i = 0; i < hours.length; i++) {
    const at = hours[i]!.from;
    addGrid(grid, kept[i]!, p.bucketed ? labelOf(p.query, at + offsetSeconds(p.tz, at)) : '');
  }
}

/**
 * [from, to): whole UTC hours from the hourly roll-up, whole 5-minute slots
 * of the partial hours from the fine one (where it is complete), the rest —
 * under 5 minutes at each end — from the raw calls.
 */
export async function fromSplit(grids: GridCache | null, p: HitsPlan, grid: Grid, r: { from: number; to: number }): Promise<void> {
  const hours = { from: Math.ceil(r.from / HOUR) * HOUR, to: Math.floor(r.to / HOUR) * HOUR };
  let fineFrom = fineFromOf.get(p);
  if (fineFrom === undefined) fineFromOf.set(p, (fineFrom = p.repo.fineFrom()));
  const from5 = await fineFrom;
  const slots = (from: number, to: number) => {
    const a = Math.max(Math.ceil(from / SLOT) * SLOT, Math.ceil(from5 / SLOT) * SLOT);
    const b = Math.floor(to / SLOT) * SLOT;
    return a < b ? { from: a, to: b } : null;
  };
  const edge = async (from: number, to: number) => {
    if (from >= to) return;
    const s = slots(from, to);
    if (!s) return fromRaw(p, grid, { from, to });
    await Promise.all([
      fromRollup(p, 'fine', grid, { ...s, wallFrom: 0, wallTo: 0 }),
      from < s.from ? fromRaw(p, grid, { from, to: s.from }) : undefined,
      s.to < to ? fromRaw(p, grid, { from: s.to, to }) : undefined,
    ]);
  };
  if (hours.from >= hours.to) return edge(r.from, r.to);
  await Promise.all([fromHours(grids, p, grid, hours.from / HOUR, hours.to / HOUR - 1), edge(r.from, hours.from), edge(hours.to, r.to)]);
}
