import type { Migration } from '../migrate.js';

/**
 * A change mark per account and UTC day of the analysis roll-ups
 * (src/modules/analysis/day-cache/bucket-day-cache.ts). Every roll-up flush sets a new random
 * mark on the days it touched, in the same transaction, so a node may keep
 * the answer of a day in memory and know, with one read of a row per UTC
 * day of the range, whether any node has changed that day since (a late
 * event on an old call does). Rows are never deleted: a day without a row
 * reads as mark 0, which an answer kept before the deletion could carry.
 */
export const migration: Migration = {
  id: '044_analysis_versions',
  up() {
    return `
CREATE TABLE analysis_versions (
  account_id BIGINT NOT NULL,
  utc_day BIGINT NOT NULL,
  version BIGINT NOT NULL,
  PRIMARY KEY (account_id, utc_day)
);`;
  },
};
