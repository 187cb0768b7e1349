/**
 * One UTC day of the hourly roll-up, summed over directions, as one binary
 * value (analysis_hour_grids, migration 130): reading 31 of them is what a
 * node's first ask of a month of hours costs, instead of ~280,000 roll-up
 * rows, each parsed from text.
 *
 * Layout, little-endian: u32 cell count n, u32 format (1); n cells of 12
 * int32 (key index, hour of the day 0–23, the packed counters in
 * PACKED_SLOTS order with the ghost count last), sorted by key index, then
 * hour; then n pairs of float64 (ring_sum, hold_sum). The float section
 * starts at a multiple of 8. Sorted so that a key's hours are one run of
 * cells: an answer is written key by key straight from them.
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
  type Cell = { key: number; hour: number; ints: number[]; ring: number; hold: number };
  const days = new Map<number, { keys: Map<string, number>; cells: Cell[] }>();
  const scratch = new Array<number>(NCOLS + 1).fill(0);
  for (const row of rows) {
    const hour = Number(row[1]);
    const utcDay = Math.floor(hour / 24);
    let d = days.get(utcDay);
    if (!d) days.set(utcDay, (d = { keys: new Map(), cells: [] }));
    const key = String(row[0]);
    let k = d.keys.get(key);
    if (k === undefined) d.keys.set(key, (k = d.keys.size));
    addPacked(String(row[2]), scratch);
    const ints = PACKED_SLOTS.map((slot) => scratch[slot]!);
    for (const slot of PACKED_SLOTS) scratch[slot] = 0;
    d.cells.push({ key: k, hour: hour - utcDay * 24, ints, ring: Number(row[3] ?? 0), hold: Number(row[4] ?? 0) });
  }
  const out = new Map<number, HourCells>();
  for (const [utcDay, d] of days) {
    const n = d.cells.length;
    d.cells.sort((a, b) => a.key - b.key || a.hour - b.hour);
    const buf = Buffer.alloc(HEADER + n * INTS * 4 + n * 16);
    buf.writeUInt32LE(n, 0);
    buf.writeUInt32LE(FORMAT, 4);
    let at = HEADER;
    for (const c of d.cells) {
      at = buf.writeInt32LE(c.hour, buf.writeInt32LE(c.key, at));
      for (const v of c.ints) at = buf.writeInt32LE(v, at);
    }
    for (const c of d.cells) at = buf.writeDoubleLE(c.hold, buf.writeDoubleLE(c.ring, at));
    out.set(utcDay, { keys: [...d.keys.keys()], grid: buf });
  }
  return out;
}

export const NO_CELLS: HourCells = { keys: [], grid: Buffer.from([0, 0, 0, 0, FORMAT, 0, 0, 0]) };

/** A day's cells read out: for cell i, its key (index into `keys`), hour of the UTC day, PACKED_SLOTS values and the two sums. */
export interface HourCellList {
  n: number;
  keys: string[];
  /** The cells of key index k are starts[k] … starts[k + 1] − 1, in hour order. */
  starts: Int32Array;
  key: Int32Array;
  hour: Int32Array;
  /** n × PACKED_SLOTS.length */
  ints: Int32Array;
  /** n × 2: ring_sum, hold_sum */
  reals: Float64Array;
}

/** Null for a value this code cannot read (another format, or cells out of order): the caller sums the day again. */
export function decodeHourCells(cells: HourCells): HourCellList | null {
  const b = cells.grid;
  if (b.length < HEADER || b.readUInt32LE(4) !== FORMAT) return null;
  const n = b.readUInt32LE(0);
  if (b.length !== HEADER + n * INTS * 4 + n * 16) return null;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const width = PACKED_SLOTS.length;
  const out: HourCellList = {
    n,
    keys: cells.keys,
    starts: new Int32Array(cells.keys.length + 1),
    key: new Int32Array(n),
    hour: new Int32Array(n),
    ints: new Int32Array(n * width),
    reals: new Float64Array(n * 2),
  };
  let at = HEADER;
  for (let i = 0; i < n; i++) {
    out.key[i] = view.getInt32(at, true);
    out.hour[i] = view.getInt32(at + 4, true);
    at += 8;
    for (let j = 0; j < width; j++, at += 4) out.ints[i * width + j] = view.getInt32(at, true);
  }
  for (let i = 0; i < n * 2; i++, at += 8) out.reals[i] = view.getFloat64(at, true);
  for (let i = 0, k = 0; k <= cells.keys.length; k++) {
    while (i < n && out.key[i]! < k) i++;
    out.starts[k] = i;
  }
  for (let i = 0; i < n; i++) {
    const k = out.key[i]!;
    const h = out.hour[i]!;
    if (k < 0 || k >= cells.keys.length || h < 0 || h > 23) return null;
    if (i > 0 && (k < out.key[i - 1]! || (k === out.key[i - 1] && h <= out.hour[i - 1]!))) return null;
  }
  return out;
}

/** Adds cell i's values to a counter vector. */
export function addCell(cells: HourCellList, i: number, v: number[]): void {
  const width = PACKED_SLOTS.length;
  for (let j = 0; j < width; j++) v[PACKED_SLOTS[j]!]! += cells.ints[i * width + j]!;
  v[IX.ring_sum]! += cells.reals[i * 2]!;
  v[IX.hold_sum]! += cells.reals[i * 2 + 1]!;
}

/**
 * Adds a day's cells to `grid`: `keep` says which keys, `labelOf` the bucket
 * label of an hour of the day (null: the hour is outside the range).
 */
export function addHourCells(cells: HourCellList, grid: Grid, keep: (key: string) => boolean, labelOf: (hourOfDay: number) => string | null): void {
  const kept = cells.keys.map(keep);
  const labels: (string | null)[] = Array.from({ length: 24 }, (_, h) => labelOf(h));
  for (let i = 0; i < cells.n; i++) {
    const label = labels[cells.hour[i]!];
    if (!kept[cells.key[i]!] || label === null || label === undefined) continue;
    addCell(cells, i, cell(grid, cells.keys[cells.key[i]!]!, label));
  }
}
