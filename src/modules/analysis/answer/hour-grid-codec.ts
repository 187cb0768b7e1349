/**
 * One UTC day of the hourly roll-up, summed over directions, as one binary
 * value (analysis_hour_grids, migration 130): reading 31 of them is what a
 * node's first ask of a month of hours costs, instead of ~280,000 roll-up
 * rows, each parsed from text.
 *
 * Layout, little-endian: u32 cell count n, u32 format (1); n cells of 12
 * int32 (key index, hour of the day 0–23, the packed counters in
 * PACKED_SLOTS order with the ghost count last); then n pairs of float64
 * (ring_sum, hold_sum). The float section starts at a multiple of 8.
 */
import { IX, NCOLS } from '../rollup/counters.js';
import { addPacked, PACKED_SLOTS } from '../query/analysis.repository.js';
import { cell, type Grid } from '../wire/hits-json.js';

const FORMAT = 1;
const HEADER = 8;
const INTS = 2 + PACKED_SLOTS.length;

export interface HourCells {
  keys: string[];
  grid: Buffer;
}

/**
 * Hourly roll-up rows as rollupSums answers them by bucket (key, UTC hour,
 * packed counters, ring_sum, hold_sum), one value per UTC day.
 */
export function encodeHourCells(rows: readonly unknown[][]): Map<number, HourCells> {
  const days = new Map<number, { keys: Map<string, number>; ints: number[]; reals: number[] }>();
  const scratch = new Array<number>(NCOLS + 1).fill(0);
  for (const row of rows) {
    const hour = Number(row[1]);
    const utcDay = Math.floor(hour / 24);
    let d = days.get(utcDay);
    if (!d) days.set(utcDay, (d = { keys: new Map(), ints: [], reals: [] }));
    const key = String(row[0]);
    let k = d.keys.get(key);
    if (k === undefined) d.keys.set(key, (k = d.keys.size));
    d.ints.push(k, hour - utcDay * 24);
    addPacked(String(row[2]), scratch);
    for (const slot of PACKED_SLOTS) {
      d.ints.push(scratch[slot]!);
      scratch[slot] = 0;
    }
    d.reals.push(Number(row[3] ?? 0), Number(row[4] ?? 0));
  }
  const out = new Map<number, HourCells>();
  for (const [utcDay, d] of days) {
    const n = d.reals.length / 2;
    const buf = Buffer.alloc(HEADER + n * INTS * 4 + n * 16);
    buf.writeUInt32LE(n, 0);
    buf.writeUInt32LE(FORMAT, 4);
    let at = HEADER;
    for (const v of d.ints) at = buf.writeInt32LE(v, at);
    for (const v of d.reals) at = buf.writeDoubleLE(v, at);
    out.set(utcDay, { keys: [...d.keys.keys()], grid: buf });
  }
  return out;
}

export const NO_CELLS: HourCells = { keys: [], grid: Buffer.from([0, 0, 0, 0, FORMAT, 0, 0, 0]) };

/**
 * Adds a day's cells to `grid`: `keep` says which keys (by index into
 * `cells.keys`), `labelOf` the bucket label of an hour of the day (null: the
 * hour is outside the range).
 */
export function addHourCells(cells: HourCells, grid: Grid, keep: (key: string) => boolean, labelOf: (hourOfDay: number) => string | null): void {
  const b = cells.grid;
  if (b.readUInt32LE(4) !== FORMAT) throw new Error(`stored hour grid of unknown format ${b.readUInt32LE(4)}`);
  const n = b.readUInt32LE(0);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const kept = cells.keys.map(keep);
  const labels: (string | null)[] = Array.from({ length: 24 }, (_, h) => labelOf(h));
  const realsAt = HEADER + n * INTS * 4;
  for (let i = 0; i < n; i++) {
    let at = HEADER + i * INTS * 4;
    const k = view.getInt32(at, true);
    const label = labels[view.getInt32(at + 4, true)];
    if (!kept[k] || label === null || label === undefined) continue;
    const v = cell(grid, cells.keys[k]!, label);
    at += 8;
    for (let j = 0; j < PACKED_SLOTS.length; j++, at += 4) v[PACKED_SLOTS[j]!]! += view.getInt32(at, true);
    v[IX.ring_sum]! += view.getFloat64(realsAt + i * 16, true);
    v[IX.hold_sum]! += view.getFloat64(realsAt + i * 16 + 8, true);
  }
}
