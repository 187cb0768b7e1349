import type { TenantQueries } from './tenant.js';
import type { Param } from './types.js';

/**
 * Set-at-a-time SQL for the ingest hot path, the one place that differs by
 * dialect: PostgreSQL gets one statement per table per batch (each round trip
 * costs ~0.1 ms), SQLite one cached prepared statement per row (in-process,
 * a few microseconds each).
 */

export interface BulkColumn {
  name: string;
  /** PostgreSQL type for jsonb_to_recordset. */
  pg: 'bigint' | 'text' | 'double precision' | 'integer';
}

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
  const names = columns.map((c) => c.name);
  const conflict =
    onConflict === 'nothing'
      ? `ON CONFLICT (account_id, ${key.join(', ')}) DO NOTHING`
      : `ON CONFLICT (account_id, ${key.join(', ')}) DO UPDATE SET ${names
          .filter((c) => !key.includes(c))
          .map((c) => `${c} = excluded.${c}`)
          .join(', ')}`;
  if (t.dialect === 'postgres') {
    const sql = `INSERT INTO ${table} (account_id, ${names.join(', ')})
      SELECT $1, ${names.map((c) => `x.${c}`).join(', ')}
      FROM jsonb_to_recordset($2::jsonb) AS x(${columns.map((c) => `${c.name} ${c.pg}`).join(', ')}) ${conflict}`;
    await t.run(sql, [JSON.stringify(rows)]);
    return;
  }
  const sql = `INSERT INTO ${table} (account_id, ${names.join(', ')}) VALUES ($1, ${names.map((_, i) => `$${i + 2}`).join(', ')}) ${conflict}`;
  for (const row of rows) await t.run(sql, names.map((c) => row[c]));
}
