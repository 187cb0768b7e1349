import { randomInt } from 'node:crypto';
import { dialectOf, type AddColumns, type MarkRows, type RollupRows } from './dialect.js';
import type { TenantQueries } from './tenant.js';
import type { Param, Queryable } from './types.js';

/**
 * A table of change marks: one random number per account and UTC day (or
 * hour), set anew whenever a roll-up row of that day changes. Readers keep
 * answers under the marks they read and use them only while the marks are
 * unchanged (report/answers/report-day-cache.ts, analysis/day-cache/).
 */
export interface MarkTable {
  readonly table: string;
  /** Its time column (`utc_day`, `utc_hour`). */
  readonly column: string;
  /** Seconds per marked unit: 86,400 for UTC days, 3,600 for UTC hours. */
  readonly unitSecs: number;
}

/**
 * A roll-up table: its columns (key, sums, maxima) and the mark tables whose
 * marks every change of its rows sets. Declared once per table; the only way
 * to change its rows is `writeRollup`, which sets those marks in the same
 * call, so no writer can change a roll-up row and forget its day's mark.
 */
export interface RollupTable {
  readonly name: string;
  readonly cols: AddColumns;
  readonly marks: readonly [MarkTable, ...MarkTable[]];
}

export function rollupTable(name: string, cols: AddColumns, marks: readonly [MarkTable, ...MarkTable[]]): RollupTable {
  return { name, cols, marks };
}

/** One write of one or more roll-up tables. */
export interface RollupChange {
  /** Rows of deltas per table: key columns, then sums, then maxima, in `cols` order; no two rows of a table share a key. */
  readonly writes: ReadonlyArray<{ readonly table: RollupTable; readonly rows: ReadonlyArray<readonly Param[]> }>;
  /**
   * The UTC times (Unix seconds) the changed figures belong to (calls' queue
   * times, the quarter hours of agent time): the day (hour) of each gets a
   * new mark in every mark table of the tables written. A local-day row's
   * day has no one UTC day, hence the times rather than the rows' keys.
   */
  readonly times: Iterable<number>;
}

/** A new change mark: random, not a count (a count could come back to a value a node kept an answer under: a restored backup, a failover that lost commits). */
export function newMark(): number {
  return randomInt(1, 2 ** 48);
}

/**
 * The one code that changes roll-up rows: adds the deltas and sets the change
 * marks of the UTC days (hours) they fall in, in the caller's transaction, in
 * one call. PostgreSQL: one statement for every table and mark (a round trip
 * each was a third of a complete-call batch's statements; bench/ingest-calls.ts);
 * SQLite: one row a statement in one loop inside a transaction, 50 rows a
 * statement elsewhere, and the marks (in process, cheap; dialect.ts says why).
 */
export async function writeRollup(t: TenantQueries, change: RollupChange): Promise<void> {
  const writes = change.writes.filter((w) => w.rows.length > 0);
  if (writes.length === 0) return;
  const times = [...change.times];
  if (times.length === 0) throw new Error(`roll-up rows of ${writes.map((w) => w.table.name).join(', ')} written without the times they belong to`);
  const marks = new Map<string, MarkRows>();
  for (const w of writes) {
    for (const m of w.table.marks) {
      if (marks.has(m.table)) continue;
      const units = [...new Set(times.map((s) => Math.floor(s / m.unitSecs)))].sort((a, b) => a - b);
      marks.set(m.table, { table: m.table, column: m.column, values: units, mark: newMark() });
    }
  }
  const rows: RollupRows[] = writes.map((w) => ({ table: w.table.name, cols: w.table.cols, rows: w.rows }));
  await dialectOf(t).writeRollup(t, rows, [...marks.values()]);
}

/** Roll-up deltas a writer keeps in memory until the gathering it joined ends (`gatherRollups`). */
export interface PendingRollup {
  /** Writes the deltas (through `writeRollup`), in the transaction they were gathered in. */
  flush(): Promise<void>;
}

/** The open gatherings, by the transaction's executor (SQLite's one connection runs one transaction at a time). */
const gatherings = new WeakMap<Queryable, Map<string, Promise<PendingRollup>>>();

/**
 * Runs `fn` (a transaction's work, inside that transaction) with the
 * roll-up writers it calls adding their deltas to one pending roll-up per
 * key (`gatheredRollup`), and writes each once when `fn` is done, before it
 * returns: the owner of the transaction (the ingest, events.service.ts
 * persist) guarantees the write before its commit, whichever writers
 * joined. Measured reason: a complete-call batch's report writers (the
 * finished calls and the agent state spans) wrote the same report_agent and
 * report_agent_day rows twice, ~300–500 upserts a batch. Nested: the
 * outer gathering writes. If `fn` throws nothing is written (the
 * transaction rolls back).
 */
export async function gatherRollups<T>(tx: Queryable, fn: () => Promise<T>): Promise<T> {
  if (gatherings.has(tx)) return fn();
  const pending = new Map<string, Promise<PendingRollup>>();
  gatherings.set(tx, pending);
  try {
    const result = await fn();
    for (const p of pending.values()) await (await p).flush();
    return result;
  } finally {
    gatherings.delete(tx);
  }
}

/**
 * The pending roll-up `key` of the gathering open on `tx` (made by `make`
 * on its first use), or null when none is open: the writer then writes at
 * once (the plain path: seeding, a call history written outside an ingest).
 */
export function gatheredRollup<P extends PendingRollup>(tx: Queryable, key: string, make: () => Promise<P>): Promise<P> | null {
  const pending = gatherings.get(tx);
  if (!pending) return null;
  let p = pending.get(key);
  if (!p) pending.set(key, (p = make()));
  return p as Promise<P>;
}
