import { addToRows } from '../../../db/bulk.js';
import type { TenantQueries } from '../../../db/tenant.js';
import type { Param } from '../../../db/types.js';

/**
 * Adds rows of deltas to a report roll-up table (`col = col + excluded.col`
 * on the key); `maxCols` keep the larger value instead (a maximum is never
 * taken back: the only corrections of finished calls, late misses, leave
 * waits unchanged).
 */
export async function addRows(
  t: TenantQueries,
  table: string,
  keyCols: readonly string[],
  sumCols: readonly string[],
  maxCols: readonly string[],
  rows: ReadonlyArray<readonly Param[]>,
): Promise<void> {
  await addToRows(t, table, { key: keyCols, sum: sumCols, max: maxCols }, rows);
}
