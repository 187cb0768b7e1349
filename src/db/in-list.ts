import type { TenantQueries } from './tenant.js';
import type { Param } from './types.js';

/** `<column> IN <the values>` with the values as parameter `$n`. */
export function inList(t: TenantQueries, column: string, n: number, values: readonly (string | number)[]): { sql: string; param: Param } {
  if (t.dialect === 'postgres') {
    // Not `= ANY($n)`: once PostgreSQL switches a prepared statement to its generic
    // plan it scans the whole table for ANY over an array of unknown size; a
    // semi-join over unnest() keeps one index probe per value.
    const type = typeof values[0] === 'number' ? 'bigint[]' : 'text[]';
    return { sql: `${column} IN (SELECT unnest($${n}::${type}))`, param: values as unknown as Param };
  }
  return { sql: `${column} IN (SELECT value FROM json_each($${n}))`, param: JSON.stringify(values) };
}
