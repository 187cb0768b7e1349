import { columnTypes, type Migration } from '../migrate.js';

/**
 * Stored hour grids (src/modules/analysis/answer/stored-hours.ts): one row
 * per account, breakdown dimension, ghost threshold and UTC day, holding the
 * hourly roll-up of that day already summed over directions, every key and
 * hour in one binary value (hour-grid-codec.ts). A node's first ask of a month
 * of hours reads 31 such rows per dimension instead of ~280,000 roll-up rows.
 *
 * `token` is the day's change mark (analysis_versions) read before the
 * roll-up rows the grid was summed from: a row is used only while the mark is
 * unchanged, so any later ingest, late event or rebuild — by any node, of any
 * version — makes it stale, and it is summed again and replaced. Nothing is
 * backfilled: rows are written by the first ask that sums a day.
 */
export const migration: Migration = {
  id: '130_analysis_hour_grids',
  up(d) {
    const t = columnTypes(d);
    return `
CREATE TABLE analysis_hour_grids (
  account_id BIGINT NOT NULL,
  dim TEXT NOT NULL,
  ghost INTEGER NOT NULL,
  utc_day BIGINT NOT NULL,
  token BIGINT NOT NULL,
  keys TEXT NOT NULL,
  grid ${t.bytes} NOT NULL,
  PRIMARY KEY (account_id, dim, ghost, utc_day)
);${
      // Stored out of line but not compressed: a month's 31 values are read at once, and pglz
      // decompression of ~9 MB is time the first ask would wait for.
      d === 'postgres' ? '\nALTER TABLE analysis_hour_grids ALTER COLUMN grid SET STORAGE EXTERNAL;' : ''
    }
`;
  },
};
