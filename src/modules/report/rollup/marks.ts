import { randomInt } from 'node:crypto';
import type { TenantQueries } from '../../../db/tenant.js';

const DAYS_PER_STATEMENT = 16;

/**
 * Sets a new change mark on UTC days of the report roll-ups (report_versions,
 * migration 110), in the caller's transaction: answers of local days kept on
 * any node (answers/day-cache.ts) no longer match from its commit on. Random,
 * not a count: a count could come back to a value a node kept an answer
 * under (a restored backup, a failover that lost commits). Days sorted, at
 * most 16 per statement (a bounded set of statement texts).
 */
export async function markDays(t: TenantQueries, utcDays: Iterable<number>): Promise<void> {
  const days = [...new Set(utcDays)].sort((a, b) => a - b);
  for (let i = 0; i < days.length; i += DAYS_PER_STATEMENT) {
    const chunk = days.slice(i, i + DAYS_PER_STATEMENT);
    const values = chunk.map((_, j) => `($1, $${j + 3}, $2)`).join(', ');
    await t.run(
      `INSERT INTO report_versions (account_id, utc_day, version) VALUES ${values} ON CONFLICT (account_id, utc_day) DO UPDATE SET version = excluded.version`,
      [randomInt(1, 2 ** 48), ...chunk],
    );
  }
}

/** The UTC day (days since 1970-01-01) of a Unix time. */
export const utcDayOf = (ts: number) => Math.floor(ts / 86400);
