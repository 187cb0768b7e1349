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
import { mayGenerateCode } from '../../../code-generation.js';

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

/** Typed arrays read and write in the host's byte order; the stored values are little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * A day's cells read out. Cell i: `cell[i * INTS]` its key (index into
 * `keys`), `+ 1` its hour of the UTC day, `+ 2 …` the PACKED_SLOTS values;
 * `reals[i * 2]`, `+ 1`: ring_sum, hold_sum.
 */
export interface HourCellList {
  n: number;
  keys: string[];
  /** Each key's index in `keys`. */
  index: Map<string, number>;
  /** The cells of key index k are starts[k] … starts[k + 1] − 1, in hour order. */
  starts: Int32Array;
  cell: Int32Array;
  reals: Float64Array;
}

export const CELL_INTS = INTS;

/** Null for a value this code cannot read (another format, or cells out of order): the caller sums the day again. */
export function decodeHourCells(cells: HourCells): HourCellList | null {
  const b = cells.grid;
  if (b.length < HEADER || b.readUInt32LE(4) !== FORMAT) return null;
  const n = b.readUInt32LE(0);
  if (b.length !== HEADER + n * INTS * 4 + n * 16) return null;
  // One copy into memory of our own (aligned for the typed arrays), read in place.
  const own = new ArrayBuffer(b.length);
  new Uint8Array(own).set(b);
  const cell = new Int32Array(own, HEADER, n * INTS);
  const reals = new Float64Array(own, HEADER + n * INTS * 4, n * 2);
  if (!LITTLE_ENDIAN) {
    const view = new DataView(own);
    for (let i = 0; i < cell.length; i++) cell[i] = view.getInt32(HEADER + i * 4, true);
    for (let i = 0; i < reals.length; i++) reals[i] = view.getFloat64(HEADER + n * INTS * 4 + i * 8, true);
  }
  const starts = new Int32Array(cells.keys.length + 1);
  for (let i = 0; i < n; i++) {
    const k = cell[i * INTS]!;
    const h = cell[i * INTS + 1]!;
    if (k < 0 || k >= cells.keys.length || h < 0 || h > 23) return null;
    if (i > 0) {
      const pk = cell[(i - 1) * INTS]!;
      if (k < pk || (k === pk && h <= cell[(i - 1) * INTS + 1]!)) return null;
    }
  }
  for (let i = 0, k = 0; k <= cells.keys.length; k++) {
    while (i < n && cell[i * INTS]! < k) i++;
    starts[k] = i;
  }
  return { n, keys: cells.keys, index: new Map(cells.keys.map((k, i) => [k, i])), starts, cell, reals };
}

/** What a day's cells hold in memory (cache/tokened-cache.ts budgets): the cells, the key table and its index. */
export function cellListBytes(c: HourCellList): number {
  return c.cell.buffer.byteLength + c.starts.byteLength + c.keys.length * 128;
}

type CellOp = (cells: HourCellList, i: number, v: number[]) => void;

/**
 * Writes cell i's values into a counter vector with `op` (the
 * PACKED_SLOTS, ring_sum and hold_sum; no other slot): made
 * once, unrolled over the slots (constants of its code), as a month of
 * hours by agent reads 144,000 cells and the loops over the slots were a
 * tenth of writing them. Without code generation (src/code-generation.ts)
 * the same as a loop.
 */
function cellOp(op: '=' | '+='): CellOp {
  if (!mayGenerateCode()) return op === '=' ? plainPut : plainAdd;
  const lines = [
    `const c = cells.cell; const at = i * ${INTS} + 2;`,
    ...PACKED_SLOTS.map((slot, j) => `v[${slot}] ${op} c[at + ${j}];`),
    `v[${IX.ring_sum}] ${op} cells.reals[i * 2];`,
    `v[${IX.hold_sum}] ${op} cells.reals[i * 2 + 1];`,
  ];
  return new Function('cells', 'i', 'v', lines.join(' ')) as CellOp;
}

const SLOTS = Int32Array.from(PACKED_SLOTS);

function plainAdd(cells: HourCellList, i: number, v: number[]): void {
  const c = cells.cell;
  const at = i * INTS + 2;
  for (let j = 0; j < SLOTS.length; j++) {
    const slot = SLOTS[j]!;
    v[slot] = v[slot]! + c[at + j]!;
  }
  v[IX.ring_sum] = v[IX.ring_sum]! + cells.reals[i * 2]!;
  v[IX.hold_sum] = v[IX.hold_sum]! + cells.reals[i * 2 + 1]!;
}

function plainPut(cells: HourCellList, i: number, v: number[]): void {
  const c = cells.cell;
  const at = i * INTS + 2;
  for (let j = 0; j < SLOTS.length; j++) v[SLOTS[j]!] = c[at + j]!;
  v[IX.ring_sum] = cells.reals[i * 2]!;
  v[IX.hold_sum] = cells.reals[i * 2 + 1]!;
}

let add: CellOp | undefined;
let put: CellOp | undefined;

/** Adds cell i's values to a counter vector (made at the first call, not at import). */
export function addCell(cells: HourCellList, i: number, v: number[]): void {
  (add ??= cellOp('+='))(cells, i, v);
}

/** Sets the slots a cell has to cell i's values (the other slots are left as they are). */
export function putCell(cells: HourCellList, i: number, v: number[]): void {
  (put ??= cellOp('='))(cells, i, v);
}
