import { columnTypes, type Migration } from '../migrate.js';

const SLOT = 300;

/**
 * Five-minute analysis roll-up (src/modules/analysis/rollup/rollup-batch.ts):
 * `analysis_fine` has the shape of `analysis_hourly`, its buckets 5-minute
 * UTC slots (Unix seconds / 300). A range that starts or ends inside an hour
 * reads its whole 5-minute slots here and at most 5 minutes of raw calls at
 * each end, instead of up to an hour.
 *
 * Calls rolled up before this migration have no rows here:
 * `analysis_rollup_state.fine_from` is the first slot start (Unix seconds)
 * from which the table is complete (0 for accounts rolled up afterwards, and
 * after `seed --analysis-rebuild`); before it, queries read raw calls.
 *
 * `analysis_hour_versions`: a change mark per account and UTC hour, set anew
 * by every roll-up flush on the hours it touched (as analysis_versions per
 * UTC day, migration 044), so a node may keep the counters of the whole hours
 * of a partial day — today's included, ingest changing only the current hour.
 *
 * Retry-flag bookings (`analysis_retry_flags.hour`) move from 15-minute to
 * 5-minute slots: the original call's own slot, from its queued time (a
 * booking whose call is gone keeps the first 5 minutes of its quarter).
 */
export const migration: Migration = {
  id: '100_analysis_fine',
  up(d) {
    const t = columnTypes(d);
    const ints = ['tc', 'ac', 'mc', 'uc', 'ca', 'pm', 'cm', 'fr_uc', 'fr_ca', 'fr_pm', 'fr_cm', 'fr_can', ...Array.from({ length: 11 }, (_, k) => `gh${k}`)];
    const cols = ints
      .map((c) => `  ${c} BIGINT NOT NULL DEFAULT 0,`)
      .concat([`  ring_sum ${t.real} NOT NULL DEFAULT 0,`, `  hold_sum ${t.real} NOT NULL DEFAULT 0,`])
      .join('\n');
    // The next slot after this migration runs: every call queued in it or later is rolled up from now on.
    const fineFrom = (Math.floor(Date.now() / 1000 / SLOT) + 1) * SLOT;
    const slotOf = d === 'postgres' ? `CAST(floor(c.queued_at / ${SLOT}) AS BIGINT)` : `CAST(c.queued_at / ${SLOT} AS INTEGER)`;
    return `
CREATE TABLE analysis_fine (
  account_id BIGINT NOT NULL,
  dim TEXT NOT NULL,
  bucket BIGINT NOT NULL,
  k TEXT NOT NULL,
  direction TEXT NOT NULL,
${cols}
  PRIMARY KEY (account_id, dim, bucket, k, direction)
);
CREATE TABLE analysis_hour_versions (
  account_id BIGINT NOT NULL,
  utc_hour BIGINT NOT NULL,
  version BIGINT NOT NULL,
  PRIMARY KEY (account_id, utc_hour)
);
ALTER TABLE analysis_rollup_state ADD COLUMN fine_from BIGINT NOT NULL DEFAULT 0;
UPDATE analysis_rollup_state SET fine_from = ${fineFrom};
UPDATE analysis_retry_flags SET hour = COALESCE(
  (SELECT ${slotOf} FROM calls c WHERE c.account_id = analysis_retry_flags.account_id AND c.call_id = analysis_retry_flags.call_id),
  hour * 3);
`;
  },
};
