import type { TenantQueries } from '../../../db/tenant.js';
import type { Param } from '../../../db/types.js';

const ROWS_PER_STATEMENT = 50;
const statements = new Map<string, string>();

/**
 * Adds rows of deltas to a roll-up table (`col = col + excluded.col` on the
 * key), 50 rows per statement; `maxCols` keep the larger value instead (a
 * maximum is never taken back: the only corrections of finished calls, late
 * misses, leave waits unchanged).
 */
export async function addRows(
  t: TenantQueries,
  table: string,
  keyCols: readonly string[],
  sumCols: readonly string[],
  maxCols: readonly string[],
  rows: ReadonlyArray<readonly Param[]>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const cols = [...keyCols, ...sumCols, ...maxCols];
    const id = `${table}|${chunk.length}|${cols.join(',')}`;
    let sql = statements.get(id);
    if (!sql) {
      const values = chunk.map((_, r) => `($1, ${cols.map((_, c) => `$${2 + r * cols.length + c}`).join(', ')})`);
      const sets = [
        ...sumCols.map((c) => `${c} = ${table}.${c} + excluded.${c}`),
        ...maxCols.map(
          (c) =>
            `${c} = CASE WHEN excluded.${c} IS NULL THEN ${table}.${c} WHEN ${table}.${c} IS NULL OR excluded.${c} > ${table}.${c} THEN excluded.${c} ELSE ${table}.${c} END`,
        ),
      ];
      sql = `INSERT INTO ${table} (account_id, ${cols.join(', ')}) VALUES ${values.join(', ')} ON CONFLICT (account_id, ${keyCols.join(', ')}) DO UPDATE SET ${sets.join(', ')}`;
      statements.set(id, sql);
    }
    await t.run(sql, chunk.flat());
  }
}
