import { rollupTable, writeRollup, type MarkTable } from '../../../db/rollup-write.js';
import { dialectOf } from '../../../db/dialect.js';
import type { Param, Queryable } from '../../../db/types.js';
import { tenant } from '../../../db/tenant.js';
import { COLS, IX, NCOLS, type Dim } from './counters.js';

/** One roll-up change: `bucket` is a UTC hour (hourly) or a local day (daily, cube). */
export interface Delta {
  dim: Dim | 'cube';
  key: string;
  direction: string;
  bucket: number;
  vec: number[];
}

/** Cube keys: agent (0 = the call itself), group (-1 = none), DID and campaign ('' = none). */
export const CUBE_SEP = '\u0001';
export function cubeKey(agent: number, group: number | null, did: string | null, campaign: string | null): string {
  return [agent, group ?? -1, did ?? '', campaign ?? ''].join(CUBE_SEP);
}

const FINE_KEY = ['dim', 'bucket', 'k', 'direction'];
const CUBE_KEY = ['bucket', 'agent_id', 'group_id', 'did', 'campaign_id', 'direction'];

/**
 * The analysis change marks: UTC days (analysis_versions, migration 044) and
 * UTC hours (analysis_hour_versions, migration 100). Every write of an
 * analysis roll-up row sets both for the times it changed (writeRollup), so
 * answers of those days or hours kept on any node (day-cache/, stored hour
 * grids) no longer match from its commit on.
 */
export const ANALYSIS_MARKS: readonly [MarkTable, MarkTable] = [
  { table: 'analysis_versions', column: 'utc_day', unitSecs: 86_400 },
  { table: 'analysis_hour_versions', column: 'utc_hour', unitSecs: 3_600 },
];

const table = (name: string, key: string[]) => rollupTable(name, { key, sum: COLS, max: [] }, ANALYSIS_MARKS);
const FINE = table('analysis_fine', FINE_KEY);
const HOURLY = table('analysis_hourly', FINE_KEY);
const DAILY = table('analysis_daily', FINE_KEY);
const CUBE = table('analysis_cube', CUBE_KEY);

/** The rows of `deltas` that change something: `keyParams` puts the key's values in a row of `width`, the counters follow. */
function rowsOf(deltas: Delta[], width: number, keyParams: (d: Delta, row: Param[]) => void): Param[][] {
  const rows: Param[][] = [];
  const first = width - NCOLS;
  for (const d of deltas) {
    if (!d.vec.some((v) => v !== 0)) continue;
    // Sized once: pushing the counters onto the key's values grew each of ~900 rows a batch twice.
    const row = new Array<Param>(width);
    keyParams(d, row);
    // Counts are integers; only the two sums are fractional.
    for (let c = 0; c < NCOLS; c++) row[first + c] = IX.ring_sum <= c ? d.vec[c]! : Math.round(d.vec[c]!);
    rows.push(row);
  }
  return rows;
}

function fineKey(d: Delta, row: Param[]): void {
  row[0] = d.dim;
  row[1] = d.bucket;
  row[2] = d.key;
  row[3] = d.direction;
}
function cubeKeyParams(d: Delta, row: Param[]): void {
  const [agent, group, did, campaign] = d.key.split(CUBE_SEP);
  row[0] = d.bucket;
  row[1] = Number(agent);
  row[2] = Number(group);
  row[3] = did!;
  row[4] = campaign!;
  row[5] = d.direction;
}

/**
 * Adds one flush's deltas to analysis_fine (5-minute slots), analysis_hourly
 * (UTC hours), analysis_daily (per dimension) and analysis_cube (local days),
 * and marks the UTC days and hours of `times` (the slots' Unix seconds), in
 * one writeRollup call.
 */
export async function writeDeltas(
  tx: Queryable,
  accountId: number,
  deltas: { fine: Delta[]; hourly: Delta[]; daily: Delta[]; cube: Delta[] },
  times: Iterable<number>,
): Promise<void> {
  await writeRollup(tenant(tx, accountId), {
    writes: [
      { table: FINE, rows: rowsOf(deltas.fine, FINE_KEY.length + NCOLS, fineKey) },
      { table: HOURLY, rows: rowsOf(deltas.hourly, FINE_KEY.length + NCOLS, fineKey) },
      { table: DAILY, rows: rowsOf(deltas.daily, FINE_KEY.length + NCOLS, fineKey) },
      { table: CUBE, rows: rowsOf(deltas.cube, CUBE_KEY.length + NCOLS, cubeKeyParams) },
    ],
    times,
  });
}

/** Advisory lock namespace of an account's roll-up writers (PostgreSQL; the key is the account id). */
const PG_ROLLUP_LOCK = 7_241_002;

/**
 * Serialises an account's roll-up writers (ingest, bulk loads, rebuilds) on
 * PostgreSQL until the transaction ends. Each adds to counter rows, and
 * today's change mark, in its own order; two at once could deadlock, where
 * one after the other merely waits. Ingest batches of an account already
 * run one at a time (the sequence row), so it costs them nothing. SQLite
 * has one writer anyway.
 */
export async function lockRollupWriters(tx: Queryable, accountId: number): Promise<void> {
  await dialectOf(tx).transactionLock(tx, [PG_ROLLUP_LOCK, accountId]);
}

/**
 * The zone the daily roll-ups of an account are kept in: fixed at the
 * account's zone when its first call is rolled up. When the account later
 * changes its zone, queries use the hourly roll-up (or the raw calls) until
 * the daily rows are rebuilt. (Not cached in process: tests and several nodes
 * may share account ids across databases; it is one key lookup.)
 */
export async function rollupZone(tx: Queryable, accountId: number): Promise<string> {
  const t = tenant(tx, accountId);
  const row = await t.get<{ timezone: string }>('SELECT timezone FROM analysis_rollup_state WHERE account_id = $1');
  if (row) return row.timezone;
  const acc = await tx.get<{ timezone: string }>('SELECT timezone FROM accounts WHERE id = $1', [accountId]);
  const tz = acc?.timezone ?? 'UTC';
  await t.run('INSERT INTO analysis_rollup_state (account_id, timezone) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING', [tz]);
  return (await t.get<{ timezone: string }>('SELECT timezone FROM analysis_rollup_state WHERE account_id = $1'))?.timezone ?? tz;
}
