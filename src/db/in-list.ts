import { dialectOf } from './dialect.js';
import type { TenantQueries } from './tenant.js';
import type { Param } from './types.js';

/** `<column> IN <the values>` with the values as parameter `$n` (`DialectOps.inList`). */
export function inList(t: TenantQueries, column: string, n: number, values: readonly (string | number)[]): { sql: string; param: Param } {
  return dialectOf(t).inList(column, n, values);
}

/** The rows of `table` whose `column` is one of the values, as FROM item `alias`, one index probe per value (`DialectOps.probeRows`). */
export function probeRows(
  t: TenantQueries,
  table: string,
  alias: string,
  column: string,
  n: number,
  values: readonly (string | number)[],
): { sql: string; param: Param } {
  return dialectOf(t).probeRows(table, alias, column, n, values);
}
