import { randomInt } from 'node:crypto';
import { addToRows } from '../../../db/bulk.js';
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
  vec: Float64Array;
}

/** Cube keys: agent (0 = the call itself), group (-1 = none), DID and campaign ('' = none). */
export const CUBE_SEP = '\u0001';
export function cubeKey(agent: number, group: number | null, did: string | null, campaign: string | null): string {
  return [agent, group ?? -1, did ?? '', campaign ?? ''].join(CUBE_SEP);
}

const FINE_KEY = ['dim', 'bucket', 'k', 'direction'];
const CUBE_KEY = ['bucket', 'agent_id', 'group_id', 'did', 'campaign_id', 'direction'];

async function write(tx: Queryable, accountId: number, table: string, key: string[], deltas: Delta[], keyParams: (d: Delta) => Param[]): Promise<void> {
  const rows: Param[][] = [];
  for (const d of deltas) {
    if (!d.vec.some((v) => v !== 0)) continue;
    const row = keyParams(d);
    // Counts are integers; only the two sums are fractional.
    for (let c = 0; c < NCOLS; c++) row.push(IX.ring_sum <= c ? d.vec[c]! : Math.round(d.vec[c]!));
    rows.push(row);
  }
  await addToRows(tenant(tx, accountId), table, { key, sum: COLS, max: [] }, rows);
}

/** Adds the deltas to analysis_fine / analysis_hourly / analysis_daily (per dimension) or analysis_cube. */
export async function writeDeltas(
  tx: Queryable,
  accountId: number,
  table: 'analysis_fine' | 'analysis_hourly' | 'analysis_daily' | 'analysis_cube',
  deltas: Delta[],
): Promise<void> {
  if (table !== 'analysis_cube') {
    await write(tx, accountId, table, FINE_KEY, deltas, (d) => [d.dim, d.bucket, d.key, d.direction]);
    return;
  }
  await write(tx, accountId, table, CUBE_KEY, deltas, (d) => {
    const [agent, group, did, campaign] = d.key.split(CUBE_SEP);
    return [d.bucket, Number(agent), Number(group), did!, campaign!, d.direction];
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

const DAYS_PER_STATEMENT = 16;

/**
 * A new change mark: random, not a count. Readers only compare marks for
 * equality, and a count could come back to a value a node has kept an
 * answer under (a database restored from a backup, a failover to a standby
 * that lost its last commits); 48 random bits do not.
 */
export function newVersion(): number {
  return randomInt(1, 2 ** 48);
}

/**
 * Marks UTC days (analysis_versions, migration 044) and UTC hours
 * (analysis_hour_versions, migration 100) as changed, in the caller's
 * transaction: answers of those days or hours kept on any node (day-cache.ts,
 * day-grids.ts) no longer match from its commit on. Sorted, in statements of
 * at most 16 (a bounded set of statement texts to prepare).
 */
export async function bumpVersions(tx: Queryable, accountId: number, utcDays: number[], utcHours: number[] = []): Promise<void> {
  await bump(tx, accountId, 'analysis_versions', 'utc_day', utcDays);
  await bump(tx, accountId, 'analysis_hour_versions', 'utc_hour', utcHours);
}

async function bump(tx: Queryable, accountId: number, table: string, col: string, values: number[]): Promise<void> {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const t = tenant(tx, accountId);
  for (let i = 0; i < sorted.length; i += DAYS_PER_STATEMENT) {
    const chunk = sorted.slice(i, i + DAYS_PER_STATEMENT);
    const rows = chunk.map((_, j) => `($1, $${j + 3}, $2)`).join(', ');
    await t.run(`INSERT INTO ${table} (account_id, ${col}, version) VALUES ${rows} ON CONFLICT (account_id, ${col}) DO UPDATE SET version = excluded.version`, [
      newVersion(),
      ...chunk,
    ]);
  }
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
