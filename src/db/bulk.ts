import { dialectOf, type BulkColumn } from './dialect.js';
import type { TenantQueries } from './tenant.js';
import type { Param } from './types.js';

export type { BulkColumn };

/**
 * Set-at-a-time SQL for the ingest hot path. The statements differ by
 * dialect (`DialectOps.insertRows`): PostgreSQL gets one statement per table
 * per batch (each round trip costs ~0.1 ms), SQLite one cached prepared
 * statement per row (in-process, a few microseconds each).
 */

/** Inserts rows (objects keyed by column name; account_id is added), updating or skipping on a key conflict. */
export async function bulkWrite(
  t: TenantQueries,
  table: string,
  columns: readonly BulkColumn[],
  key: readonly string[],
  rows: readonly Record<string, Param>[],
  onConflict: 'update' | 'nothing',
): Promise<void> {
  if (rows.length === 0) return;
  const conflict =
    onConflict === 'nothing'
      ? `ON CONFLICT (account_id, ${key.join(', ')}) DO NOTHING`
      : `ON CONFLICT (account_id, ${key.join(', ')}) DO UPDATE SET ${columns
          .map((c) => c.name)
          .filter((c) => !key.includes(c))
          .map((c) => `${c} = excluded.${c}`)
          .join(', ')}`;
  await dialectOf(t).insertRows(t, table, columns, rows, conflict);
}
