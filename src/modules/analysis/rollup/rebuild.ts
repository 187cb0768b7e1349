import type { Database } from '../../../db/types.js';
import { tenant } from '../../../db/tenant.js';
import { CALL_COLUMNS, factsOfRow, tableStore, type CallRow } from './rollup-store.js';
import { RollupBatch } from './rollup-batch.js';
import { newMark } from '../../../db/rollup-write.js';
import { lockRollupWriters } from './rollup-writer.js';

/**
 * Rebuilds an account's analysis roll-ups from its calls, keyed in the
 * account's current time zone (after a time-zone change the daily rows are
 * still in the old zone; queries stay exact meanwhile through the hourly
 * roll-up or the raw calls). One transaction: events ingested meanwhile wait
 * on SQLite; on PostgreSQL run it while the switch is paused.
 */
export async function rebuildRollups(db: Database, accountId: number, onProgress?: (done: number) => void): Promise<number> {
  return db.transaction(async (tx) => {
    const t = tenant(tx, accountId);
    await lockRollupWriters(tx, accountId);
    // Every kept day answer goes stale: the days with a mark, and the days with roll-up rows that
    // may have none yet (rows from before migration 044) and may come out empty. A local day is
    // within the UTC days before and after its own number.
    const mark = newMark();
    await t.run('UPDATE analysis_versions SET version = $2 WHERE account_id = $1', [mark]);
    await t.run(
      `INSERT INTO analysis_versions (account_id, utc_day, version)
       SELECT DISTINCT account_id, bucket / 24, CAST($2 AS BIGINT) FROM analysis_hourly WHERE account_id = $1
       UNION SELECT DISTINCT account_id, bucket + o.d, CAST($2 AS BIGINT) FROM analysis_daily CROSS JOIN (SELECT -1 AS d UNION ALL SELECT 0 UNION ALL SELECT 1) o WHERE account_id = $1
       ON CONFLICT (account_id, utc_day) DO UPDATE SET version = excluded.version`,
      [mark],
    );
    // Kept hours likewise: every marked hour, and every hour with hourly rows.
    await t.run('UPDATE analysis_hour_versions SET version = $2 WHERE account_id = $1', [mark]);
    await t.run(
      `INSERT INTO analysis_hour_versions (account_id, utc_hour, version)
       SELECT DISTINCT account_id, bucket, CAST($2 AS BIGINT) FROM analysis_hourly WHERE account_id = $1
       ON CONFLICT (account_id, utc_hour) DO UPDATE SET version = excluded.version`,
      [mark],
    );
    for (const table of ['analysis_fine', 'analysis_hourly', 'analysis_daily', 'analysis_cube', 'analysis_retry_flags', 'analysis_rollup_state']) {
      await t.run(`DELETE FROM ${table} WHERE account_id = $1`);
    }
    const store = tableStore(tx, accountId);
    let done = 0;
    let after: { q: number; id: string } | null = null;
    for (;;) {
      const page: CallRow[] = after
        ? await t.all<CallRow>(
            `SELECT ${CALL_COLUMNS} FROM calls WHERE account_id = $1 AND (queued_at > $2 OR (queued_at = $2 AND call_id > $3)) ORDER BY queued_at, call_id LIMIT 5000`,
            [after.q, after.id],
          )
        : await t.all<CallRow>(`SELECT ${CALL_COLUMNS} FROM calls WHERE account_id = $1 ORDER BY queued_at, call_id LIMIT 5000`);
      if (page.length === 0) break;
      const last = page[page.length - 1]!;
      const hits = await t.all<{ call_id: string; agent_id: number; ring_secs: number; answered: number }>(
        `SELECT call_id, agent_id, ring_secs, answered FROM call_hits WHERE account_id = $1 AND call_id IN (SELECT call_id FROM calls WHERE account_id = $1 AND (queued_at > $2 OR (queued_at = $2 AND call_id >= $3)) AND (queued_at < $4 OR (queued_at = $4 AND call_id <= $5))) ORDER BY call_id, seq`,
        [page[0]!.queued_at, page[0]!.call_id, last.queued_at, last.call_id],
      );
      const byCall = new Map<string, typeof hits>();
      for (const h of hits) byCall.set(h.call_id, [...(byCall.get(h.call_id) ?? []), h]);
      const batch = new RollupBatch();
      for (const row of page) await batch.add(factsOfRow(row, byCall.get(row.call_id) ?? []), 1, store);
      await batch.flush(tx, accountId);
      done += page.length;
      onProgress?.(done);
      after = { q: Number(last.queued_at), id: last.call_id };
    }
    return done;
  });
}
